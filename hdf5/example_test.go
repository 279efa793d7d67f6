package hdf5_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/lindigo/lindi/hdf5"
)

// fileSource is a minimal io/source.Source over a local file.
type fileSource struct{ f *os.File }

func (s fileSource) ReadAt(_ context.Context, p []byte, off int64) (int, error) {
	return s.f.ReadAt(p, off)
}

func (s fileSource) Size(context.Context) (int64, error) {
	st, err := s.f.Stat()
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

func (s fileSource) Name() string { return s.f.Name() }

func Example() {
	ctx := context.Background()
	osf, err := os.Open("../testdata/conformance/fixture.h5")
	if err != nil {
		log.Fatal(err)
	}
	defer osf.Close()
	f, err := hdf5.Open(ctx, fileSource{osf})
	if err != nil {
		log.Fatal(err)
	}
	ds, err := f.Dataset(ctx, "acquisition/ElectricalSeries/data")
	if err != nil {
		log.Fatal(err)
	}
	dtype, err := ds.Datatype().NumpyDescr()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ds.Shape(), dtype, ds.Chunks())
	attrs, err := ds.Attrs(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, a := range attrs {
		fmt.Printf("%s = %v\n", a.Name, a.Value)
	}
	// Output:
	// [5946 24] <i2 [689 24]
	// conversion = 1.95e-07
	// unit = volts
}

func ExampleGroup_Members() {
	ctx := context.Background()
	osf, err := os.Open("../testdata/conformance/fixture.h5")
	if err != nil {
		log.Fatal(err)
	}
	defer osf.Close()
	f, err := hdf5.Open(ctx, fileSource{osf})
	if err != nil {
		log.Fatal(err)
	}
	g, err := f.Group(ctx, "acquisition/ElectricalSeries")
	if err != nil {
		log.Fatal(err)
	}
	links, err := g.Members(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, l := range links {
		if l.Type == hdf5.LinkSoft {
			fmt.Println(l.Name, l.Type, l.Target)
		} else {
			fmt.Println(l.Name, l.Type)
		}
	}
	// Output:
	// data hard
	// electrode_group_link soft /general/extracellular_ephys/shank0
	// electrodes hard
	// starting_time hard
	// timestamps hard
}

func ExampleDatatype_NumpyDescr() {
	ctx := context.Background()
	osf, err := os.Open("../testdata/conformance/fixture-latest.h5")
	if err != nil {
		log.Fatal(err)
	}
	defer osf.Close()
	f, err := hdf5.Open(ctx, fileSource{osf})
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range []string{"misc/bool", "misc/big_endian_f8", "misc/fixed_strings", "misc/vlen_strings", "misc/compound"} {
		ds, err := f.Dataset(ctx, p)
		if err != nil {
			log.Fatal(err)
		}
		d, err := ds.Datatype().NumpyDescr()
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(p, d)
	}
	// Output:
	// misc/bool |b1
	// misc/big_endian_f8 >f8
	// misc/fixed_strings |S8
	// misc/vlen_strings |O
	// misc/compound [["x","<i4"],["y","<f8"]]
}
