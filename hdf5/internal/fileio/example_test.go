package fileio_test

import (
	"fmt"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

func ExampleDecoder() {
	// A signature, a version byte, a 4-byte address and a 2-byte length
	// that is all ones, then a field the data is too short for.
	b := []byte("HEAP\x00\x10\x00\x00\x00\xff\xff")
	d := fileio.NewDecoder(b, fileio.Sizes{OffsetSize: 4, LengthSize: 2})
	d.Signature("HEAP")
	version, addr, n := d.Uint8(), d.Offset(), d.Length()
	fmt.Println(version, addr, fileio.IsUndefined(n), d.Err())
	d.Uint32()
	fmt.Println(d.Err())
	// Output:
	// 0 16 true <nil>
	// hdf5: structure truncated: need 4 bytes at offset 11, have 0
}

func ExampleChecksum() {
	fmt.Printf("%#08x\n", fileio.Checksum([]byte("Four score and seven years ago")))
	// Output: 0x17770551
}
