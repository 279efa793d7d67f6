package lindi_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/internal/driver/lindi"
)

// readInts reads the int32 dataset name of the file at p with h5.
func readInts(t *testing.T, p, name string) []int32 {
	t.Helper()
	f, err := h5.Open(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := f.Dataset(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	a, err := h5.Read[int32](ctx, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	return a.Data
}

// amendY adds the dataset y (0…7 in two chunks: a blob and an inline one)
// to the document doc through s and commits it.
func amendY(t *testing.T, s driver.Sink, doc []byte) {
	t.Helper()
	var top map[string]json.RawMessage
	var refs map[string]json.RawMessage
	if err := json.Unmarshal(doc, &top); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(top["refs"], &refs); err != nil {
		t.Fatal(err)
	}
	refs["y/.zarray"] = json.RawMessage(`{"chunks": [300], "compressor": null, "dtype": "<i4", "fill_value": 0, "filters": null, "order": "C", "shape": [600], "zarr_format": 2}`)
	ref, err := s.Blob(ctx, "y/0", ints(seq(0, 300)...))
	if err != nil {
		t.Fatal(err)
	}
	refs["y/0"] = ref
	refs["y/1"] = driver.InlineRef(ints(seq(300, 600)...))
	b, _ := json.Marshal(refs)
	top["refs"] = b
	doc, _ = json.MarshalIndent(top, "", "  ")
	if err := s.Commit(ctx, doc); err != nil {
		t.Fatal(err)
	}
}

func seq(from, to int32) []int32 {
	var v []int32
	for i := from; i < to; i++ {
		v = append(v, i)
	}
	return v
}

// TestAmendPythonTrashed amends a tar in which Python lindi trashed
// lindi.json twice (.trash/ members, dashed), then reads it with h5.
func TestAmendPythonTrashed(t *testing.T) {
	data, err := os.ReadFile("testdata/interop/python-trashed.lindi.tar")
	if err != nil {
		t.Fatal(err)
	}
	p := writeTemp(t, "t.lindi.tar", data)
	if got := readInts(t, p, "x"); !slices.Equal(got, seq(0, 1000)) {
		t.Fatalf("x before: %v", got[:5])
	}
	c := driver.ContainerFor(lindi.Containers(), p)
	s, doc, err := c.OpenSink(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "grow1") {
		t.Fatalf("the document is not Python's last: %.200s", doc)
	}
	amendY(t, s, doc)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if got := readInts(t, p, "x"); !slices.Equal(got, seq(0, 1000)) {
		t.Errorf("x after: %v", got[:5])
	}
	if got := readInts(t, p, "y"); !slices.Equal(got, seq(0, 600)) {
		t.Errorf("y: %v", got[:5])
	}
}

// TestWriteRead writes a dataset into each container and reads it with h5.
func TestWriteRead(t *testing.T) {
	for _, name := range []string{"w.lindi.tar", "w.lindi.d", "w.lindi.json"} {
		t.Run(name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), name)
			c := driver.ContainerFor(lindi.Containers(), p)
			s, err := c.Create(ctx, p, false)
			if err != nil {
				t.Fatal(err)
			}
			amendY(t, s, []byte(driver.EmptyDocument))
			s.Close()
			if got := readInts(t, p, "y"); !slices.Equal(got, seq(0, 600)) {
				t.Errorf("y: %v", got[:5])
			}
		})
	}
}

// TestAmendConformanceTar amends the conformance tar, which Python lindi
// wrote from an NWB file: what it held reads the same afterwards, beside
// the new dataset, and so it does once compacted.
func TestAmendConformanceTar(t *testing.T) {
	data, err := os.ReadFile("../../../testdata/conformance/fixture.lindi.tar")
	if err != nil {
		t.Fatal(err)
	}
	p := writeTemp(t, "c.nwb.lindi.tar", data)
	const es = "acquisition/ElectricalSeries/data"
	before := readFloats(t, p, es)
	s, doc, err := driver.ContainerFor(lindi.Containers(), p).OpenSink(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	amendY(t, s, doc)
	s.Close()
	for _, q := range []string{p, p + ".compacted.lindi.tar"} {
		if q != p {
			if err := lindi.Compact(ctx, p, q); err != nil {
				t.Fatal(err)
			}
		}
		if got := readFloats(t, q, es); !slices.Equal(got, before) {
			t.Errorf("%s: %s reads differently after the amendment", q, es)
		}
		if got := readInts(t, q, "y"); !slices.Equal(got, seq(0, 600)) {
			t.Errorf("%s: y: %v", q, got[:5])
		}
	}
}

func readFloats(t *testing.T, p, name string) []float64 {
	t.Helper()
	f, err := h5.Open(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := f.Dataset(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	a, err := h5.Read[float64](ctx, d, nil)
	if err != nil {
		t.Fatal(err)
	}
	return a.Data
}
