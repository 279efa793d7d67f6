package codecs

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// The hdmf-zarr stores of testdata/nwbzarr, written by hdmf-zarr 0.2.0,
// whose values.json hold every array as zarr-python decoded it.
var pickleStores = []string{"ecephys", "ecephys_exported", "ophys_behavior_exported"}

// pickleChunks returns, for every array of a store with the pickle filter,
// its .zarray and the bytes of its chunks in key order, decoded through the
// compressor.
func pickleChunks(t testing.TB, store string) map[string][][]byte {
	t.Helper()
	root := filepath.Join("..", "testdata", "nwbzarr", store+".nwb.zarr")
	out := map[string][][]byte{}
	err := filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
		if err != nil || info.Name() != ".zarray" {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		var meta struct {
			Compressor json.RawMessage
			Filters    []json.RawMessage
		}
		if err := json.Unmarshal(b, &meta); err != nil {
			return err
		}
		if len(meta.Filters) != 1 || !strings.Contains(string(meta.Filters[0]), `"pickle"`) {
			return nil
		}
		dir := filepath.Dir(p)
		ents, err := os.ReadDir(dir)
		if err != nil {
			return err
		}
		var names []string
		for _, e := range ents {
			if !strings.HasPrefix(e.Name(), ".") {
				names = append(names, e.Name())
			}
		}
		sort.Strings(names)
		comp, err := Builtin().NewCodec(meta.Compressor)
		if err != nil {
			return err
		}
		key := "/" + filepath.ToSlash(strings.TrimPrefix(dir, root+string(filepath.Separator)))
		for _, n := range names {
			raw, err := os.ReadFile(filepath.Join(dir, n))
			if err != nil {
				return err
			}
			dec, err := comp.Decode(nil, raw, 1<<24)
			if err != nil {
				return err
			}
			out[key] = append(out[key], dec)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPickleStores decodes every pickled chunk of the hdmf-zarr fixtures and
// compares the items with what zarr-python read (values.json): strings,
// numbers (numpy.int32 scalars in exports) and ZarrReferences as
// {"source", "path"} maps, as the JSON codec gives them.
func TestPickleStores(t *testing.T) {
	codec := mustObject(t, `{"id":"pickle","protocol":5}`)
	seen := 0
	for _, store := range pickleStores {
		b, err := os.ReadFile(filepath.Join("..", "testdata", "nwbzarr", store+".values.json"))
		if err != nil {
			t.Fatal(err)
		}
		var vals struct {
			Arrays map[string]struct {
				Shape  []int
				Values any
			}
		}
		if err := json.Unmarshal(b, &vals); err != nil {
			t.Fatal(err)
		}
		for path, chunks := range pickleChunks(t, store) {
			want, ok := vals.Arrays[path]
			if !ok {
				t.Errorf("%s %s: not in values.json", store, path)
				continue
			}
			var got []any
			for _, c := range chunks {
				items, err := codec.DecodeObjects(c, -1)
				if err != nil {
					t.Fatalf("%s %s: %v", store, path, err)
				}
				got = append(got, items...)
			}
			// Through JSON, so that json.Number and float64 compare alike.
			gb, err := json.Marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			var g, w any
			_ = json.Unmarshal(gb, &g)
			wb, _ := json.Marshal(flattenValues(want.Values, len(want.Shape)))
			_ = json.Unmarshal(wb, &w)
			if !reflect.DeepEqual(g, w) {
				t.Errorf("%s %s:\n got %s\nwant %s", store, path, gb, wb)
			}
			seen++
		}
	}
	if seen < 10 {
		t.Errorf("only %d pickled arrays in the fixtures", seen)
	}
}

// flattenValues flattens the first dims levels of nested lists.
func flattenValues(v any, dims int) []any {
	if dims <= 1 {
		if l, ok := v.([]any); ok {
			return l
		}
		return []any{v}
	}
	var out []any
	for _, x := range v.([]any) {
		out = append(out, flattenValues(x, dims-1)...)
	}
	return out
}

func mustObject(t testing.TB, config string) ObjectCodec {
	t.Helper()
	c, err := Builtin().NewObjectCodec([]byte(config))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// pickleHead is the start of a pickled numpy object array, up to the items
// list's MARK; pickleTail closes it (APPENDS, the state TUPLE, BUILD, STOP).
const (
	pickleHead = "\x80\x05" +
		"\x8c\x15numpy.core.multiarray\x94\x8c\x0c_reconstruct\x94\x93\x94" +
		"\x8c\x05numpy\x94\x8c\x07ndarray\x94\x93\x94K\x00\x85\x94C\x01b\x94\x87\x94R\x94" +
		"(K\x01K\x01\x85\x94h\x03\x8c\x05dtype\x94\x93\x94\x8c\x02O8\x94\x89\x88\x87\x94R\x94" +
		"(K\x03\x8c\x01|\x94NNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK?t\x94b\x89]\x94("
	pickleTail = "et\x94b."
)

// TestPickleHand: hand-made chunks of one item decode, and hostile ones fail
// with an error naming what was wrong, wrapping ErrCorrupt.
func TestPickleHand(t *testing.T) {
	codec := mustObject(t, `{"id":"pickle","protocol":5}`)
	ok := map[string]any{
		"\x8c\x03abc":                    "abc",
		"N":                              nil,
		"\x88":                           true,
		"J\xfe\xff\xff\xff":              json.Number("-2"),
		"M\x00\x01":                      json.Number("256"),
		"\x8a\x02\x00\x80":               json.Number("-32768"),
		"G?\xf8\x00\x00\x00\x00\x00\x00": json.Number("1.5"),
		"C\x02hi":                        []byte("hi"),
		"]\x94(K\x01K\x02e":              []any{json.Number("1"), json.Number("2")},
		"\x8c\x0fhdmf_zarr.utils\x8c\x0dZarrReference\x93)\x81(\x8c\x06source\x8c\x01.\x8c\x04path\x8c\x02/au": map[string]any{"source": ".", "path": "/a"},
	}
	for item, want := range ok {
		got, err := codec.DecodeObjects([]byte(pickleHead+item+pickleTail), 1)
		if err != nil {
			t.Errorf("%q: %v", item, err)
			continue
		}
		if !reflect.DeepEqual(got[0], want) {
			t.Errorf("%q: %#v, want %#v", item, got[0], want)
		}
	}
	nested := strings.Repeat("]", 100) + strings.Repeat("a", 99)
	bad := map[string]string{
		"\x8c\x02os\x8c\x06system\x93":                 "global os.system is not allowed",
		"c__builtin__\neval\n":                         "global __builtin__.eval is not allowed",
		"\x8c\x08builtins\x8c\x04exec\x93":             "global builtins.exec is not allowed",
		"X\xff\xff\xff\x7f":                            "runs past the end",
		"\x8d\xff\xff\xff\xff\xff\xff\xff\xff":         "runs past the end",
		"\x8e\x00\x00\x00\x00\x00\x00\x00\x80":         "runs past the end",
		"\x8b\x04\x00\x00\x00\x00":                     "LONG4",
		"\x8a\x09\x01\x02\x03\x04\x05\x06\x07\x08\x09": "at most 8",
		"h\xee":            "memo 238 is empty",
		"}":                "EMPTY_DICT",
		"P1\n":             "PERSID",
		nested:             "nested more than 64",
		"\x80\x01":         "protocol 1",
		"\x8c\x02\xff\xfe": "not UTF-8",
	}
	for item, want := range bad {
		_, err := codec.DecodeObjects([]byte(pickleHead+item+pickleTail), 1)
		if err == nil || !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want one saying %q", item, err, want)
		}
	}
	// Lists of two copies of the list below, 40 deep: a billion laughs of
	// 2^40 values from 300 bytes, refused by the expansion budget; and a
	// list holding itself, refused by the depth limit.
	_, err := codec.DecodeObjects([]byte(pickleHead+pickleBomb(40)+pickleTail), 1)
	if err == nil || !strings.Contains(err.Error(), "expand to more than the limit") {
		t.Errorf("memo bomb: error %v", err)
	}
	if _, err := codec.DecodeObjects([]byte(pickleHead+"]q\xc8h\xc8a"+pickleTail), 1); err == nil || !strings.Contains(err.Error(), "nested more than") {
		t.Errorf("self-holding list: error %v", err)
	}
	// Wrong counts and truncation.
	for _, tc := range []struct{ p, want string }{
		{pickleHead + "N" + pickleTail[:len(pickleTail)-1], "no STOP"},
		{pickleHead + "NN" + pickleTail, "holds 2 items"},
		{"\x80\x05N.", "holds None, not a numpy object array"},
		{"", "no STOP"},
	} {
		_, err := codec.DecodeObjects([]byte(tc.p), 1)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.p, err, tc.want)
		}
	}
	if _, err := codec.DecodeObjects([]byte(pickleHead+"N"+pickleTail), 2); err == nil || !strings.Contains(err.Error(), "want 2") {
		t.Errorf("count mismatch: %v", err)
	}
}

// pickleBomb builds an item that is a list of two copies of a list of two
// copies of ... k levels deep (k < 100), each list made once and referred to
// through the memo: 2^k leaves from 7 bytes a level.
func pickleBomb(k int) string {
	var b strings.Builder
	for i := k; i >= 0; i-- { // the empty lists N_k ... N_0, memo 100+i
		b.WriteString("]q" + string([]byte{byte(100 + i)}))
	}
	for i := range k { // N_{i+1} = [N_i, N_i]
		b.WriteString("ah" + string([]byte{byte(100 + i)}) + "a")
	}
	return b.String()
}

// FuzzPickle: the decoder never panics or hangs and never yields more items
// than asked for, on any input.
func FuzzPickle(f *testing.F) {
	for _, store := range pickleStores {
		for _, chunks := range pickleChunks(f, store) {
			for _, c := range chunks {
				f.Add(c)
			}
		}
	}
	f.Add([]byte(pickleHead + "N" + pickleTail))
	f.Add([]byte(pickleHead + pickleBomb(8) + pickleTail))
	codec := pickleCodec{}
	f.Fuzz(func(t *testing.T, p []byte) {
		items, err := codec.DecodeObjects(p, -1)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		if len(items) > len(p) {
			t.Fatalf("%d items from %d bytes", len(items), len(p))
		}
	})
}
