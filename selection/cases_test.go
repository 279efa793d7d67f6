package selection

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const conformance = "../testdata/conformance"

type conformanceCase struct {
	ID        string   `json:"id"`
	Files     []string `json:"files"`
	Dataset   string   `json:"dataset"`
	Selection string   `json:"selection"`
	Shape     []int    `json:"shape"`
}

type arrayMeta struct {
	Shape  []int `json:"shape"`
	Chunks []int `json:"chunks"`
	Scalar bool  // LINDI's _SCALAR: stored as shape [1], read as shape ()
}

func loadCases(t testing.TB) []conformanceCase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(conformance, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cases []conformanceCase `json:"cases"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Cases
}

// arrayMetas reads the shape and chunks of every array in the LINDI JSON
// fixture and the Zarr store, keyed by file and dataset path.
func arrayMetas(t testing.TB) map[string]arrayMeta {
	t.Helper()
	metas := map[string]arrayMeta{}
	data, err := os.ReadFile(filepath.Join(conformance, "fixture.lindi.json"))
	if err != nil {
		t.Fatal(err)
	}
	var lindi struct {
		Refs map[string]json.RawMessage `json:"refs"`
	}
	if err := json.Unmarshal(data, &lindi); err != nil {
		t.Fatal(err)
	}
	for key, raw := range lindi.Refs {
		ds, ok := strings.CutSuffix(key, "/.zarray")
		if !ok {
			continue
		}
		var m arrayMeta
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		var attrs struct {
			Scalar bool `json:"_SCALAR"`
		}
		if raw, ok := lindi.Refs[ds+"/.zattrs"]; ok {
			_ = json.Unmarshal(raw, &attrs) // attributes that are not an object carry no _SCALAR
		}
		m.Scalar = attrs.Scalar
		metas["fixture.lindi.json:"+ds] = m
	}
	root := filepath.Join(conformance, "fixture.zarr")
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.Name() != ".zarray" {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var m arrayMeta
		if err := json.Unmarshal(data, &m); err != nil {
			return err
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		metas["fixture.zarr:"+filepath.ToSlash(rel)] = m
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return metas
}

// TestConformanceSelections parses every selection of cases.json, resolves
// it against its dataset's shape, compares the output shape with the case's
// and checks the plan over the dataset's own chunk grid element by element.
func TestConformanceSelections(t *testing.T) {
	cases := loadCases(t)
	metas := arrayMetas(t)
	checked := 0
	for _, c := range cases {
		file := "fixture.zarr"
		if slices.Contains(c.Files, "fixture.lindi.json") {
			file = "fixture.lindi.json"
		}
		m, ok := metas[file+":"+c.Dataset]
		if !ok {
			t.Errorf("%s: no metadata for %s in %s", c.ID, c.Dataset, file)
			continue
		}
		t.Run(c.ID, func(t *testing.T) {
			sel, err := Parse(c.Selection)
			if err != nil {
				t.Fatal(err)
			}
			shape, chunks := m.Shape, m.Chunks
			if m.Scalar {
				shape, chunks = []int{}, []int{}
			}
			r, err := sel.Resolve(shape)
			if err != nil {
				t.Fatal(err)
			}
			if !equalInts(r.Shape(), c.Shape) {
				t.Fatalf("%q on %v: shape %v, want %v", c.Selection, shape, r.Shape(), c.Shape)
			}
			axes, keep, err := refAxes(sel, shape)
			if err != nil {
				t.Fatal(err)
			}
			_, want := refSelect(axes, keep, shape)
			checkPlan(t, r, want, shape, chunks)
		})
		checked++
	}
	if checked < 300 {
		t.Fatalf("only %d cases checked", checked)
	}
}
