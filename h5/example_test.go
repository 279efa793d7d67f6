package h5_test

import (
	"context"
	"fmt"
	"log"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/selection"
)

func Example() {
	ctx := context.Background()
	f, err := h5.Open(ctx, "../testdata/conformance/fixture.lindi.json")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	ds, err := f.Dataset(ctx, "acquisition/ElectricalSeries/data")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ds.Shape(), ds.DType(), ds.Chunks(), ds.Codecs())

	sel, err := selection.Parse("0:2, ::8")
	if err != nil {
		log.Fatal(err)
	}
	a, err := h5.Read[int16](ctx, ds, sel)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(a.Shape, a.Data)
	// Output:
	// [5946 24] <i2 [689 24] [shuffle zlib]
	// [2 3] [1020 1476 -1658 -190 -467 -1752]
}

func ExampleDense() {
	ctx := context.Background()
	f, err := h5.Open(ctx, "../testdata/conformance/fixture.h5")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	ds, err := f.Dataset(ctx, "processing/behavior/Position/SpatialSeries/data")
	if err != nil {
		log.Fatal(err)
	}
	a, err := h5.Read[float64](ctx, ds, selection.Selection{selection.Slice(0, 100, 1)})
	if err != nil {
		log.Fatal(err)
	}
	m, err := h5.Dense(a) // shares a.Data: no copy
	if err != nil {
		log.Fatal(err)
	}
	r, c := m.Dims()
	fmt.Println(r, c)
	// Output:
	// 100 2
}

func ExampleRead_strings() {
	ctx := context.Background()
	f, err := h5.Open(ctx, "../testdata/conformance/fixture.lindi.json")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	ds, err := f.Dataset(ctx, "misc/vlen_strings")
	if err != nil {
		log.Fatal(err)
	}
	s, err := h5.Read[string](ctx, ds, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%q\n", s.Data)
	// Output:
	// ["one" "two" "three" "unicode éè"]
}

func ExampleAttrs() {
	f, err := h5.Open(context.Background(), "../testdata/conformance/fixture.zarr")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	g, err := f.Group(ctx, "nested/group")
	if err != nil {
		log.Fatal(err)
	}
	level, err := g.Attrs().Int("level")
	fmt.Println(g.Members(), level, err)
	// Output:
	// [i4] 2 <nil>
}

func ExampleGroup_Walk() {
	f, err := h5.Open(context.Background(), "../testdata/conformance/fixture.lindi.json")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	g, err := f.Group(ctx, "acquisition/ElectricalSeries")
	if err != nil {
		log.Fatal(err)
	}
	g.Walk(ctx, func(path string, l h5.Link, o h5.Object, err error) error {
		if l.Kind == h5.SoftLink {
			fmt.Println(path, "→", l.Target)
			return nil
		}
		fmt.Println(path)
		return nil
	})
	// Output:
	// /acquisition/ElectricalSeries/data
	// /acquisition/ElectricalSeries/electrode_group_link → /general/extracellular_ephys/shank0
	// /acquisition/ElectricalSeries/electrodes
	// /acquisition/ElectricalSeries/starting_time
	// /acquisition/ElectricalSeries/timestamps
}
