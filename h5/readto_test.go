package h5_test

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/selection"
)

// TestReadTo checks that ReadTo writes exactly what Read returns, for every
// numeric dataset of the conformance fixtures and selections in either
// order, and that a write error stops the read.
func TestReadTo(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"fixture.h5", "fixture.lindi.json"} {
		f, err := h5.Open(ctx, filepath.Join(conformanceDir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		n := 0
		err = f.Root().Walk(ctx, func(path string, _ h5.Link, obj h5.Object, err error) error {
			d, ok := obj.(*h5.Dataset)
			if !ok || d.Err() != nil {
				return nil
			}
			for _, s := range []string{"...", "::-1", "1:"} {
				if s != "..." && (d.NDim() == 0 || d.Size() == 0) {
					continue
				}
				sel, _ := selection.Parse(s)
				a, rerr := d.Read(ctx, sel)
				var buf bytes.Buffer
				shape, err := d.ReadTo(ctx, sel, &buf)
				if rerr != nil || a.Data == nil {
					if err == nil && rerr != nil {
						t.Errorf("%s[%s]: Read fails (%v), ReadTo does not", path, s, rerr)
					}
					continue
				}
				if err != nil {
					t.Errorf("%s[%s]: %v", path, s, err)
					continue
				}
				if !bytes.Equal(buf.Bytes(), a.Data) || len(shape) != len(a.Shape) {
					t.Errorf("%s[%s]: ReadTo wrote %d bytes (shape %v), Read gave %d (shape %v)", path, s, buf.Len(), shape, len(a.Data), a.Shape)
				}
				n++
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if n < 10 {
			t.Fatalf("%s: only %d reads compared", name, n)
		}
	}
}

type failWriter struct{ n int }

var errFull = errors.New("disk full")

func (w *failWriter) Write(p []byte) (int, error) {
	w.n++
	return 0, errFull
}

func TestReadToWriteError(t *testing.T) {
	ctx := context.Background()
	f, err := h5.Open(ctx, filepath.Join(conformanceDir, "fixture.h5"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var found *h5.Dataset
	f.Root().Walk(ctx, func(path string, _ h5.Link, obj h5.Object, err error) error {
		if d, ok := obj.(*h5.Dataset); ok && found == nil && d.Err() == nil && len(d.Chunks()) > 0 && d.DType().Size > 0 {
			if _, err := d.ReadTo(ctx, selection.Selection{}, new(bytes.Buffer)); err == nil {
				found = d
			}
		}
		return nil
	})
	if found == nil {
		t.Fatal("no chunked numeric dataset")
	}
	w := new(failWriter)
	if _, err := found.ReadTo(ctx, selection.Selection{}, w); !errors.Is(err, errFull) || w.n != 1 {
		t.Fatalf("err %v after %d writes, want the write error after one", err, w.n)
	}
}
