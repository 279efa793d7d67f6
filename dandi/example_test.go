package dandi_test

import (
	"context"
	"fmt"

	"github.com/lindigo/lindi/dandi"
)

// Every NWB asset of a dandiset, lazily across the listing's pages; each
// a.Address() opens with h5.Open or nwb.Open at no further lookup.
func ExampleAssets() {
	ctx := context.Background()
	for a, err := range dandi.Assets(ctx, "dandi://DANDI/000409@draft", dandi.WithGlob("*.nwb")) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(a.Path, a.Size, a.Address())
	}
}

func ExampleParseAddress() {
	a, err := dandi.ParseAddress("https://dandiarchive.org/dandiset/000409/draft/files?location=sub-01")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(a, a.IsFolder())
	// Output: dandi://dandi/000409@draft/sub-01/ true
}
