package zarr3_test

import (
	"bytes"
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/internal/conformance"
	"github.com/lindigo/lindi/selection"
	"github.com/lindigo/lindi/zarrmeta"
)

const fixtures = "../../../testdata/zarr3"

var ctx = context.Background()

// files opens each store once per test.
type files struct {
	mu    sync.Mutex
	open  func(name string) (*h5.File, error)
	files map[string]*h5.File
}

func (o *files) get(t *testing.T, name string) *h5.File {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	if f, ok := o.files[name]; ok {
		return f
	}
	f, err := o.open(name)
	if err != nil {
		t.Fatalf("open %s: %v", name, err)
	}
	if o.files == nil {
		o.files = map[string]*h5.File{}
	}
	o.files[name] = f
	return f
}

// runCases reads every case of the fixtures' cases.json from every store it
// names, opened by open, and compares values bit for bit (floats included:
// the fixtures hold NaN payloads).
func runCases(t *testing.T, open func(name string) (*h5.File, error)) {
	cases, err := conformance.Load(fixtures)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < 200 {
		t.Fatalf("%d cases", len(cases))
	}
	fs := &files{open: open}
	for _, c := range cases {
		want, err := c.Expected(fixtures)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range c.Files {
			t.Run(name+"/"+c.ID, func(t *testing.T) {
				f := fs.get(t, name)
				if f.Format() != "Zarr v3" {
					t.Fatalf("format %q", f.Format())
				}
				d, err := f.Dataset(ctx, c.Dataset)
				if err != nil {
					t.Fatal(err)
				}
				sel, err := selection.Parse(c.Selection)
				if err != nil {
					t.Fatal(err)
				}
				got, err := d.Read(ctx, sel)
				if err != nil {
					t.Fatalf("%s[%s]: %v", c.Dataset, c.Selection, err)
				}
				if err := conformance.Compare(got, want); err != nil {
					t.Fatalf("%s[%s]: %v", c.Dataset, c.Selection, err)
				}
				if want.DType.Kind == zarrmeta.KindFloat && !bytes.Equal(got.Data, want.Data) {
					t.Fatalf("%s[%s]: float bits %x, want %x", c.Dataset, c.Selection, got.Data, want.Data)
				}
			})
		}
	}
}

// TestConformance reads every case from both local stores.
func TestConformance(t *testing.T) {
	runCases(t, func(name string) (*h5.File, error) {
		return h5.Open(ctx, filepath.Join(fixtures, name))
	})
}
