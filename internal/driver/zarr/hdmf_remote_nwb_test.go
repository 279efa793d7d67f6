package zarr_test

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/lindigo/lindi/nwb"
	"github.com/lindigo/lindi/store"
)

// TestHDMFZarrRemoteNWB: nwb reads the same series and table rows from an
// hdmf-zarr store over HTTP, with and without .zmetadata, as from the local
// directory, and with .zmetadata the same objects. (A store without it
// cannot be listed, and listing fails: objects are found by their paths.)
func TestHDMFZarrRemoteNWB(t *testing.T) {
	for _, name := range []string{"ecephys", "ophys_behavior"} {
		dir := fixture(name + ".nwb.zarr")
		want, paths := nwbSummary(t, dir, nil)
		for _, consolidated := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/consolidated=%v", name, consolidated), func(t *testing.T) {
				got, _ := nwbSummary(t, serveStore(t, dir, consolidated).URL+storePath, paths)
				if !consolidated {
					got["objects"] = want["objects"]
				}
				if !reflect.DeepEqual(got, want) {
					for k := range want {
						if !reflect.DeepEqual(got[k], want[k]) {
							t.Errorf("%s:\n got %v\nwant %v", k, got[k], want[k])
						}
					}
				}
			})
		}
	}
}

// nwbSummary reads, through nwb, the objects of a file, the data of every
// time series and the rows of every table (at paths, or the groups among
// the objects when nil), as text by object path.
func nwbSummary(t *testing.T, name string, paths []string) (map[string]string, []string) {
	t.Helper()
	f, err := nwb.Open(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	objs, err := f.Objects(ctx)
	switch {
	case errors.Is(err, store.ErrNotListable) && paths != nil:
		// A store without .zmetadata over plain HTTP cannot be listed (it
		// says so, rather than list a partial tree): its objects are found
		// by their paths.
	case err != nil:
		t.Fatal(err)
	}
	out := map[string]string{"objects": fmt.Sprint(objs)}
	if paths == nil {
		for _, o := range objs {
			if o.Group {
				paths = append(paths, o.Path)
			}
		}
	}
	for _, p := range paths {
		o := nwb.Object{Path: p}
		if ts, err := f.TimeSeries(ctx, o.Path); err == nil {
			p, err := ts.ReadPhysical(ctx, 0, ts.Len())
			if err != nil {
				t.Fatalf("%s: %v", o.Path, err)
			}
			out[o.Path] = fmt.Sprint(p.Data)
		}
		if tb, err := f.Table(ctx, o.Path); err == nil {
			rows, err := tb.Rows(ctx, 0, tb.Len())
			if err != nil {
				t.Fatalf("%s: %v", o.Path, err)
			}
			out[o.Path] = fmt.Sprint(tb.Columns(), rows)
		}
	}
	return out, paths
}
