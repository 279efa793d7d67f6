package nwb_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/lindigo/lindi/dandi"
	"github.com/lindigo/lindi/dandi/danditest"
	"github.com/lindigo/lindi/nwb"
)

// TestDandiAssets opens every NWB asset of a dandiset by ranging over its
// listing, and amends one of them by its address.
func TestDandiAssets(t *testing.T) {
	s := danditest.Standard(t)
	s.Setenv(t, "")
	ctx := context.Background()
	n := 0
	for a, err := range dandi.Assets(ctx, "dandi://"+danditest.Instance+"/"+danditest.Public, dandi.WithGlob("*.nwb")) {
		if err != nil {
			t.Fatal(err)
		}
		f, err := nwb.Open(ctx, a.Address())
		if err != nil {
			t.Fatalf("%s: %v", a.Address(), err)
		}
		if _, err := f.TimeSeries(ctx, "acquisition/ElectricalSeries"); err != nil {
			t.Errorf("%s: %v", a.Address(), err)
		}
		f.Close()
		n++
	}
	if n != 3 {
		t.Errorf("opened %d NWB assets, want 3", n)
	}
	if hits := s.Hits("/dandisets/" + danditest.Public + "/versions/draft/assets/?"); len(hits) != 1 {
		t.Errorf("the listing and the opens asked the API for assets %d times (%q), want 1", len(hits), hits)
	}

	src := "dandi://" + danditest.Instance + "/" + danditest.Public + "/" + danditest.Sub02
	out := filepath.Join(t.TempDir(), "x.lindi.json")
	am, err := nwb.Amend(ctx, src, out)
	if err != nil {
		t.Fatal(err)
	}
	if err := am.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := nwb.Open(ctx, out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, err := f.H5().Root().Attrs().String(nwb.SourceAttr)
	if err != nil || got != src {
		t.Errorf("%s = %q, %v; want %q", nwb.SourceAttr, got, err, src)
	}
	if _, err := f.TimeSeries(ctx, "acquisition/ElectricalSeries"); err != nil {
		t.Error(err)
	}
}
