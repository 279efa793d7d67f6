package h5_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/lindigo/lindi/dandi"
	"github.com/lindigo/lindi/dandi/danditest"
	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/io/source"
)

const dandiInst = "dandi://" + danditest.Instance + "/"

// readSeries reads the fixture NWB file's ElectricalSeries data, which
// every form of the file must give alike.
// localSeries is readSeries of the bundled file the stand-in serves.
func localSeries(t *testing.T) []float64 {
	t.Helper()
	local, err := h5.Open(context.Background(), "../testdata/nwb/tables.nwb")
	if err != nil {
		t.Fatal(err)
	}
	defer local.Close()
	return readSeries(t, local)
}

func readSeries(t *testing.T, f *h5.File) []float64 {
	t.Helper()
	ctx := context.Background()
	ds, err := f.Dataset(ctx, "acquisition/ElectricalSeries/data")
	if err != nil {
		t.Fatal(err)
	}
	v, err := h5.Read[float64](ctx, ds, nil)
	if err != nil {
		t.Fatal(err)
	}
	return v.Data
}

func TestOpenDANDIAsset(t *testing.T) {
	s := danditest.Standard(t)
	s.Setenv(t, "")
	ctx := context.Background()
	want := localSeries(t)
	id := s.AssetID(danditest.Public, "draft", danditest.Ecephys)
	for _, name := range []string{
		dandiInst + danditest.Public + "/" + danditest.Ecephys,
		dandiInst + danditest.Public + "@" + danditest.Published + "/" + danditest.Ecephys,
		s.URL() + "/dandisets/" + danditest.Public + "/versions/draft/assets/?path=" + danditest.Ecephys,
		s.URL() + "/assets/" + id + "/",
		s.URL() + "/assets/" + id + "/download/",
	} {
		f, err := h5.Open(ctx, name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if f.Format() != "HDF5" || f.Name() != name {
			t.Errorf("%s: format %s, name %s", name, f.Format(), f.Name())
		}
		if got := readSeries(t, f); !slices.Equal(got, want) {
			t.Errorf("%s: data differs from the local file's", name)
		}
		f.Close()
	}
}

func TestOpenDANDIZarr(t *testing.T) {
	s := danditest.Standard(t)
	s.Setenv(t, "")
	ctx := context.Background()
	f, err := h5.Open(ctx, dandiInst+danditest.Public+"/"+danditest.ZarrPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ds, err := f.Dataset(ctx, "data")
	if err != nil {
		t.Fatal(err)
	}
	v, err := h5.Read[int64](ctx, ds, nil)
	if err != nil || !slices.Equal(v.Data, []int64{1, 2, 3, 4}) {
		t.Fatalf("Zarr asset data %v, %v", v, err)
	}
}

func TestOpenDANDIEmbargoed(t *testing.T) {
	s := danditest.Standard(t)
	s.Setenv(t, "")
	ctx := context.Background()
	name := dandiInst + danditest.Embargoed + "/" + danditest.Secret
	_, err := h5.Open(ctx, name)
	if !errors.Is(err, dandi.ErrUnauthorized) || !strings.Contains(err.Error(), dandi.KeyEnv(danditest.Instance)) {
		t.Fatalf("without the key: %v", err)
	}
	s.Setenv(t, danditest.Key)
	f, err := h5.Open(ctx, name)
	if err != nil {
		t.Fatalf("with the key: %v", err)
	}
	defer f.Close()
	readSeries(t, f)
	if l := s.Leaked(); len(l) != 0 {
		t.Errorf("the key reached S3: %q", l)
	}
}

func TestOpenDANDIErrors(t *testing.T) {
	s := danditest.Standard(t)
	s.Setenv(t, "")
	for _, tc := range []struct{ name, want string }{
		{dandiInst + danditest.Public, "folder"},
		{dandiInst + danditest.Public + "/sub-01/", "folder"},
		{dandiInst + danditest.Public + "/sub-01/missing.nwb", "has no asset sub-01/missing.nwb"},
		{dandiInst + "000999/x.nwb", "no dandiset 000999"},
		{dandiInst + danditest.Public + "@0.999999.9999/x.nwb", "no version 0.999999.9999"},
		{"dandi://nowhere/000409/x.nwb", `unknown instance "nowhere"`},
	} {
		_, err := h5.Open(context.Background(), tc.name)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "unsupported") {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
}

// TestOpenDANDIPrecomputed opens through the precomputed service only a
// file whose refs all name the asset's own blob, and otherwise the HDF5
// file, with one warning.
func TestOpenDANDIPrecomputed(t *testing.T) {
	s := danditest.Standard(t)
	s.Setenv(t, "")
	t.Setenv(dandi.PrecomputedEnv, s.PrecomputedURL())
	ctx := context.Background()
	want := localSeries(t)
	for _, tc := range []struct {
		path, format, warn string
		opts               []source.Option
	}{
		{danditest.Ecephys, "LINDI JSON", "", nil},
		{danditest.Behavior, "HDF5", "elsewhere.example.org", nil},
		{danditest.Sub02, "HDF5", "HTTP 404", nil},
		{danditest.Ecephys, "HDF5", "", []source.Option{source.WithOriginal()}},
	} {
		var mu sync.Mutex
		var warns []string
		opts := append(tc.opts, source.WithWarn(func(m string) { mu.Lock(); warns = append(warns, m); mu.Unlock() }))
		name := dandiInst + danditest.Public + "/" + tc.path
		f, err := h5.Open(ctx, name, h5.WithSourceOptions(opts...))
		if err != nil {
			t.Fatalf("%s: %v", tc.path, err)
		}
		if f.Format() != tc.format {
			t.Errorf("%s: opened as %s, want %s", tc.path, f.Format(), tc.format)
		}
		if got := readSeries(t, f); !slices.Equal(got, want) {
			t.Errorf("%s: data differs", tc.path)
		}
		f.Close()
		switch {
		case tc.warn == "" && len(warns) != 0:
			t.Errorf("%s: warned %q", tc.path, warns)
		case tc.warn != "" && (len(warns) != 1 || !strings.Contains(warns[0], tc.warn) || strings.Contains(warns[0], "\n")):
			t.Errorf("%s: warnings %q, want one line saying %q", tc.path, warns, tc.warn)
		}
	}
	if l := s.Leaked(); len(l) != 0 {
		t.Errorf("a key reached S3 or the precomputed service: %q", l)
	}
}
