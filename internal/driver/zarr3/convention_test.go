package zarr3_test

import (
	"encoding/binary"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/selection"
)

// vlenUTF8 encodes strings as the vlen-utf8 codec does.
func vlenUTF8(items ...string) string {
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(items)))
	for _, s := range items {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
		b = append(b, s...)
	}
	return string(b)
}

// conventionStore is a small store in the unified Zarr v3 convention: a
// link, a reference attribute and a reference dataset.
func conventionStore(t *testing.T) string {
	return writeStore(t, map[string]string{
		"zarr.json": `{"zarr_format": 3, "node_type": "group", "attributes": {
			"_LINKS": [{"name": "lnk", "source": ".", "path": "/data/values"},
			           {"name": "ext", "source": "../other.zarr", "path": "/x"}],
			".specloc": "specifications",
			"table": {"_REFERENCE": {"source": ".", "path": "/data/values"}},
			"tables": [{"_REFERENCE": {"source": ".", "path": "/data"}}]}}`,
		"data/zarr.json": rootGroup,
		"data/values/zarr.json": `{"zarr_format": 3, "node_type": "array", "shape": [3], "data_type": "int32",
			"chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [3]}},
			"chunk_key_encoding": {"name": "default"}, "fill_value": 5, "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
			"attributes": {"_DTYPE": "int32"}}`,
		"data/refs/zarr.json": `{"zarr_format": 3, "node_type": "array", "shape": [3], "data_type": "string",
			"chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [3]}},
			"chunk_key_encoding": {"name": "default"}, "fill_value": "", "codecs": [{"name": "vlen-utf8"}],
			"attributes": {"_DTYPE": "object_reference"}}`,
		"data/refs/c/0": vlenUTF8("/data/values", "/data", "/lnk"),
	})
}

// TestConvention reads the convention's links and references, from a
// directory and over HTTP (where groups are not listed).
func TestConvention(t *testing.T) {
	dir := conventionStore(t)
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	for _, name := range []string{dir, srv.URL} {
		t.Run(name, func(t *testing.T) {
			f, err := h5.Open(ctx, name)
			if err != nil {
				t.Fatal(err)
			}
			testConvention(t, f)
		})
	}
}

func testConvention(t *testing.T, f *h5.File) {
	// The link reads as its target.
	d, err := f.Dataset(ctx, "lnk")
	if err != nil {
		t.Fatal(err)
	}
	got, err := h5.Read[int32](ctx, d, selection.Selection{selection.All()})
	if err != nil || !reflect.DeepEqual(got.Data, []int32{5, 5, 5}) {
		t.Fatalf("lnk: %v, %v", got, err)
	}
	if _, err := f.Dataset(ctx, "ext"); err == nil || !strings.Contains(err.Error(), "other.zarr") {
		t.Errorf("ext: err %v, want one naming the other store", err)
	}
	attrs := f.Root().Attrs()
	if attrs.Has("_LINKS") {
		t.Error("_LINKS is listed as an attribute")
	}
	if v, err := attrs.Get("table"); err != nil || v != (h5.Reference{Path: "/data/values"}) {
		t.Errorf("table: %#v, %v", v, err)
	}
	if v, err := attrs.Get("tables"); err != nil || !reflect.DeepEqual(v, []h5.Reference{{Path: "/data"}}) {
		t.Errorf("tables: %#v, %v", v, err)
	}
	// The unified convention's plain path reads as the reference it is in HDF5.
	if v, err := attrs.Get(".specloc"); err != nil || v != (h5.Reference{Path: "/specifications"}) {
		t.Errorf(".specloc: %#v, %v", v, err)
	}
	refs, err := f.Dataset(ctx, "data/refs")
	if err != nil {
		t.Fatal(err)
	}
	if refs.Attrs().Has("_DTYPE") || d.Attrs().Has("_DTYPE") {
		t.Error("_DTYPE is listed as an attribute")
	}
	a, err := refs.Read(ctx, selection.Selection{selection.All()})
	if err != nil {
		t.Fatal(err)
	}
	want := []any{h5.Reference{Path: "/data/values"}, h5.Reference{Path: "/data"}, h5.Reference{Path: "/lnk"}}
	if !reflect.DeepEqual(a.Objects, want) {
		t.Errorf("refs: %#v", a.Objects)
	}
	o, err := f.Deref(ctx, h5.Reference{Path: "/lnk"})
	if err != nil {
		t.Fatal(err)
	}
	if ds, ok := o.(*h5.Dataset); !ok || ds.Shape()[0] != 3 {
		t.Errorf("deref /lnk: %#v", o)
	}
}

// TestExternalArrayLink reads an array whose data is a dataset of an HDF5
// file (LINDI's _EXTERNAL_ARRAY_LINK), named by an absolute and by a
// relative path.
func TestExternalArrayLink(t *testing.T) {
	h5file, err := filepath.Abs("../../../testdata/conformance/fixture.h5")
	if err != nil {
		t.Fatal(err)
	}
	hf, err := h5.Open(ctx, h5file)
	if err != nil {
		t.Fatal(err)
	}
	defer hf.Close()
	hd, err := hf.Dataset(ctx, "acquisition/ElectricalSeries/data")
	if err != nil {
		t.Fatal(err)
	}
	all := selection.Selection{selection.All()}
	want, err := h5.Read[int16](ctx, hd, all)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	rel, err := filepath.Rel(dir, h5file)
	if err != nil {
		t.Fatal(err)
	}
	doc := func(url string) string {
		return `{"zarr_format": 3, "node_type": "array", "shape": [5946, 24], "data_type": "int16",
		"chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [689, 24]}},
		"chunk_key_encoding": {"name": "default"}, "fill_value": 0, "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
		"attributes": {"_EXTERNAL_ARRAY_LINK": {"link_type": "hdf5_dataset", "url": "` + url + `", "name": "acquisition/ElectricalSeries/data"}}}`
	}
	for name, content := range map[string]string{"zarr.json": rootGroup, "abs/zarr.json": doc(h5file), "rel/zarr.json": doc(filepath.ToSlash(rel)),
		"bad/zarr.json": strings.Replace(doc(h5file), "hdf5_dataset", "tiff", 1)} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := h5.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"abs", "rel"} {
		d, err := f.Dataset(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if d.Attrs().Has("_EXTERNAL_ARRAY_LINK") {
			t.Errorf("%s: _EXTERNAL_ARRAY_LINK is listed as an attribute", p)
		}
		got, err := h5.Read[int16](ctx, d, all)
		if err != nil || !reflect.DeepEqual(got.Data, want.Data) {
			t.Errorf("%s: %v", p, err)
		}
	}
	d, err := f.Dataset(ctx, "bad")
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Err(); err == nil || !strings.Contains(err.Error(), `"tiff"`) {
		t.Errorf("bad link type: %v", err)
	}
}

// TestRemoteNamesNoLocalFile checks that a remote store's external links
// and array links cannot name local files.
func TestRemoteNamesNoLocalFile(t *testing.T) {
	h5file, err := filepath.Abs("../../../testdata/conformance/fixture.h5")
	if err != nil {
		t.Fatal(err)
	}
	dir := writeStore(t, map[string]string{
		"zarr.json": `{"zarr_format": 3, "node_type": "group", "attributes": {
			"_LINKS": [{"name": "ext", "source": "file://` + h5file + `", "path": "/x"}]}}`,
		"a/zarr.json": `{"zarr_format": 3, "node_type": "array", "shape": [5946, 24], "data_type": "int16",
			"chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [689, 24]}},
			"chunk_key_encoding": {"name": "default"}, "fill_value": 0, "codecs": ["bytes"],
			"attributes": {"_EXTERNAL_ARRAY_LINK": {"link_type": "hdf5_dataset", "url": "file://` + h5file + `", "name": "acquisition/ElectricalSeries/data"}}}`,
	})
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	if _, err := h5.Open(ctx, srv.URL); err == nil || !strings.Contains(err.Error(), "not an http(s) or s3 URL") {
		t.Fatalf("open: %v", err)
	}
	// Without the link, the array alone.
	if err := os.WriteFile(filepath.Join(dir, "zarr.json"), []byte(rootGroup), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := h5.Open(ctx, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	d, err := f.Dataset(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Read(ctx, nil); err == nil || !strings.Contains(err.Error(), "not an http(s) or s3 URL") {
		t.Errorf("read: %v", err)
	}
}
