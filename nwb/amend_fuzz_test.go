package nwb

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// FuzzRaggedColumn adds a table with a ragged column whose index comes
// from the input: a valid index (ascending, ending at the data's length)
// must read back as the rows it describes, any other must be refused with
// ErrSpec, leaving no table behind.
func FuzzRaggedColumn(f *testing.F) {
	f.Add(uint8(5), []byte{2, 2, 5})
	f.Add(uint8(3), []byte{2, 1, 3})
	f.Add(uint8(0), []byte{0, 0})
	f.Add(uint8(4), []byte{1, 9})
	f.Add(uint8(2), []byte{})
	var once sync.Once
	var a *Amendment
	var c *Container
	var count int
	ctx := context.Background()
	dir := f.TempDir()
	f.Cleanup(func() {
		if a != nil {
			a.Discard()
		}
	})
	f.Fuzz(func(t *testing.T, n uint8, ends []byte) {
		once.Do(func() {
			var err error
			if a, err = Amend(ctx, amendSource, filepath.Join(dir, "f.lindi.tar")); err != nil {
				t.Fatal(err)
			}
			if c, err = a.Processing(ctx, "fuzz", "fuzz"); err != nil {
				t.Fatal(err)
			}
		})
		if len(ends) > 64 {
			ends = ends[:64]
		}
		data := make([]float64, n)
		for i := range data {
			data[i] = float64(i)
		}
		idx := make([]int, len(ends))
		valid := true
		prev := 0
		for i, e := range ends {
			idx[i] = int(e)
			if idx[i] < prev || idx[i] > int(n) {
				valid = false
			}
			prev = idx[i]
		}
		if prev != int(n) {
			valid = false
		}
		count++
		name := fmt.Sprint("t", count)
		tab, err := c.AddTable(ctx, name, TableSpec{Description: "d", Columns: []ColumnSpec{
			{Name: "r", Description: "r", Data: NewData(data), Index: [][]int{idx}},
		}})
		if !valid {
			if !errors.Is(err, ErrSpec) {
				t.Fatalf("index %v over %d elements: %v, want ErrSpec", idx, n, err)
			}
			if _, ok := c.g.Link(name); ok {
				t.Fatal("a refused table was written")
			}
			return
		}
		if err != nil {
			t.Fatalf("index %v over %d elements: %v", idx, n, err)
		}
		col, err := tab.Column("r")
		if err != nil {
			t.Fatal(err)
		}
		rows, err := Ragged[float64](ctx, col, 0, tab.Len())
		if err != nil {
			t.Fatal(err)
		}
		lo := 0
		for i, r := range rows {
			if !slices.Equal(r, data[lo:idx[i]]) {
				t.Fatalf("row %d = %v, want %v", i, r, data[lo:idx[i]])
			}
			lo = idx[i]
		}
	})
}
