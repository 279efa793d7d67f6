package codecs

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math"
	"path/filepath"
	"strconv"
	"testing"
	"unicode/utf8"
)

// encodeSeeds are the golden inputs, trimmed to fuzz-friendly sizes.
func encodeSeeds(f *testing.F) [][]byte {
	f.Helper()
	paths, _ := filepath.Glob(filepath.Join(goldenDir, "inputs", "*.bin"))
	seeds := [][]byte{nil, {1}, signal(300)}
	for _, p := range paths {
		b := readFile(f, p)
		seeds = append(seeds, b[:min(len(b), 8192)])
	}
	return seeds
}

// fuzzRoundTrip checks that configs encode any input to something their
// decoder gives back exactly. The fuzzed byte picks the config and item
// size (inputs are trimmed to whole items).
func fuzzRoundTrip(f *testing.F, configs ...string) {
	type pair struct {
		c Codec
		e Encoder
	}
	var codecs []pair
	for _, config := range configs {
		c, e := mustEncoder(f, config)
		codecs = append(codecs, pair{c, e})
	}
	for _, s := range encodeSeeds(f) {
		for i := range configs {
			f.Add(s, uint8(i), uint16(2))
		}
	}
	f.Fuzz(func(t *testing.T, src []byte, which uint8, itemSize uint16) {
		p := codecs[int(which)%len(codecs)]
		size := int(itemSize)%300 + 1
		src = src[:len(src)/size*size]
		enc, err := p.e.Encode([]byte{0xee}, src, size)
		if err != nil {
			return // refused inputs (wrong element multiple) are errors, not panics
		}
		got, err := p.c.Decode(nil, enc[1:], len(src))
		if err != nil || !bytes.Equal(got, src) {
			t.Fatalf("%s, item size %d: round trip failed: %v", p.e.Config(), size, err)
		}
	})
}

func FuzzEncodeZlib(f *testing.F) {
	fuzzRoundTrip(f, `{"id":"zlib","level":1}`, `{"id":"zlib","level":9}`, `{"id":"zlib","level":0}`)
}

func FuzzEncodeGzip(f *testing.F) {
	fuzzRoundTrip(f, `{"id":"gzip","level":4}`, `{"id":"gzip","level":-1}`)
}

func FuzzEncodeZstd(f *testing.F) {
	fuzzRoundTrip(f, `{"id":"zstd","level":1}`, `{"id":"zstd","level":3}`, `{"id":"zstd","level":-7}`, `{"id":"zstd","level":12}`)
}

func FuzzEncodeLZ4(f *testing.F) {
	fuzzRoundTrip(f, `{"id":"lz4"}`, `{"id":"lz4","acceleration":30}`)
}

func FuzzEncodeBlosc(f *testing.F) {
	fuzzRoundTrip(f, `{"id":"blosc"}`, `{"id":"blosc","cname":"lz4hc","clevel":9,"shuffle":0}`,
		`{"id":"blosc","cname":"zstd","clevel":1,"shuffle":-1}`, `{"id":"blosc","cname":"zlib","clevel":3}`,
		`{"id":"blosc","clevel":0}`, `{"id":"blosc","blocksize":1000}`)
}

func FuzzEncodeFilters(f *testing.F) {
	fuzzRoundTrip(f, `{"id":"shuffle","elementsize":1}`, `{"id":"shuffle","elementsize":2}`, `{"id":"shuffle","elementsize":8}`,
		`{"id":"shuffle","elementsize":20}`, `{"id":"delta","dtype":"<i2"}`, `{"id":"delta","dtype":">i4"}`, `{"id":"delta","dtype":"<u8"}`, `{"id":"delta","dtype":"|u1"}`)
}

// FuzzEncodeJSON2 builds items from the input (strings, integers, floats
// from raw bits, nested lists and objects) and checks that json2 encodes
// them to JSON that decodes to the same values.
func FuzzEncodeJSON2(f *testing.F) {
	oc, err := Builtin().NewObjectCodec([]byte(`{"id":"json2"}`))
	if err != nil {
		f.Fatal(err)
	}
	e := oc.(ObjectEncoder)
	for _, s := range encodeSeeds(f) {
		f.Add(s, uint8(1))
	}
	f.Add([]byte("h\u00e9\U0001F600\x7f\"\\\n"), uint8(2))
	f.Fuzz(func(t *testing.T, data []byte, cols uint8) {
		items := fuzzItems(data)
		shape := []int{len(items)}
		if c := int(cols)%4 + 1; len(items)%c == 0 && c > 1 {
			shape = []int{len(items) / c, c}
		}
		enc, err := e.EncodeObjects(items, shape)
		if err != nil {
			t.Fatalf("EncodeObjects: %v", err)
		}
		got, err := oc.DecodeObjects(enc, len(items))
		if err != nil {
			t.Fatalf("%s does not decode: %v", enc, err)
		}
		for i := range items {
			if !sameJSON(items[i], got[i]) {
				t.Fatalf("item %d: %#v became %#v (in %s)", i, items[i], got[i], enc)
			}
		}
	})
}

// fuzzItems cuts data into items: a tag byte, then 8 bytes of payload or a
// length-prefixed string.
func fuzzItems(data []byte) []any {
	var items []any
	for len(data) > 0 {
		tag := data[0]
		data = data[1:]
		word := func() uint64 {
			var w [8]byte
			n := copy(w[:], data)
			data = data[n:]
			return binary.LittleEndian.Uint64(w[:])
		}
		switch tag % 6 {
		case 0:
			n := min(int(tag/6), len(data))
			items = append(items, string(bytes.ToValidUTF8(data[:n], []byte("?"))))
			data = data[n:]
		case 1:
			items = append(items, int64(word()))
		case 2:
			items = append(items, math.Float64frombits(word()))
		case 3:
			items = append(items, []any{uint64(word()), nil, tag > 128})
		case 4:
			n := min(int(tag/6)%8, len(data))
			items = append(items, map[string]any{string(bytes.ToValidUTF8(data[:n], nil)): float64(int32(word()))})
			data = data[min(n, len(data)):]
		default:
			items = append(items, nil)
		}
	}
	return items
}

// sameJSON compares an item with its decoding, where numbers come back as
// json.Number.
func sameJSON(want, got any) bool {
	switch w := want.(type) {
	case int64:
		return got == json.Number(strconv.FormatInt(w, 10))
	case uint64:
		return got == json.Number(strconv.FormatUint(w, 10))
	case float64:
		n, ok := got.(json.Number)
		if !ok {
			return false
		}
		g, err := strconv.ParseFloat(string(n), 64)
		if string(n) == "NaN" {
			return math.IsNaN(w)
		}
		if string(n) == "Infinity" || string(n) == "-Infinity" {
			return math.IsInf(w, 0) && (w > 0) == (string(n) == "Infinity")
		}
		return err == nil && math.Float64bits(g) == math.Float64bits(w)
	case string:
		return got == w && utf8.ValidString(w)
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) != len(w) {
			return false
		}
		for i := range w {
			if !sameJSON(w[i], g[i]) {
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
			if !sameJSON(v, g[k]) {
				return false
			}
		}
		return true
	}
	return want == got
}

// FuzzEncodeVLen checks vlen-utf8 and vlen-bytes round trips of items cut
// from the input.
func FuzzEncodeVLen(f *testing.F) {
	text, _ := Builtin().NewObjectCodec([]byte(`{"id":"vlen-utf8"}`))
	raw, _ := Builtin().NewObjectCodec([]byte(`{"id":"vlen-bytes"}`))
	for _, s := range encodeSeeds(f) {
		f.Add(s, uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, step uint8) {
		n := int(step)%64 + 1
		var strs, blobs []any
		for i := 0; i < len(data); i += n {
			piece := data[i:min(i+n, len(data))]
			strs = append(strs, string(bytes.ToValidUTF8(piece, nil)))
			blobs = append(blobs, piece)
		}
		for _, tt := range []struct {
			c     ObjectCodec
			items []any
		}{{text, strs}, {raw, blobs}} {
			enc, err := tt.c.(ObjectEncoder).EncodeObjects(tt.items, []int{len(tt.items)})
			if err != nil {
				t.Fatal(err)
			}
			got, err := tt.c.DecodeObjects(enc, len(tt.items))
			if err != nil {
				t.Fatal(err)
			}
			for i := range got {
				if b, ok := got[i].([]byte); ok {
					if !bytes.Equal(b, tt.items[i].([]byte)) {
						t.Fatalf("item %d differs", i)
					}
				} else if got[i] != tt.items[i] {
					t.Fatalf("item %d differs", i)
				}
			}
		}
	})
}
