package codecs

import (
	"encoding/binary"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

// vlen builds the numcodecs variable-length layout.
func vlen(items ...[]byte) []byte {
	b := binary.LittleEndian.AppendUint32(nil, uint32(len(items)))
	for _, it := range items {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(it)))
		b = append(b, it...)
	}
	return b
}

func TestObjectCodecs(t *testing.T) {
	tests := []struct {
		name    string
		config  string
		src     []byte
		n       int
		want    []any
		wantErr error
	}{
		{"vlen-utf8", `{"id":"vlen-utf8"}`, vlen([]byte("a"), []byte(""), []byte("héllo")), 3, []any{"a", "", "héllo"}, nil},
		{"vlen-utf8 unknown count", `{"id":"vlen-utf8"}`, vlen([]byte("a")), -1, []any{"a"}, nil},
		{"vlen-utf8 zero items", `{"id":"vlen-utf8"}`, vlen(), 0, []any{}, nil},
		{"vlen-utf8 invalid utf-8", `{"id":"vlen-utf8"}`, vlen([]byte{0xff}), 1, nil, ErrCorrupt},
		{"vlen-utf8 wrong count", `{"id":"vlen-utf8"}`, vlen([]byte("a")), 2, nil, ErrCorrupt},
		{"vlen-utf8 huge count", `{"id":"vlen-utf8"}`, []byte{0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0}, -1, nil, ErrCorrupt},
		{"vlen-utf8 length past end", `{"id":"vlen-utf8"}`, []byte{1, 0, 0, 0, 9, 0, 0, 0, 'a'}, -1, nil, ErrCorrupt},
		{"vlen-utf8 trailing bytes", `{"id":"vlen-utf8"}`, append(vlen([]byte("a")), 0), -1, nil, ErrCorrupt},
		{"vlen-utf8 no header", `{"id":"vlen-utf8"}`, []byte{1}, -1, nil, ErrCorrupt},
		{"vlen-bytes", `{"id":"vlen-bytes"}`, vlen([]byte{0xff, 0}, []byte("x")), 2, []any{[]byte{0xff, 0}, []byte("x")}, nil},
		{"vlen-array i2", `{"id":"vlen-array","dtype":"<i2"}`, vlen(i16s(1, -2), i16s()), 2, []any{[]int16{1, -2}, []int16{}}, nil},
		{"vlen-array f8", `{"id":"vlen-array","dtype":"<f8"}`, vlen(float64s(0.5)), 1, []any{[]float64{0.5}}, nil},
		{"vlen-array >u2", `{"id":"vlen-array","dtype":">u2"}`, vlen([]byte{1, 2}), 1, []any{[]uint16{0x102}}, nil},
		{"vlen-array ragged item", `{"id":"vlen-array","dtype":"<i4"}`, vlen([]byte{1, 2, 3}), 1, nil, ErrCorrupt},
		{"json2 strings", `{"id":"json2"}`, []byte(`["a","b","|O",[2]]`), 2, []any{"a", "b"}, nil},
		{"json2 2-d flattened", `{"id":"json2"}`, []byte(`[[1,2,3],[4,5,6],"<i4",[2,3]]`), 6, nums("1", "2", "3", "4", "5", "6"), nil},
		{"json2 list items kept", `{"id":"json2"}`, []byte(`[[1,2],[3,4],"|O",[2]]`), 2, []any{nums("1", "2"), nums("3", "4")}, nil},
		{"json2 special floats", `{"id":"json2"}`, []byte(`[NaN, Infinity, -Infinity, -0.5e-3, "|O", [4]]`), 4, nums("NaN", "Infinity", "-Infinity", "-0.5e-3"), nil},
		{"json2 0-d", `{"id":"json2"}`, []byte(`["x","|O",[]]`), 1, []any{"x"}, nil},
		{"json2 empty", `{"id":"json2"}`, []byte(`["|O",[0]]`), 0, []any{}, nil},
		{"json2 references", `{"id":"json2"}`, []byte(`[{"_REFERENCE":{"object_id":"ab","path":"/x"}},null,true,"|O",[3]]`), 3,
			[]any{map[string]any{"_REFERENCE": map[string]any{"object_id": "ab", "path": "/x"}}, nil, true}, nil},
		{"json2 escapes", `{"id":"json2"}`, []byte(`["\u00e9\n\ud83d\ude00\"","|O",[1]]`), 1, []any{"é\n😀\""}, nil},
		{"json2 shape mismatch", `{"id":"json2"}`, []byte(`["a","b","|O",[3]]`), -1, nil, ErrCorrupt},
		{"json2 ragged 2-d", `{"id":"json2"}`, []byte(`[[1],[2,3],"|O",[2,2]]`), -1, nil, ErrCorrupt},
		{"json2 no shape", `{"id":"json2"}`, []byte(`["|O"]`), -1, nil, ErrCorrupt},
		{"json2 not an array", `{"id":"json2"}`, []byte(`{"a":1}`), -1, nil, ErrCorrupt},
		{"json2 bad dtype", `{"id":"json2"}`, []byte(`["a",1,[1]]`), -1, nil, ErrCorrupt},
		{"json2 negative extent", `{"id":"json2"}`, []byte(`["a","|O",[-1]]`), -1, nil, ErrCorrupt},
		{"json2 truncated", `{"id":"json2"}`, []byte(`["a","|O",[1]`), -1, nil, ErrCorrupt},
		{"json2 trailing garbage", `{"id":"json2"}`, []byte(`["a","|O",[1]] x`), -1, nil, ErrCorrupt},
		{"json2 bad number", `{"id":"json2"}`, []byte(`[01,"|O",[1]]`), -1, nil, ErrCorrupt},
		{"json2 bad escape", `{"id":"json2"}`, []byte(`["\x","|O",[1]]`), -1, nil, ErrCorrupt},
		{"json2 control character", `{"id":"json2"}`, []byte("[\"a\x01\",\"|O\",[1]]"), -1, nil, ErrCorrupt},
		{"json2 too deep", `{"id":"json2"}`, []byte(strings.Repeat("[", 10002)), -1, nil, ErrCorrupt},
		{"json legacy 2-d", `{"id":"json"}`, []byte(`[["a","b"],["c","d"],"|O"]`), 4, []any{"a", "b", "c", "d"}, nil},
		{"json legacy list items", `{"id":"json"}`, []byte(`[["a","b"],["c","d"],"|O"]`), 2, []any{[]any{"a", "b"}, []any{"c", "d"}}, nil},
		{"json legacy mixed", `{"id":"json"}`, []byte(`["a",["b"],"|O"]`), -1, []any{"a", []any{"b"}}, nil},
		{"categorize objects", `{"id":"categorize","labels":["x","y"],"dtype":"|O","astype":"<i2"}`, i16s(2, 0, 1, -1, 7), 5, []any{"y", "", "x", "", ""}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, ok := mustNew(t, tc.config).(ObjectCodec)
			if !ok {
				t.Fatalf("%s is not an ObjectCodec", tc.config)
			}
			got, err := c.DecodeObjects(tc.src, tc.n)
			wantErr(t, err, tc.wantErr)
			if tc.wantErr == nil && !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %#v, want %#v", got, tc.want)
			}
		})
	}
}

// TestJSONSpecialNumbers checks that the special tokens read as floats.
func TestJSONSpecialNumbers(t *testing.T) {
	for tok, want := range map[string]float64{"NaN": math.NaN(), "Infinity": math.Inf(1), "-Infinity": math.Inf(-1)} {
		f, err := json.Number(tok).Float64()
		if err != nil || !(f == want || math.IsNaN(f) && math.IsNaN(want)) {
			t.Errorf("json.Number(%q).Float64() = %v, %v", tok, f, err)
		}
	}
}

func nums(ss ...string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = json.Number(s)
	}
	return out
}
