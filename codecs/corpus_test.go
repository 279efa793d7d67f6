package codecs

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/lindigo/lindi/internal/npy"
)

// corpusDir holds the numcodecs codec corpus: <id>/array.NN.npy and
// <id>/codec.MM/{config.json,encoded.NN.dat}.
const corpusDir = "../testdata/numcodecs"

// corpusCase is one encoded file with its codec configuration and array.
type corpusCase struct {
	name    string // e.g. "zlib/codec.01/encoded.03"
	config  []byte
	encoded string
	array   string
}

// corpusCases lists every encoded file of the corpus, for every codec folder
// present.
func corpusCases(t testing.TB) []corpusCase {
	t.Helper()
	configs, err := filepath.Glob(filepath.Join(corpusDir, "*", "codec.*", "config.json"))
	if err != nil || len(configs) == 0 {
		t.Fatalf("no corpus under %s: %v", corpusDir, err)
	}
	var cases []corpusCase
	for _, cfgPath := range configs {
		codecDir := filepath.Dir(cfgPath)
		cfg, err := os.ReadFile(cfgPath)
		if err != nil {
			t.Fatal(err)
		}
		encs, _ := filepath.Glob(filepath.Join(codecDir, "encoded.*.dat"))
		for _, enc := range encs {
			nn := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(enc), "encoded."), ".dat")
			rel, _ := filepath.Rel(corpusDir, enc)
			cases = append(cases, corpusCase{
				name:    strings.TrimSuffix(rel, ".dat"),
				config:  cfg,
				encoded: enc,
				array:   filepath.Join(filepath.Dir(codecDir), "array."+nn+".npy"),
			})
		}
	}
	sort.Slice(cases, func(i, j int) bool { return cases[i].name < cases[j].name })
	return cases
}

func readNPY(t testing.TB, path string) *npy.Array {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	a, err := npy.Read(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return a
}

// isObjectNPY reports whether the .npy file holds an object array.
func isObjectNPY(t testing.TB, path string) bool {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Contains(b[:min(len(b), 256)], []byte("'descr': '|O'"))
}

func TestCorpus(t *testing.T) {
	cases := corpusCases(t)
	seen := map[string]int{}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			enc, err := os.ReadFile(tc.encoded)
			if err != nil {
				t.Fatal(err)
			}
			c, err := newAny(Builtin(), tc.config)
			if err != nil {
				t.Fatalf("New(%s): %v", tc.config, err)
			}
			id, _ := configID(tc.config)
			seen[id]++
			switch c := c.(type) {
			case Codec:
				checkBytes(t, id, tc, c, enc)
			case ObjectCodec:
				checkObjects(t, tc, c, enc)
			}
		})
	}
	t.Logf("decoded %d corpus files: %v", len(cases), seen)
}

// checkBytes decodes enc with c and through a one-stage pipeline and
// compares with the array's bytes (exactly, or as numcodecs decodes lossy
// encodings).
func checkBytes(t *testing.T, id string, tc corpusCase, c Codec, enc []byte) {
	t.Helper()
	want := readNPY(t, tc.array).Data
	got, err := c.Decode(nil, enc, len(want))
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	switch id {
	case "quantize":
		want = quantizeReference(t, tc.config, want)
	case "fixedscaleoffset":
		want = fixedScaleOffsetReference(t, tc.config, want)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("decoded %d bytes differ from the %d expected (first difference at %d)", len(got), len(want), firstDiff(got, want))
	}
	// The same through a pipeline, appending after a prefix.
	p, err := Builtin().Pipeline(tc.config, nil)
	if err != nil {
		t.Fatal(err)
	}
	prefix := []byte("prefix")
	out, err := p.Decode(prefix, enc, len(want))
	if err != nil {
		t.Fatalf("Pipeline.Decode: %v", err)
	}
	if !bytes.Equal(out[:len(prefix)], prefix) || !bytes.Equal(out[len(prefix):], want) {
		t.Fatal("Pipeline.Decode result differs")
	}
	// One byte less than needed must be refused, not truncated.
	if len(want) > 0 {
		if _, err := c.Decode(nil, enc, len(want)-1); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("Decode with limit %d: err %v, want ErrTooLarge", len(want)-1, err)
		}
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// quantizeReference re-derives what numcodecs' Quantize decodes for the
// original <f8 data: round(x·2^bits)/2^bits (half to even), stored as
// astype, widened back to float64.
func quantizeReference(t *testing.T, config, orig []byte) []byte {
	t.Helper()
	var cfg struct {
		Digits int    `json:"digits"`
		AsType string `json:"astype"`
	}
	if err := json.Unmarshal(config, &cfg); err != nil {
		t.Fatal(err)
	}
	as, err := parseNumType("quantize", cfg.AsType)
	if err != nil {
		t.Fatal(err)
	}
	precision := math.Pow(10, -float64(cfg.Digits))
	exp := math.Log10(precision)
	if exp < 0 {
		exp = math.Floor(exp)
	} else {
		exp = math.Ceil(exp)
	}
	bits := math.Ceil(math.Log(math.Pow(10, -exp)) / math.Log(2))
	scale := math.Pow(2, bits)
	return mapFloat64(orig, func(x float64) float64 {
		return roundTrip(as, math.RoundToEven(scale*x)/scale)
	})
}

// fixedScaleOffsetReference re-derives numcodecs' FixedScaleOffset: encode
// as round((x-offset)·scale) in astype, decode as enc/scale + offset.
func fixedScaleOffsetReference(t *testing.T, config, orig []byte) []byte {
	t.Helper()
	var cfg struct {
		Scale, Offset float64
		AsType        string `json:"astype"`
	}
	if err := json.Unmarshal(config, &cfg); err != nil {
		t.Fatal(err)
	}
	as, err := parseNumType("fixedscaleoffset", cfg.AsType)
	if err != nil {
		t.Fatal(err)
	}
	return mapFloat64(orig, func(x float64) float64 {
		e := roundTrip(as, math.RoundToEven((x-cfg.Offset)*cfg.Scale))
		return e/cfg.Scale + cfg.Offset
	})
}

// roundTrip stores f as t and reads it back.
func roundTrip(t numType, f float64) float64 {
	b := make([]byte, t.size)
	t.putFloat(b, f)
	return t.float(b)
}

func mapFloat64(b []byte, f func(float64) float64) []byte {
	out := make([]byte, len(b))
	for i := 0; i+8 <= len(b); i += 8 {
		v := f(math.Float64frombits(binary.LittleEndian.Uint64(b[i:])))
		binary.LittleEndian.PutUint64(out[i:], math.Float64bits(v))
	}
	return out
}

// checkObjects decodes enc with an object codec and compares the items with
// the array: pickled items for object arrays, or items re-derived from the
// bytes of <i4 and <U n arrays (json2 encodes those too).
func checkObjects(t *testing.T, tc corpusCase, c ObjectCodec, enc []byte) {
	t.Helper()
	var want []any
	if isObjectNPY(t, tc.array) {
		a, err := readObjectNPY(tc.array)
		if err != nil {
			t.Fatal(err)
		}
		want = a.items
		if a.fortran {
			// numpy pickles in C order; numcodecs encodes in memory order.
			want = cToFortran(want, a.shape)
		}
	} else {
		want = itemsOf(t, readNPY(t, tc.array))
	}
	got, err := c.DecodeObjects(enc, len(want))
	if err != nil {
		t.Fatalf("DecodeObjects: %v", err)
	}
	if len(got) != len(want) {
		t.Fatalf("%d items, want %d", len(got), len(want))
	}
	for i := range got {
		if !sameItem(got[i], want[i]) {
			t.Fatalf("item %d = %#v, want %#v", i, got[i], want[i])
		}
	}
	if _, err := c.DecodeObjects(enc, len(want)+1); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("DecodeObjects with a wrong count: err %v, want ErrCorrupt", err)
	}
}

// itemsOf turns a fixed-size numpy array into items as JSON would hold them.
func itemsOf(t *testing.T, a *npy.Array) []any {
	t.Helper()
	var items []any
	switch {
	case a.Descr == "<i4":
		for i := 0; i+4 <= len(a.Data); i += 4 {
			items = append(items, int64(int32(binary.LittleEndian.Uint32(a.Data[i:]))))
		}
	case strings.HasPrefix(a.Descr, "<U"):
		var n int
		fmt.Sscanf(a.Descr[2:], "%d", &n)
		for i := 0; i+4*n <= len(a.Data); i += 4 * n {
			var rs []rune
			for k := 0; k < n; k++ {
				if r := rune(binary.LittleEndian.Uint32(a.Data[i+4*k:])); r != 0 {
					rs = append(rs, r)
				}
			}
			items = append(items, string(rs))
		}
	default:
		t.Fatalf("no item form for dtype %s", a.Descr)
	}
	return items
}

// cToFortran reorders a C-order list of a shape into Fortran order.
func cToFortran(items []any, shape []int) []any {
	out := make([]any, len(items))
	idx := make([]int, len(shape))
	for c := range items {
		f, stride := 0, 1
		for d := range shape {
			f += idx[d] * stride
			stride *= shape[d]
		}
		out[f] = items[c]
		for d := len(shape) - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
	}
	return out
}

// sameItem compares a decoded item with a pickled or re-derived one.
func sameItem(got, want any) bool {
	switch w := want.(type) {
	case int64:
		n, ok := got.(json.Number)
		if !ok {
			return false
		}
		v, err := n.Int64()
		return err == nil && v == w
	case float64:
		n, ok := got.(json.Number)
		if !ok {
			return false
		}
		v, err := n.Float64()
		return err == nil && (v == w || math.IsNaN(v) && math.IsNaN(w))
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range g {
			if !sameItem(g[i], w[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for k, v := range w {
			if !sameItem(g[k], v) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(got, want)
}
