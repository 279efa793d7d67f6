package fetch_test

import (
	"context"
	"fmt"
	"sync"

	"github.com/lindigo/lindi/io/fetch"
	"github.com/lindigo/lindi/io/source"
)

func ExampleFetcher_Fetch() {
	src := source.NewBytes("blob", []byte("0123456789abcdefghij"))
	ranges := []fetch.Range{
		{Src: src, Off: 0, Len: 4},
		{Src: src, Off: 10, Len: 3},
		{Src: src, Off: 2, Len: 4}, // overlaps the first: still read once
		{Src: src, Off: 7, Len: 0},
	}
	out := make([]string, len(ranges))
	var mu sync.Mutex
	err := fetch.Default().Fetch(context.Background(), ranges, func(i int, data []byte) error {
		mu.Lock()
		out[i] = string(data)
		mu.Unlock()
		return nil
	})
	fmt.Println(out, err, src.Stats().Requests)
	// Output: [0123 abc 2345 ] <nil> 1
}
