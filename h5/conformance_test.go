package h5

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/lindigo/lindi/internal/engine"
	"github.com/lindigo/lindi/internal/npy"
	"github.com/lindigo/lindi/selection"
	"github.com/lindigo/lindi/zarrmeta"
)

const conformanceDir = "../testdata/conformance"

// conformanceCase is one entry of testdata/conformance/cases.json.
type conformanceCase struct {
	ID        string   `json:"id"`
	Files     []string `json:"files"`
	Dataset   string   `json:"dataset"`
	Selection string   `json:"selection"`
	Kind      string   `json:"kind"`
	DType     string   `json:"dtype"`
	Shape     []int    `json:"shape"`
	Expected  string   `json:"expected"`
}

func loadCases(t testing.TB) []conformanceCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(conformanceDir, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Cases []conformanceCase `json:"cases"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc.Cases
}

// openFiles opens each fixture file once for the whole test.
type openFiles struct {
	mu    sync.Mutex
	files map[string]*File
}

func (o *openFiles) get(t *testing.T, name string) *File {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	if f, ok := o.files[name]; ok {
		return f
	}
	f, err := Open(context.Background(), filepath.Join(conformanceDir, name))
	if err != nil {
		t.Fatalf("open %s: %v", name, err)
	}
	if o.files == nil {
		o.files = map[string]*File{}
	}
	o.files[name] = f
	return f
}

func TestConformance(t *testing.T) {
	var files openFiles
	for _, c := range loadCases(t) {
		want := readExpected(t, c)
		for _, name := range c.Files {
			t.Run(name+"/"+c.ID, func(t *testing.T) {
				f := files.get(t, name)
				d, err := f.Dataset(c.Dataset)
				if err != nil {
					t.Fatal(err)
				}
				sel, err := selection.Parse(c.Selection)
				if err != nil {
					t.Fatal(err)
				}
				got, err := d.Read(context.Background(), sel)
				if err != nil {
					t.Fatalf("%s[%s]: %v", c.Dataset, c.Selection, err)
				}
				if err := compareArray(got, want); err != nil {
					t.Fatalf("%s[%s]: %v", c.Dataset, c.Selection, err)
				}
			})
		}
	}
}

// readExpected reads a case's expected .npy, in native byte order.
func readExpected(t *testing.T, c conformanceCase) *npy.Array {
	t.Helper()
	fh, err := os.Open(filepath.Join(conformanceDir, c.Expected))
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	a, err := npy.Read(fh)
	if err != nil {
		t.Fatalf("%s: %v", c.Expected, err)
	}
	if !slices.Equal(a.Shape, c.Shape) {
		t.Fatalf("%s: shape %v, case says %v", c.Expected, a.Shape, c.Shape)
	}
	return a
}

// compareArray compares a read with the expected values: by value, so byte
// order and string widths need not match.
func compareArray(got *Array, want *npy.Array) error {
	if !slices.Equal(got.Shape, want.Shape) {
		return errorf("shape %v, want %v", got.Shape, want.Shape)
	}
	wdt, err := zarrmeta.ParseDType(json.RawMessage(`"` + want.Descr + `"`))
	if err != nil {
		return err
	}
	data := slices.Clone(want.Data)
	if want.Fortran {
		engine.FortranToC(data, want.Data, want.Shape, wdt.Size)
	}
	if err := wdt.SwapToNative(data); err != nil {
		return err
	}
	wantArr := &Array{DType: wdt.Native(), Shape: want.Shape, Data: data}
	if wdt.Kind == zarrmeta.KindUnicode || wdt.Kind == zarrmeta.KindBytes {
		gs, err := got.Strings()
		if err != nil {
			return err
		}
		ws, err := wantArr.Strings()
		if err != nil {
			return err
		}
		if !slices.Equal(gs.Data, ws.Data) {
			return errorf("strings %q, want %q", gs.Data, ws.Data)
		}
		return nil
	}
	if got.DType.Kind != wdt.Kind || got.DType.Size != wdt.Size {
		return errorf("dtype %s, want %s", got.DType, wdt)
	}
	if slices.Equal(got.Data, data) {
		return nil
	}
	if wdt.Kind == zarrmeta.KindFloat {
		g, _ := AsFloat64(got)
		w, _ := AsFloat64(wantArr)
		for i := range g.Data {
			if g.Data[i] != w.Data[i] && !(math.IsNaN(g.Data[i]) && math.IsNaN(w.Data[i])) {
				return errorf("element %d is %v, want %v", i, g.Data[i], w.Data[i])
			}
		}
		return nil
	}
	for i := 0; i < len(data); i += wdt.Size {
		if !slices.Equal(got.Data[i:i+wdt.Size], data[i:i+wdt.Size]) {
			return errorf("element %d is %x, want %x", i/wdt.Size, got.Data[i:i+wdt.Size], data[i:i+wdt.Size])
		}
	}
	return nil
}

func errorf(format string, args ...any) error {
	return fmt.Errorf(format, args...)
}
