package h5_test

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/internal/conformance"
	"github.com/lindigo/lindi/selection"
)

const conformanceDir = "../testdata/conformance"

// openFiles opens each fixture file once for the whole test.
type openFiles struct {
	mu    sync.Mutex
	files map[string]*h5.File
}

func (o *openFiles) get(t *testing.T, name string) *h5.File {
	t.Helper()
	o.mu.Lock()
	defer o.mu.Unlock()
	if f, ok := o.files[name]; ok {
		return f
	}
	f, err := h5.Open(context.Background(), filepath.Join(conformanceDir, name))
	if err != nil {
		t.Fatalf("open %s: %v", name, err)
	}
	if o.files == nil {
		o.files = map[string]*h5.File{}
	}
	o.files[name] = f
	return f
}

// TestConformance reads every case of cases.json from every file it names.
func TestConformance(t *testing.T) {
	cases, err := conformance.Load(conformanceDir)
	if err != nil {
		t.Fatal(err)
	}
	var files openFiles
	for _, c := range cases {
		want, err := c.Expected(conformanceDir)
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range c.Files {
			t.Run(name+"/"+c.ID, func(t *testing.T) {
				d, err := files.get(t, name).Dataset(ctx, c.Dataset)
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
				if err := conformance.Compare(got, want); err != nil {
					t.Fatalf("%s[%s]: %v", c.Dataset, c.Selection, err)
				}
			})
		}
	}
}
