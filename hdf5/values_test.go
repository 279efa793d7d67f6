package hdf5

import (
	"context"
	"encoding/json"
	"math"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/lindigo/lindi/hdf5/internal/layout"
)

// conformanceCase is one entry of cases.json.
type conformanceCase struct {
	ID        string   `json:"id"`
	Files     []string `json:"files"`
	Dataset   string   `json:"dataset"`
	Selection string   `json:"selection"`
	Expected  string   `json:"expected"`
}

// wholeCases returns the cases that read a whole dataset of file.
func wholeCases(t *testing.T, file string) []conformanceCase {
	t.Helper()
	var doc struct {
		Cases []conformanceCase `json:"cases"`
	}
	if err := json.Unmarshal(readFixture(t, "cases.json"), &doc); err != nil {
		t.Fatal(err)
	}
	var out []conformanceCase
	for _, c := range doc.Cases {
		if (c.Selection == "..." || c.Selection == "()") && contains(c.Files, file) {
			out = append(out, c)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestCompactContiguousValues reads the whole of every compact and
// contiguous dataset a case covers and compares with the expected .npy.
func TestCompactContiguousValues(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"fixture.h5", "fixture-latest.h5"} {
		f := openBytes(t, name, readFixture(t, name))
		checked := 0
		for _, c := range wholeCases(t, name) {
			ds, err := f.Dataset(ctx, c.Dataset)
			if err != nil {
				t.Fatal(err)
			}
			if ds.layout.Class == layout.Chunked {
				continue
			}
			checked++
			t.Run(name+"/"+c.ID+"/"+c.Dataset, func(t *testing.T) {
				raw, err := ds.ReadRaw(ctx)
				if err != nil {
					t.Fatal(err)
				}
				got, err := f.decodeElements(ctx, ds.Datatype(), raw, int(ds.Space().NumElements()))
				if err != nil {
					t.Fatal(err)
				}
				want := readNPY(t, filepath.Join(conformance, c.Expected)).values(t)
				if !sameElements(got, want) {
					t.Errorf("got %v\nwant %v", got, want)
				}
			})
		}
		if checked < 10 {
			t.Errorf("%s: only %d compact/contiguous datasets checked", name, checked)
		}
	}
}

// sameElements compares decoded values, treating NaN as equal to NaN.
func sameElements(got, want any) bool {
	g, w := reflect.ValueOf(got), reflect.ValueOf(want)
	if g.Kind() != reflect.Slice || g.Len() != w.Len() {
		return false
	}
	for i := range g.Len() {
		a, b := g.Index(i).Interface(), w.Index(i).Interface()
		if fa, ok := a.(float64); ok {
			fb, ok := b.(float64)
			if !ok || (fa != fb && !(math.IsNaN(fa) && math.IsNaN(fb))) {
				return false
			}
			continue
		}
		if a != b {
			return false
		}
	}
	return true
}

// TestReferenceDataset decodes a dataset of object references to paths.
func TestReferenceDataset(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"fixture.h5", "fixture-latest.h5"} {
		t.Run(name, func(t *testing.T) {
			f := openBytes(t, name, readFixture(t, name))
			ds, err := f.Dataset(ctx, "general/extracellular_ephys/electrodes/group")
			if err != nil {
				t.Fatal(err)
			}
			raw, err := ds.ReadRaw(ctx)
			if err != nil {
				t.Fatal(err)
			}
			v, err := f.Decode(ctx, ds.Datatype(), raw, 24)
			if err != nil {
				t.Fatal(err)
			}
			refs, ok := v.([]ObjectRef)
			if !ok || len(refs) != 24 {
				t.Fatalf("decoded %T", v)
			}
			shank, err := f.Group(ctx, "/general/extracellular_ephys/shank0")
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range refs {
				if r.Path != "/general/extracellular_ephys/shank0" || r.Addr != shank.Addr() {
					t.Errorf("reference %d = %+v", i, r)
				}
			}
		})
	}
}
