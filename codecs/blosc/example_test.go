package blosc_test

import (
	"fmt"
	"log"
	"os"

	"github.com/lindigo/lindi/codecs/blosc"
)

func ExampleParseHeader() {
	src, err := os.ReadFile("../../testdata/numcodecs/blosc/codec.00/encoded.01.dat")
	if err != nil {
		log.Fatal(err)
	}
	h, err := blosc.ParseHeader(src)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(h.Compressor(), h.Shuffle(), h.TypeSize, h.NBytes, h.BlockSize)
	// Output: lz4 byte 8 8000 128
}

func ExampleDecode() {
	src, err := os.ReadFile("../../testdata/numcodecs/blosc/codec.00/encoded.01.dat")
	if err != nil {
		log.Fatal(err)
	}
	// The caller knows the chunk's size from the array metadata and refuses
	// anything larger.
	const chunkBytes = 1000 * 8
	out, err := blosc.Decode(nil, src, chunkBytes)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(out))
	_, err = blosc.Decode(nil, src, chunkBytes/2)
	fmt.Println(err)
	// Output:
	// 8000
	// blosc: decoded size exceeds limit: chunk decodes to 8000 bytes, limit 4000
}

// Encode writes chunks c-blosc reads; short ones are stored uncompressed.
func ExampleEncode() {
	data := make([]byte, 4096) // 1024 little-endian int32 counting up
	for i := range 1024 {
		data[4*i], data[4*i+1] = byte(i), byte(i>>8)
	}
	chunk, err := blosc.Encode(nil, data, blosc.Options{Compressor: "lz4", Level: 5, Shuffle: 1, TypeSize: 4})
	if err != nil {
		fmt.Println(err)
		return
	}
	h, _ := blosc.ParseHeader(chunk)
	fmt.Println(h.Compressor(), h.Shuffle(), h.Memcpyed(), h.NBytes, len(chunk) < len(data))
	small, _ := blosc.Encode(nil, data[:40], blosc.Options{Compressor: "lz4", Level: 5, Shuffle: 1, TypeSize: 4})
	h, _ = blosc.ParseHeader(small)
	fmt.Println(h.Memcpyed(), len(small))
	// Output:
	// lz4 byte false 4096 true
	// true 56
}
