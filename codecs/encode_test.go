package codecs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"testing"
)

// mustEncoder builds a byte codec and asserts that it encodes.
func mustEncoder(t testing.TB, config string) (Codec, Encoder) {
	t.Helper()
	c := mustCodec(t, config)
	e, ok := c.(Encoder)
	if !ok {
		t.Fatalf("%s does not encode", config)
	}
	return c, e
}

func TestEncoderConfig(t *testing.T) {
	tests := []struct{ config, want string }{
		{`{"id":"zlib"}`, `{"id":"zlib","level":1}`},
		{`{"id": "zlib", "level": 4}`, `{"id":"zlib","level":4}`},
		{`{"id":"gzip","level":9}`, `{"id":"gzip","level":9}`},
		{`{"id":"zstd"}`, `{"id":"zstd","level":1}`},
		{`{"id":"zstd","level":3,"checksum":false}`, `{"id":"zstd","level":3}`},
		{`{"id":"lz4"}`, `{"acceleration":1,"id":"lz4"}`},
		{`{"id":"lz4","acceleration":8}`, `{"acceleration":8,"id":"lz4"}`},
		{`{"id":"blosc"}`, `{"blocksize":0,"clevel":5,"cname":"lz4","id":"blosc","shuffle":1}`},
		{`{"id":"blosc","cname":"zstd","clevel":3,"shuffle":0,"blocksize":0,"typesize":4}`, `{"blocksize":0,"clevel":3,"cname":"zstd","id":"blosc","shuffle":0}`},
		{`{"id":"blosc","shuffle":-1}`, `{"blocksize":0,"clevel":5,"cname":"lz4","id":"blosc","shuffle":-1}`},
		{`{"id":"shuffle"}`, `{"elementsize":4,"id":"shuffle"}`},
		{`{"id":"shuffle","elementsize":8}`, `{"elementsize":8,"id":"shuffle"}`},
		{`{"id":"delta","dtype":"<i2"}`, `{"astype":"<i2","dtype":"<i2","id":"delta"}`},
		{`{"id":"delta","dtype":"<u1"}`, `{"astype":"|u1","dtype":"|u1","id":"delta"}`},
	}
	for _, tt := range tests {
		_, e := mustEncoder(t, tt.config)
		if got := string(e.Config()); got != tt.want {
			t.Errorf("%s: Config %s, want %s", tt.config, got, tt.want)
		}
	}
}

func TestObjectEncoderConfig(t *testing.T) {
	// numcodecs.JSON().get_config() as LINDI writes it, keys sorted.
	const lindi = `{"allow_nan":true,"check_circular":true,"encoding":"utf-8","ensure_ascii":true,"id":"json2","indent":null,"separators":[",",":"],"skipkeys":false,"sort_keys":true,"strict":true}`
	tests := []struct{ config, want string }{
		{`{"id":"json2"}`, lindi},
		{lindi, lindi},
		{`{"id":"vlen-utf8"}`, `{"id":"vlen-utf8"}`},
		{`{"id":"vlen-bytes"}`, `{"id":"vlen-bytes"}`},
	}
	for _, tt := range tests {
		oc, err := Builtin().NewObjectCodec([]byte(tt.config))
		if err != nil {
			t.Fatal(err)
		}
		e, ok := oc.(ObjectEncoder)
		if !ok {
			t.Fatalf("%s does not encode", tt.config)
		}
		if got := string(e.Config()); got != tt.want {
			t.Errorf("%s: Config %s, want %s", tt.config, got, tt.want)
		}
	}
}

// TestEncodeRefusedConfigs: configurations that decode but cannot encode
// build, and Encode names the codec in an error wrapping ErrConfig.
func TestEncodeRefusedConfigs(t *testing.T) {
	for _, config := range []string{
		`{"id":"zlib","level":10}`,
		`{"id":"gzip","level":-2}`,
		`{"id":"zlib","level":"high"}`,
		`{"id":"zstd","level":23}`,
		`{"id":"blosc","cname":"snappy"}`,
		`{"id":"blosc","cname":"blosclz"}`,
		`{"id":"blosc","cname":"lzma"}`,
		`{"id":"blosc","shuffle":2}`,
		`{"id":"blosc","clevel":10}`,
		`{"id":"shuffle","elementsize":0}`,
		`{"id":"delta","dtype":"<f8"}`,
		`{"id":"delta","dtype":"<i4","astype":"<i2"}`,
	} {
		c, e := mustEncoder(t, config)
		id := idOf([]byte(config))
		out, err := e.Encode([]byte("x"), signal(1000), 2)
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), id) || string(out) != "x" {
			t.Errorf("%s: Encode gave %v (dst %q), want ErrConfig naming %s", config, err, out, id)
		}
		if id == "zlib" || id == "blosc" || id == "zstd" {
			// Still decodes what the default configuration wrote.
			_, good := mustEncoder(t, `{"id":"`+id+`"}`)
			enc, err := good.Encode(nil, signal(1000), 2)
			if err != nil {
				t.Fatal(err)
			}
			if got, err := c.Decode(nil, enc, 1000); err != nil || !bytes.Equal(got, signal(1000)) {
				t.Errorf("%s no longer decodes: %v", config, err)
			}
		}
	}
}

// encodeInputs are chunks of the kinds the golden tests use.
func encodeInputs() map[string][]byte {
	random := make([]byte, 5000)
	for i := range random {
		random[i] = byte(uint32(i)*2654435761>>24 ^ uint32(i>>3))
	}
	return map[string][]byte{
		"empty":  nil,
		"small":  signal(40),
		"signal": signal(100_000),
		"big":    signal(1 << 20),
		"random": random,
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	configs := []string{
		`{"id":"zlib","level":4}`, `{"id":"zlib","level":0}`, `{"id":"gzip","level":4}`,
		`{"id":"zstd","level":3}`, `{"id":"zstd","level":-3}`, `{"id":"zstd","level":19}`,
		`{"id":"lz4"}`, `{"id":"lz4","acceleration":20}`,
		`{"id":"blosc"}`, `{"id":"blosc","cname":"lz4hc","clevel":9,"shuffle":0}`,
		`{"id":"blosc","cname":"zstd","clevel":3,"shuffle":-1}`, `{"id":"blosc","cname":"zlib","clevel":1}`,
		`{"id":"blosc","clevel":0}`, `{"id":"blosc","blocksize":4096}`,
		`{"id":"shuffle","elementsize":2}`, `{"id":"delta","dtype":"<i2"}`, `{"id":"delta","dtype":">u2"}`,
	}
	for _, config := range configs {
		c, e := mustEncoder(t, config)
		for name, src := range encodeInputs() {
			t.Run(config+"/"+name, func(t *testing.T) {
				enc, err := e.Encode([]byte{1, 2}, src, 2)
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(enc[:2], []byte{1, 2}) {
					t.Fatal("Encode changed dst")
				}
				got, err := c.Decode(nil, enc[2:], len(src))
				if err != nil || !bytes.Equal(got, src) {
					t.Fatalf("round trip: %v", err)
				}
			})
		}
	}
}

func TestGzipDeterministic(t *testing.T) {
	_, e := mustEncoder(t, `{"id":"gzip","level":4}`)
	a, _ := e.Encode(nil, signal(5000), 2)
	b, _ := e.Encode(nil, signal(5000), 2)
	if !bytes.Equal(a, b) || a[4]|a[5]|a[6]|a[7] != 0 {
		t.Fatalf("gzip members differ or carry a time: % x", a[:10])
	}
}

func TestShuffleDeltaEncodeErrors(t *testing.T) {
	_, e := mustEncoder(t, `{"id":"shuffle","elementsize":4}`)
	if _, err := e.Encode(nil, make([]byte, 7), 1); !errors.Is(err, ErrConfig) {
		t.Errorf("7 bytes of 4-byte elements: %v", err)
	}
	_, e = mustEncoder(t, `{"id":"delta","dtype":"<i4"}`)
	if _, err := e.Encode(nil, make([]byte, 6), 4); !errors.Is(err, ErrConfig) {
		t.Errorf("6 bytes of <i4: %v", err)
	}
}

// TestDeltaMatchesNumcodecs: numcodecs.Delta('<i2').encode(np.array([5, 3,
// -32768, 32767, 0], '<i2')).tobytes().hex().
func TestDeltaMatchesNumcodecs(t *testing.T) {
	_, e := mustEncoder(t, `{"id":"delta","dtype":"<i2"}`)
	src := []byte{5, 0, 3, 0, 0, 0x80, 0xff, 0x7f, 0, 0}
	got, err := e.Encode(nil, src, 2)
	if err != nil || fmt.Sprintf("%x", got) != "0500fefffd7fffff0180" {
		t.Fatalf("delta: %x, %v", got, err)
	}
}

// pyJSON2 are numcodecs 0.11 JSON().encode outputs for object arrays
// (printed by /usr/bin/python3; see testdata/encode/gen.py for the corpus).
var pyJSON2 = []struct {
	name  string
	items []any
	shape []int
	want  string
}{
	{"scalars", []any{nil, true, "h\u00e9\U0001F600\x7f\x01\n\"\\", uint64(math.MaxUint64), math.Copysign(0, -1), math.NaN()}, []int{6},
		`[null,true,"h\u00e9\ud83d\ude00\u007f\u0001\n\"\\",18446744073709551615,-0.0,NaN,"|O",[6]]`},
	{"float repr", []any{1e16, 1e15, 0.0001, 1e-5, 1.5e-7}, []int{5}, `[1e+16,1000000000000000.0,0.0001,1e-05,1.5e-07,"|O",[5]]`},
	{"specials", []any{123456.789, math.Inf(1), math.Inf(-1), 5e-324}, []int{4}, `[123456.789,Infinity,-Infinity,5e-324,"|O",[4]]`},
	{"padded 2-d", []any{"c", int64(0), "\u00e9", int64(0)}, []int{2, 2}, `[["c",0],["\u00e9",0],"|O",[2,2]]`},
	{"empty axis", []any{}, []int{2, 0}, `[[],[],"|O",[2,0]]`},
	{"empty", []any{}, []int{0}, `["|O",[0]]`},
	{"objects", []any{map[string]any{"b": int64(1), "a": []any{int64(1), map[string]any{"z": nil, "\u00e9": 2.5}}, "A": "x"}, []any{}}, []int{2},
		`[{"A":"x","a":[1,{"z":null,"\u00e9":2.5}],"b":1},[],"|O",[2]]`},
	{"3-d", []any{int64(1), int64(2), int64(3), int64(4)}, []int{2, 1, 2}, `[[[1,2]],[[3,4]],"|O",[2,1,2]]`},
	{"numbers", []any{json.Number("1.50"), json.Number("-0"), json.Number("12345678901234567890123"), json.Number("NaN"), json.Number("1e400")}, []int{5},
		`[1.5,0,12345678901234567890123,NaN,Infinity,"|O",[5]]`},
	{"repr extremes", []any{1.7976931348623157e308, 2.5e-5, 1e22, 123456789012345678.0}, []int{4},
		`[1.7976931348623157e+308,2.5e-05,1e+22,1.2345678901234568e+17,"|O",[4]]`},
}

func TestJSON2Encode(t *testing.T) {
	oc, err := Builtin().NewObjectCodec([]byte(`{"id":"json2"}`))
	if err != nil {
		t.Fatal(err)
	}
	e := oc.(ObjectEncoder)
	for _, tt := range pyJSON2 {
		got, err := e.EncodeObjects(tt.items, tt.shape)
		if err != nil || string(got) != tt.want {
			t.Errorf("%s: %s, %v\nwant %s", tt.name, got, err, tt.want)
			continue
		}
		back, err := oc.DecodeObjects(got, len(tt.items))
		if err != nil || len(back) != len(tt.items) {
			t.Errorf("%s: decodes to %v, %v", tt.name, back, err)
		}
	}
}

func TestJSON2EncodeErrors(t *testing.T) {
	oc, _ := Builtin().NewObjectCodec([]byte(`{"id":"json2"}`))
	e := oc.(ObjectEncoder)
	cyclic := map[string]any{}
	cyclic["self"] = cyclic
	for name, tt := range map[string]struct {
		items []any
		shape []int
	}{
		"count":       {[]any{1, 2}, []int{3}},
		"negative":    {[]any{}, []int{-1}},
		"type":        {[]any{struct{}{}}, []int{1}},
		"bad utf-8":   {[]any{"\xff"}, []int{1}},
		"bad number":  {[]any{json.Number("1.")}, []int{1}},
		"circular":    {[]any{cyclic}, []int{1}},
		"key utf-8":   {[]any{map[string]any{"\xff": 1}}, []int{1}},
		"nested type": {[]any{[]any{complex(1, 2)}}, []int{1}},
	} {
		if _, err := e.EncodeObjects(tt.items, tt.shape); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v, want ErrConfig", name, err)
		}
	}
	strict, _ := Builtin().NewObjectCodec([]byte(`{"id":"json2","allow_nan":false}`))
	if _, err := strict.(ObjectEncoder).EncodeObjects([]any{math.NaN()}, []int{1}); !errors.Is(err, ErrConfig) {
		t.Errorf("NaN with allow_nan false: %v", err)
	}
	for _, config := range []string{`{"id":"json2","indent":2}`, `{"id":"json2","sort_keys":false}`, `{"id":"json2","encoding":"latin-1"}`} {
		oc, err := Builtin().NewObjectCodec([]byte(config))
		if err != nil {
			t.Fatalf("%s no longer builds: %v", config, err)
		}
		if _, err := oc.(ObjectEncoder).EncodeObjects([]any{"a"}, []int{1}); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "json2") {
			t.Errorf("%s: %v, want ErrConfig naming json2", config, err)
		}
	}
}

func TestJSON2Options(t *testing.T) {
	// json.dumps(["é", {"a": 1}, "|O", [2]], ensure_ascii=False, separators=(", ", ": "), sort_keys=True)
	oc, _ := Builtin().NewObjectCodec([]byte(`{"id":"json2","ensure_ascii":false,"separators":[", ",": "]}`))
	got, err := oc.(ObjectEncoder).EncodeObjects([]any{"é\x7f", map[string]any{"a": int64(1)}}, []int{2})
	if want := "[\"é\x7f\", {\"a\": 1}, \"|O\", [2]]"; err != nil || string(got) != want {
		t.Fatalf("%q, %v; want %q", got, err, want)
	}
}

func TestVLenEncode(t *testing.T) {
	// numcodecs VLenUTF8().encode(np.array(['a', None, 0, 'é'], dtype=object)).hex()
	// and VLenBytes().encode(np.array([b'a', None, 0], dtype=object)).hex().
	tests := []struct {
		config string
		items  []any
		want   string
	}{
		{`{"id":"vlen-utf8"}`, []any{"a", nil, int64(0), "é"}, "040000000100000061000000000000000002000000c3a9"},
		{`{"id":"vlen-bytes"}`, []any{[]byte("a"), nil, 0}, "0300000001000000610000000000000000"},
	}
	for _, tt := range tests {
		oc, _ := Builtin().NewObjectCodec([]byte(tt.config))
		got, err := oc.(ObjectEncoder).EncodeObjects(tt.items, []int{len(tt.items)})
		if err != nil || fmt.Sprintf("%x", got) != tt.want {
			t.Errorf("%s: %x, %v; want %s", tt.config, got, err, tt.want)
		}
		if _, err := oc.DecodeObjects(got, len(tt.items)); err != nil {
			t.Errorf("%s: %v", tt.config, err)
		}
	}
	utf8c, _ := Builtin().NewObjectCodec([]byte(`{"id":"vlen-utf8"}`))
	bytesc, _ := Builtin().NewObjectCodec([]byte(`{"id":"vlen-bytes"}`))
	for name, tt := range map[string]struct {
		c     ObjectCodec
		items []any
	}{
		"utf8 int":     {utf8c, []any{1}},
		"utf8 bytes":   {utf8c, []any{[]byte("a")}},
		"utf8 invalid": {utf8c, []any{"\xff"}},
		"bytes string": {bytesc, []any{"a"}},
	} {
		if _, err := tt.c.(ObjectEncoder).EncodeObjects(tt.items, []int{1}); !errors.Is(err, ErrConfig) {
			t.Errorf("%s: %v, want ErrConfig", name, err)
		}
	}
	if _, ok := mustNew(t, `{"id":"vlen-array","dtype":"<i2"}`).(ObjectEncoder); ok {
		t.Error("vlen-array claims to encode")
	}
}

func TestPipelineEncode(t *testing.T) {
	src := signal(200_000)
	p, err := Builtin().Pipeline([]byte(`{"id":"blosc","cname":"zstd","clevel":3}`),
		[][]byte{[]byte(`{"id":"delta","dtype":"<i2"}`), []byte(`{"id":"shuffle","elementsize":2}`)})
	if err != nil {
		t.Fatal(err)
	}
	enc, err := p.Encode([]byte("k"), src, 2)
	if err != nil || enc[0] != 'k' {
		t.Fatal(err)
	}
	got, err := p.Decode(nil, enc[1:], len(src))
	if err != nil || !bytes.Equal(got, src) {
		t.Fatalf("round trip: %v", err)
	}
	comp, filters := p.Configs()
	if string(comp) != `{"blocksize":0,"clevel":3,"cname":"zstd","id":"blosc","shuffle":1}` || len(filters) != 2 ||
		string(filters[0]) != `{"astype":"<i2","dtype":"<i2","id":"delta"}` || string(filters[1]) != `{"elementsize":2,"id":"shuffle"}` {
		t.Fatalf("Configs: %s %s", comp, filters)
	}

	empty, _ := Builtin().Pipeline(nil, nil)
	if out, err := empty.Encode(nil, src[:10], 2); err != nil || !bytes.Equal(out, src[:10]) {
		t.Fatalf("empty pipeline: %v", err)
	}
	if c, f := empty.Configs(); c != nil || f != nil {
		t.Fatalf("empty pipeline Configs: %s %s", c, f)
	}

	readOnly, _ := Builtin().Pipeline([]byte(`{"id":"bz2"}`), [][]byte{[]byte(`{"id":"shuffle","elementsize":2}`)})
	out, err := readOnly.Encode([]byte("k"), src, 2)
	if !errors.Is(err, ErrNoEncoder) || !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "bz2") || string(out) != "k" {
		t.Fatalf("bz2 pipeline: %v (dst %q)", err, out)
	}
	if c, _ := readOnly.Configs(); string(c) != `{"id":"bz2"}` {
		t.Fatalf("decode-only compressor config %s", c)
	}

	refused, _ := Builtin().Pipeline([]byte(`{"id":"zlib","level":12}`), nil)
	if _, err := refused.Encode(nil, src, 2); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "zlib") {
		t.Fatalf("zlib level 12: %v", err)
	}
	if _, err := p.EncodeObjects([]any{"a"}, []int{1}); !errors.Is(err, ErrConfig) {
		t.Fatalf("EncodeObjects without an object codec: %v", err)
	}
}

func TestPipelineEncodeObjects(t *testing.T) {
	const lindi = `{"allow_nan":true,"check_circular":true,"encoding":"utf-8","ensure_ascii":true,"id":"json2","indent":null,"separators":[",",":"],"skipkeys":false,"sort_keys":true,"strict":true}`
	p, err := Builtin().Pipeline([]byte(`{"id":"blosc"}`), [][]byte{[]byte(lindi)})
	if err != nil {
		t.Fatal(err)
	}
	items := []any{"c", int64(0), "\u00e9", int64(0)}
	enc, err := p.EncodeObjects(items, []int{2, 2})
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.DecodeObjects(enc, 4)
	if err != nil || got[0] != "c" || got[2] != "\u00e9" {
		t.Fatalf("round trip: %v %v", got, err)
	}
	if _, err := p.Encode(nil, []byte("x"), 1); !errors.Is(err, ErrConfig) {
		t.Fatalf("Encode on an object pipeline: %v", err)
	}
	comp, filters := p.Configs()
	if string(comp) != `{"blocksize":0,"clevel":5,"cname":"lz4","id":"blosc","shuffle":1}` || len(filters) != 1 || string(filters[0]) != lindi {
		t.Fatalf("Configs: %s %s", comp, filters)
	}
	vlen, _ := Builtin().Pipeline(nil, [][]byte{[]byte(`{"id":"vlen-utf8"}`)})
	enc, err = vlen.EncodeObjects([]any{"x", "yz"}, []int{2})
	if err != nil || fmt.Sprintf("%x", enc) != "02000000010000007802000000797a" {
		t.Fatalf("vlen-utf8 alone: %x %v", enc, err)
	}
	arr, _ := Builtin().Pipeline(nil, [][]byte{[]byte(`{"id":"vlen-array","dtype":"<i2"}`)})
	if _, err := arr.EncodeObjects([]any{[]int16{1}}, []int{1}); !errors.Is(err, ErrNoEncoder) || !strings.Contains(err.Error(), "vlen-array") {
		t.Fatalf("vlen-array: %v", err)
	}
}

// TestPipelineEncodeConcurrent encodes chunks on many goroutines through
// one pipeline, as the write engine does; run with -race.
func TestPipelineEncodeConcurrent(t *testing.T) {
	p, err := Builtin().Pipeline([]byte(`{"id":"blosc","cname":"zstd"}`), [][]byte{[]byte(`{"id":"delta","dtype":"<i2"}`)})
	if err != nil {
		t.Fatal(err)
	}
	src := signal(300_000)
	want, err := p.Encode(nil, src, 2)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			var dst []byte
			for range 5 {
				var err error
				if dst, err = p.Encode(dst[:0], src, 2); err != nil {
					errs <- err
					return
				}
				if !bytes.Equal(dst, want) {
					errs <- fmt.Errorf("goroutine %d: output differs", g)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func TestPipelineEncodeAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items under the race detector")
	}
	p, _ := Builtin().Pipeline([]byte(`{"id":"blosc"}`), [][]byte{[]byte(`{"id":"shuffle","elementsize":2}`)})
	src := signal(1 << 20)
	dst, _ := p.Encode(nil, src, 2)
	allocs := testing.AllocsPerRun(20, func() {
		dst, _ = p.Encode(dst[:0], src, 2)
	})
	if allocs > 1 {
		t.Errorf("%.1f allocations per Encode into a reused buffer, want at most 1", allocs)
	}
}

// TestEmptyMatchesNumcodecs: numcodecs 0.11 encodes b"" (LZ4().encode,
// Zstd(level=3).encode, Blosc().encode) to these bytes, and cannot decode
// any of them; we write the same and decode them.
func TestEmptyMatchesNumcodecs(t *testing.T) {
	for config, want := range map[string]string{
		`{"id":"lz4"}`:            "0000000000",
		`{"id":"zstd","level":3}`: "28b52ffd2000010000",
		`{"id":"blosc"}`:          "02013301000000000100000010000000",
	} {
		c, e := mustEncoder(t, config)
		got, err := e.Encode(nil, nil, 1)
		if err != nil || fmt.Sprintf("%x", got) != want {
			t.Errorf("%s: %x, %v; want %s", config, got, err, want)
		}
		if out, err := c.Decode(nil, got, 0); err != nil || len(out) != 0 {
			t.Errorf("%s: empty frame decodes to %d bytes, %v", config, len(out), err)
		}
	}
}
