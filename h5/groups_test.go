package h5_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/selection"
)

// groupsFixture writes a 2-D int32 dataset of 50×12 in chunks of 7×5,
// zlib-compressed so that chunks differ in stored size, with one chunk never
// written, and returns it opened for reading.
func groupsFixture(t *testing.T) *h5.Dataset {
	t.Helper()
	ctx := context.Background()
	name := filepath.Join(t.TempDir(), "g.lindi.json")
	f, err := h5.Create(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	spec := h5.DatasetSpec{Shape: []int{50, 12}, DType: h5.DTypeOf[int32](), Chunks: []int{7, 5}, Codec: []byte(`{"id":"zlib","level":1}`)}
	d, err := f.Root().CreateDataset(ctx, "x", spec)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	v := make([]int32, 50*12)
	for i := range v {
		v[i] = int32(i) + rng.Int32N(int32(1+i%40)) // some chunks compress better than others
	}
	// rows 0:7, columns 5:10 stay unwritten: a missing chunk.
	for _, s := range []string{"7:50, :", "0:7, 0:5", "0:7, 10:12"} {
		sel, _ := selection.Parse(s)
		r, _ := sel.Resolve([]int{50, 12})
		p0, _ := r.Positions(0)
		p1, _ := r.Positions(1)
		var part []int32
		for _, i := range p0 {
			for _, j := range p1 {
				part = append(part, v[i*12+j])
			}
		}
		if err := h5.Write(ctx, d, sel, part); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := h5.Open(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	ds, err := r.Dataset(ctx, "x")
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// elementsOf reads sel and returns its elements keyed by their position.
func elementsOf(t *testing.T, d *h5.Dataset, sel selection.Selection) map[[2]int]int32 {
	t.Helper()
	ctx := context.Background()
	a, err := h5.Read[int32](ctx, d, sel)
	if err != nil {
		t.Fatal(err)
	}
	r, err := sel.Resolve(d.Shape())
	if err != nil {
		t.Fatal(err)
	}
	p0, _ := r.Positions(0)
	p1, _ := r.Positions(1)
	m := map[[2]int]int32{}
	for i, r := range p0 {
		for j, c := range p1 {
			m[[2]int{r, c}] = a.Data[i*len(p1)+j]
		}
	}
	return m
}

func TestChunkGroups(t *testing.T) {
	ctx := context.Background()
	d := groupsFixture(t)
	all, err := d.ChunkGroups(ctx, nil, 1<<40)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 1 || all[0].Chunks != 8*3 {
		t.Fatalf("one group of everything: %+v", all)
	}
	total := all[0].StoredBytes
	for _, sel := range []string{":", "3:44:3, ::-2", "[40, 2, 2, 9], 1:12", "5:30, 7"} {
		for _, max := range []int64{1, total / 20, total / 7, total / 2, total} {
			s, err := selection.Parse(sel)
			if err != nil {
				t.Fatal(err)
			}
			groups, err := d.ChunkGroups(ctx, s, max)
			if err != nil {
				t.Fatalf("%s by %d: %v", sel, max, err)
			}
			if sel == ":" {
				chunks := 0
				var bytes int64
				for _, g := range groups {
					chunks += g.Chunks
					bytes += g.StoredBytes
					if g.StoredBytes > max && g.Chunks != 1 {
						t.Errorf("%s by %d: group %s holds %d bytes in %d chunks", sel, max, g.Selection, g.StoredBytes, g.Chunks)
					}
				}
				if chunks != 24 || bytes != total {
					t.Errorf("%s by %d: groups hold %d chunks, %d bytes; want 24, %d", sel, max, chunks, bytes, total)
				}
			}
			if max == 1 && sel == ":" && len(groups) != 24 { // every chunk alone
				t.Errorf("by 1 byte: %d groups, want 24", len(groups))
			}
			want := elementsOf(t, d, s)
			got := map[[2]int]int32{}
			for _, g := range groups {
				for k, v := range elementsOf(t, d, g.Selection) {
					if _, dup := got[k]; dup {
						t.Fatalf("%s by %d: element %v in two groups", sel, max, k)
					}
					got[k] = v
				}
			}
			if len(got) != len(want) {
				t.Fatalf("%s by %d: groups select %d elements, want %d", sel, max, len(got), len(want))
			}
			for k, v := range want {
				if got[k] != v {
					t.Fatalf("%s by %d: element %v is %d in the groups, %d in a read", sel, max, k, got[k], v)
				}
			}
		}
	}
}

func TestChunkGroupsRefused(t *testing.T) {
	ctx := context.Background()
	d := groupsFixture(t)
	if _, err := d.ChunkGroups(ctx, nil, 0); !errors.Is(err, h5.ErrType) {
		t.Errorf("0 bytes: %v", err)
	}
	s, _ := selection.Parse("60:70")
	if g, err := d.ChunkGroups(ctx, s, 100); err != nil || len(g) != 0 {
		t.Errorf("an empty selection: %v, %v", g, err)
	}
	s, _ = selection.Parse("80")
	if _, err := d.ChunkGroups(ctx, s, 100); !errors.Is(err, selection.ErrOutOfRange) {
		t.Errorf("row 80 of 50: %v", err)
	}
}
