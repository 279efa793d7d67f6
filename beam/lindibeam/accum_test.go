package lindibeam

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/selection"
	"github.com/lindigo/lindi/zarrmeta"
)

// reference computes the statistics of one column's values exactly, the
// plain way: big.Rat sums, one rounding.
func reference(vals []float64) (mean, std float64) {
	n := big.NewRat(int64(len(vals)), 1)
	sum, sq := new(big.Rat), new(big.Rat)
	for _, v := range vals {
		r := new(big.Rat).SetFloat64(v)
		sum.Add(sum, r)
		sq.Add(sq, new(big.Rat).Mul(r, r))
	}
	m := new(big.Rat).Quo(sum, n)
	mean, _ = m.Float64()
	v := new(big.Rat).Sub(new(big.Rat).Quo(sq, n), new(big.Rat).Mul(m, m))
	vf, _ := v.Float64()
	return mean, math.Sqrt(vf)
}

// splitRows computes partials of rows [a, b) of a rows×cols matrix and
// merges them in the order given.
func statsOf[T Integer | float32 | float64](t *testing.T, v []T, rows, cols int, cuts []int, partial func([]T, Layout) (Partial, error)) Summary {
	t.Helper()
	var parts []Partial
	all := make([]int, cols)
	for c := range all {
		all[c] = c
	}
	prev := 0
	for _, cut := range append(cuts, rows) {
		p, err := partial(v[prev*cols:cut*cols], Layout{Outer: cut - prev, Inner: 1, Cols: all})
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts, p)
		prev = cut
	}
	// merge as a tree from the right, so that the order differs from the cuts'
	for len(parts) > 1 {
		m, err := Merge(parts[len(parts)-1], parts[len(parts)-2])
		if err != nil {
			t.Fatal(err)
		}
		parts = append(parts[:len(parts)-2], m)
	}
	st, err := Finish(parts[0], "x", []int{rows, cols}, all)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func jsonOf(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestStatsSplitIndependent(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const rows, cols = 997, 3
	i16 := make([]int16, rows*cols)
	i64 := make([]int64, rows*cols)
	u64 := make([]uint64, rows*cols)
	f64 := make([]float64, rows*cols)
	for k := range i16 {
		i16[k] = int16(rng.Uint32())
		i64[k] = int64(rng.Uint64())
		u64[k] = rng.Uint64()
		f64[k] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20))
	}
	i16[5] = math.MinInt16
	i64[7] = math.MinInt64
	f64[0] = 5e-324
	for _, cuts := range [][]int{nil, {1}, {500}, {3, 10, 700, 996}} {
		cases := map[string]struct{ got, want Summary }{
			"int16":   {statsOf(t, i16, rows, cols, cuts, IntPartial[int16]), statsOf(t, i16, rows, cols, nil, IntPartial[int16])},
			"int64":   {statsOf(t, i64, rows, cols, cuts, IntPartial[int64]), statsOf(t, i64, rows, cols, nil, IntPartial[int64])},
			"uint64":  {statsOf(t, u64, rows, cols, cuts, IntPartial[uint64]), statsOf(t, u64, rows, cols, nil, IntPartial[uint64])},
			"float64": {statsOf(t, f64, rows, cols, cuts, FloatPartial[float64]), statsOf(t, f64, rows, cols, nil, FloatPartial[float64])},
		}
		for name, c := range cases {
			if g, w := jsonOf(t, c.got), jsonOf(t, c.want); g != w {
				t.Errorf("%s cut at %v: %s, whole: %s", name, cuts, g, w)
			}
		}
	}
	// against the plain exact computation, column by column
	st := statsOf(t, f64, rows, cols, []int{100}, FloatPartial[float64])
	st16 := statsOf(t, i16, rows, cols, []int{100}, IntPartial[int16])
	for c := range cols {
		var col, col16 []float64
		for r := range rows {
			col = append(col, f64[r*cols+c])
			col16 = append(col16, float64(i16[r*cols+c]))
		}
		for _, tc := range []struct {
			st  Summary
			col []float64
		}{{st, col}, {st16, col16}} {
			m, s := reference(tc.col)
			if tc.st.Mean[c].F != m || tc.st.Std[c].F != s || tc.st.Count[c] != rows {
				t.Errorf("column %d: mean %v std %v, want %v %v", c, tc.st.Mean[c].F, tc.st.Std[c].F, m, s)
			}
		}
	}
	if st16.Min[0].Int == nil || st16.Min[0].Int.Int64() != math.MinInt16 {
		t.Errorf("int16 min %v", st16.Min[0])
	}
}

func TestStatsNonFinite(t *testing.T) {
	v := []float64{1, 2, math.NaN(), math.Inf(1), 3, 4}
	st := statsOf(t, v, 3, 2, []int{1}, FloatPartial[float64])
	got := jsonOf(t, st)
	want := `{"dataset":"x","shape":[3,2],"count":[3,3],"mean":["NaN","Infinity"],"std":["NaN","NaN"],"min":["NaN",2],"max":["NaN","Infinity"]}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// BenchmarkIntPartialInt16 reduces a chunk of int16 samples of 64 and of
// 384 channels, the hot loop of an ElectricalSeries (1.28 M elements).
func BenchmarkIntPartialInt16(b *testing.B) {
	for _, cols := range []int{64, 384} {
		b.Run(fmt.Sprintf("channels=%d", cols), func(b *testing.B) {
			rows := 20000 * 64 / cols
			v := make([]int16, rows*cols)
			r := rand.New(rand.NewPCG(1, 2))
			for i := range v {
				v[i] = int16(r.IntN(65536) - 32768)
			}
			all := make([]int, cols)
			for c := range all {
				all[c] = c
			}
			b.SetBytes(int64(2 * len(v)))
			for b.Loop() {
				if _, err := IntPartial(v, Layout{Outer: rows, Inner: 1, Cols: all}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestRowReducerPieces writes the bytes of a read to a row reducer in
// pieces cut anywhere (within elements and rows too): the statistics are
// those of the whole block, for integer and float rows of several inner
// elements.
func TestRowReducerPieces(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const rows, cols, inner = 211, 3, 2
	i16 := make([]int16, rows*cols*inner)
	f64 := make([]float64, rows*cols*inner)
	for k := range i16 {
		i16[k] = int16(rng.Uint32())
		f64[k] = rng.NormFloat64()
	}
	l := Layout{Outer: rows, Inner: inner, Cols: []int{0, 2, 5}}
	for _, cuts := range [][]int{nil, {1}, {3, 5, 7}, {12, 13, 500, 2000}} {
		check := func(name string, w streamReducer, raw []byte, whole Partial) {
			prev := 0
			for _, c := range append(cuts, len(raw)) {
				c = min(c, len(raw))
				if _, err := w.Write(raw[prev:c]); err != nil {
					t.Fatal(err)
				}
				prev = c
			}
			got, err := w.result()
			if err != nil {
				t.Fatal(err)
			}
			if g, w := jsonOf(t, got), jsonOf(t, whole); g != w {
				t.Errorf("%s cut at %v: %s, whole: %s", name, cuts, g, w)
			}
		}
		w16, _ := IntPartial(i16, l)
		check("int16", streamReducerOf(zarrmeta.DType{Kind: zarrmeta.KindInt, Size: 2}, l), bytesOf(i16), w16)
		w64, _ := FloatPartial(f64, l)
		check("float64", streamReducerOf(zarrmeta.DType{Kind: zarrmeta.KindFloat, Size: 8}, l), bytesOf(f64), w64)
	}
	// Fewer rows than the layout has is an error, not a partial answer.
	w := streamReducerOf(zarrmeta.DType{Kind: zarrmeta.KindInt, Size: 2}, l)
	w.Write(bytesOf(i16)[:100])
	if _, err := w.result(); err == nil {
		t.Error("a short read reduced without an error")
	}
}

func bytesOf[T int16 | float64](v []T) []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(v))), len(v)*int(unsafe.Sizeof(v[0])))
}

// TestReduceGroupParts reduces selections of a dataset read whole and read
// in about four parts: the same partial statistics, and those
// of the columns reduced from one plain read.
func TestReduceGroupParts(t *testing.T) {
	ctx := context.Background()
	f, err := h5.Open(ctx, "../../testdata/nwb/tables.nwb")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := f.Dataset(ctx, "acquisition/ElectricalSeries/data")
	if err != nil {
		t.Fatal(err)
	}
	for _, sel := range []string{"...", "100:901:3, ::-1", "[5, 5, 2, 300, 7, 450, 100, 12, 640], 1:"} {
		s, _ := selection.Parse(sel)
		groups, err := d.ChunkGroups(ctx, s, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		whole, err := reduceGroup(ctx, d, sel, 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		// In parts of about a quarter.
		parts, err := reduceGroup(ctx, d, sel, rawBytes(d, groups[0].Selection)/4)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := jsonOf(t, parts), jsonOf(t, whole); g != w {
			t.Errorf("%q in parts: %s, whole: %s", sel, g, w)
		}
		a, err := d.Read(ctx, groups[0].Selection)
		if err != nil {
			t.Fatal(err)
		}
		l, err := layoutOf(d, groups[0].Selection)
		if err != nil {
			t.Fatal(err)
		}
		v, err := h5.As[float64](a)
		if err != nil {
			t.Fatal(err)
		}
		plain, err := FloatPartial(v.Data, l)
		if err != nil {
			t.Fatal(err)
		}
		ws, err := Finish(whole, "x", d.Shape(), l.Cols)
		if err != nil {
			t.Fatal(err)
		}
		ps, err := Finish(plain, "x", d.Shape(), l.Cols)
		if err != nil {
			t.Fatal(err)
		}
		if g, w := jsonOf(t, ws.Mean), jsonOf(t, ps.Mean); g != w {
			t.Errorf("%q: means %s, from one plain read %s", sel, g, w)
		}
	}
}

// TestDatasetMerge merges the partials of a DatasetStats job: a zero one is
// nothing, and partials of two datasets are refused.
func TestDatasetMerge(t *testing.T) {
	p, err := IntPartial([]int16{1, 2, 3, 4}, Layout{Outer: 2, Inner: 1, Cols: []int{0, 1}})
	if err != nil {
		t.Fatal(err)
	}
	a := datasetPartial{Path: "/a", Shape: []int{2, 2}, P: p}
	var m datasetMergeFn
	for _, c := range [][2]datasetPartial{{{}, a}, {a, {}}} {
		got, err := m.MergeAccumulators(c[0], c[1])
		if err != nil || jsonOf(t, got) != jsonOf(t, a) {
			t.Errorf("merging with a zero partial: %s, %v; want %s", jsonOf(t, got), err, jsonOf(t, a))
		}
	}
	got, err := m.MergeAccumulators(a, a)
	if err != nil || got.P.Stats[0].N != 4 || got.Path != "/a" {
		t.Errorf("merging twice: %s, %v", jsonOf(t, got), err)
	}
	for _, b := range []datasetPartial{{Path: "/b", Shape: []int{2, 2}, P: p}, {Path: "/a", Shape: []int{2, 3}, P: p}} {
		if _, err := m.MergeAccumulators(a, b); err == nil {
			t.Errorf("merging %s %v with %s %v: no error", a.Path, a.Shape, b.Path, b.Shape)
		}
	}
}
