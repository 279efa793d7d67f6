package source_test

import (
	"context"
	"fmt"

	"github.com/lindigo/lindi/io/source"
)

func ExampleOpen() {
	ctx := context.Background()
	s, err := source.Open(ctx, "../../testdata/conformance/fixture.h5")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.(interface{ Close() error }).Close()
	sig := make([]byte, 8)
	if _, err := s.ReadAt(ctx, sig, 0); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%q\n", sig)
	// Output: "\x89HDF\r\n\x1a\n"
}

func ExamplePool() {
	ctx := context.Background()
	pool, err := source.NewPool()
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pool.Close()
	for range 3 { // three refs to one file share one source
		s, err := pool.Open(ctx, "../../testdata/conformance/fixture.h5")
		if err != nil {
			fmt.Println(err)
			return
		}
		s.ReadAt(ctx, make([]byte, 16), 0)
	}
	for _, st := range pool.Stats() {
		fmt.Println(st.Name, st.Requests, st.Bytes)
	}
	// Output: ../../testdata/conformance/fixture.h5 3 48
}
