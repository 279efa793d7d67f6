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
