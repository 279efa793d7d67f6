// Package conformance loads the conformance cases of testdata/conformance
// (cases.json and the expected .npy files written by h5py and zarr-python) and
// compares reads with them. It serves the tests of h5 and cmd/lindi.
package conformance

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/internal/engine"
	"github.com/lindigo/lindi/internal/npy"
	"github.com/lindigo/lindi/zarrmeta"
)

// Case is one entry of cases.json: a selection of a dataset that must read as
// the .npy file NPY (relative to the cases' directory) on every file in Files.
type Case struct {
	ID        string   `json:"id"`
	Files     []string `json:"files"`
	Dataset   string   `json:"dataset"`
	Selection string   `json:"selection"`
	Kind      string   `json:"kind"`
	DType     string   `json:"dtype"`
	Shape     []int    `json:"shape"`
	NPY       string   `json:"expected"`
}

// Load reads dir/cases.json.
func Load(dir string) ([]Case, error) {
	b, err := os.ReadFile(filepath.Join(dir, "cases.json"))
	if err != nil {
		return nil, err
	}
	var doc struct {
		Cases []Case `json:"cases"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("cases.json: %w", err)
	}
	return doc.Cases, nil
}

// ReadNPY reads a .npy file as an h5.Array in native byte order and C order.
func ReadNPY(path string) (*h5.Array, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	a, err := npy.Read(fh)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	dt, err := zarrmeta.ParseDType(json.RawMessage(`"` + a.Descr + `"`))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	data := slices.Clone(a.Data)
	if a.Fortran {
		engine.FortranToC(data, a.Data, a.Shape, dt.Size)
	}
	if err := dt.SwapToNative(data); err != nil {
		return nil, err
	}
	return &h5.Array{DType: dt.Native(), Shape: a.Shape, Data: data}, nil
}

// Expected reads a case's expected values.
func (c Case) Expected(dir string) (*h5.Array, error) {
	a, err := ReadNPY(filepath.Join(dir, c.NPY))
	if err != nil {
		return nil, err
	}
	if !slices.Equal(a.Shape, c.Shape) {
		return nil, fmt.Errorf("%s: shape %v, the case says %v", c.NPY, a.Shape, c.Shape)
	}
	return a, nil
}

// Compare compares a read with the expected values, by value: byte order and
// string widths need not match, and NaN equals NaN.
func Compare(got, want *h5.Array) error {
	if !slices.Equal(got.Shape, want.Shape) {
		return fmt.Errorf("shape %v, want %v", got.Shape, want.Shape)
	}
	wdt := want.DType
	if wdt.Kind == zarrmeta.KindUnicode || wdt.Kind == zarrmeta.KindBytes {
		gs, err := h5.As[string](got)
		if err != nil {
			return err
		}
		ws, err := h5.As[string](want)
		if err != nil {
			return err
		}
		if !slices.Equal(gs.Data, ws.Data) {
			return fmt.Errorf("strings %q, want %q", gs.Data, ws.Data)
		}
		return nil
	}
	if got.DType.Kind != wdt.Kind || got.DType.Size != wdt.Size {
		return fmt.Errorf("dtype %s, want %s", got.DType, wdt)
	}
	if slices.Equal(got.Data, want.Data) {
		return nil
	}
	if wdt.Kind == zarrmeta.KindFloat {
		g, err := h5.As[float64](got)
		if err != nil {
			return err
		}
		w, err := h5.As[float64](want)
		if err != nil {
			return err
		}
		for i := range g.Data {
			if g.Data[i] != w.Data[i] && !(math.IsNaN(g.Data[i]) && math.IsNaN(w.Data[i])) {
				return fmt.Errorf("element %d is %v, want %v", i, g.Data[i], w.Data[i])
			}
		}
		return nil
	}
	for i := 0; i < len(want.Data); i += wdt.Size {
		if !slices.Equal(got.Data[i:i+wdt.Size], want.Data[i:i+wdt.Size]) {
			return fmt.Errorf("element %d is %x, want %x", i/wdt.Size, got.Data[i:i+wdt.Size], want.Data[i:i+wdt.Size])
		}
	}
	return nil
}
