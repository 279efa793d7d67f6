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

// A client with its own key and a precomputed LINDI service opens assets
// through h5.Open when given as a locator:
// h5.WithSourceOptions(source.WithLocator(c.Locate)).
func ExampleNewClient() {
	c, err := dandi.NewClient(dandi.WithKey("dandi", "KEY"), dandi.WithPrecomputed("https://lindi.neurosift.org"))
	if err != nil {
		fmt.Println(err)
		return
	}
	for a, err := range c.Assets(context.Background(), "dandi://DANDI/000409", dandi.WithShard(0, 4)) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(a.Path)
	}
}

// The versions of a dandiset, oldest first: the draft, then each
// published version with its date.
func ExampleVersions() {
	vs, err := dandi.Versions(context.Background(), "dandi://DANDI/000409")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, v := range vs {
		fmt.Println(v.Version, v.Created.Format("2006-01-02"), v.AssetCount)
	}
}
