package hdf5_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/lindigo/lindi/hdf5"
)

// open opens a local HDF5 file with NewReader, as archive/zip opens a zip.
func open(name string) (*hdf5.File, *os.File) {
	osf, err := os.Open(name)
	if err != nil {
		log.Fatal(err)
	}
	st, err := osf.Stat()
	if err != nil {
		log.Fatal(err)
	}
	f, err := hdf5.NewReader(osf, st.Size())
	if err != nil {
		log.Fatal(err)
	}
	return f, osf
}

func Example() {
	ctx := context.Background()
	f, osf := open("../testdata/conformance/fixture.h5")
	defer osf.Close()
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
	f, osf := open("../testdata/conformance/fixture.h5")
	defer osf.Close()
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
	f, osf := open("../testdata/conformance/fixture-latest.h5")
	defer osf.Close()
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

func ExampleLocator() {
	ctx := context.Background()
	f, osf := open("../testdata/conformance/fixture.h5")
	defer osf.Close()
	ds, err := f.Dataset(ctx, "acquisition/ElectricalSeries/data")
	if err != nil {
		log.Fatal(err)
	}
	loc, err := ds.Locator(ctx)
	if err != nil {
		log.Fatal(err)
	}
	ch, err := loc.Locate(ctx, []int{8, 0}) // the last, partial chunk
	if err != nil {
		log.Fatal(err)
	}
	stored := make([]byte, ch.Len)
	if _, err := osf.ReadAt(stored, ch.Off); err != nil {
		log.Fatal(err)
	}
	fmt.Println(ds.Layout(), loc.Grid(), ch.Pipeline.IDs(), len(stored) > 0)
	// Output:
	// chunked [689 24] [shuffle zlib] true
}
