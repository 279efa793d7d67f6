package layout_test

import (
	"fmt"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
	"github.com/lindigo/lindi/hdf5/internal/layout"
)

func ExampleParse() {
	// A version 3 chunked layout: 3 dimensions (two, plus the element
	// size), the B-tree at address 1200, chunks of 10×20 4-byte elements.
	msg := []byte{3, 2, 3, 0xb0, 0x04, 0, 0, 0, 0, 0, 0, 10, 0, 0, 0, 20, 0, 0, 0, 4, 0, 0, 0}
	l, err := layout.Parse(msg, fileio.Sizes{OffsetSize: 8, LengthSize: 8})
	if err != nil {
		fmt.Println(err)
		return
	}
	n, _ := l.ChunkBytes()
	fmt.Println(l.Class, l.IndexType, l.Addr, l.Chunk, l.ElemSize, n)
	// Output: chunked v1 B-tree 1200 [10 20] 4 800
}

func ExampleFilter_Codec() {
	// A version 2 pipeline: shuffle (element size 2), then deflate level 4.
	msg := []byte{2, 2, 2, 0, 1, 0, 1, 0, 2, 0, 0, 0, 1, 0, 0, 0, 1, 0, 4, 0, 0, 0}
	filters, err := layout.ParseFilters(msg)
	if err != nil {
		fmt.Println(err)
		return
	}
	// Decoding runs the pipeline backwards.
	for i := len(filters) - 1; i >= 0; i-- {
		cfg, err := filters[i].Codec(2)
		fmt.Println(string(cfg), err)
	}
	// Output:
	// {"id":"zlib","level":4} <nil>
	// {"elementsize":2,"id":"shuffle"} <nil>
}
