package codecs

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestRegistry(t *testing.T) {
	t.Run("unknown id is named", func(t *testing.T) {
		_, err := newAny(Builtin(), []byte(`{"id":"nosuchcodec"}`))
		wantErr(t, err, ErrUnknownCodec)
		if !strings.Contains(err.Error(), "nosuchcodec") {
			t.Fatalf("error %q does not name the id", err)
		}
	})
	for _, config := range []string{`{}`, `{"id":""}`, `{"id":3}`, `not json`, `[]`, ``} {
		t.Run("bad config "+config, func(t *testing.T) {
			_, err := newAny(Builtin(), []byte(config))
			wantErr(t, err, ErrConfig)
		})
	}
	t.Run("zero value is empty and usable", func(t *testing.T) {
		var r Registry
		_, err := r.NewCodec([]byte(`{"id":"zlib"}`))
		wantErr(t, err, ErrUnknownCodec)
		if err := r.RegisterCodec("zlib", func([]byte) (Codec, error) { return zlibCodec{}, nil }); err != nil {
			t.Fatal(err)
		}
		if _, err := r.NewCodec([]byte(`{"id":"zlib"}`)); err != nil {
			t.Fatal(err)
		}
		if ids := r.IDs(); len(ids) != 1 || ids[0] != "zlib" {
			t.Fatalf("IDs() = %v", ids)
		}
	})
	t.Run("constructor must return a codec", func(t *testing.T) {
		var r Registry
		r.RegisterCodec("odd", func([]byte) (Codec, error) { return nil, nil })
		r.RegisterObjectCodec("odder", func([]byte) (ObjectCodec, error) { return nil, nil })
		_, err := r.NewCodec([]byte(`{"id":"odd"}`))
		wantErr(t, err, ErrConfig)
		_, err = r.NewObjectCodec([]byte(`{"id":"odder"}`))
		wantErr(t, err, ErrConfig)
		_, err = r.Pipeline(nil, configs(`{"id":"odder"}`))
		wantErr(t, err, ErrConfig)
	})
	t.Run("bad registrations fail", func(t *testing.T) {
		var r Registry
		for name, err := range map[string]error{
			"empty codec id":   r.RegisterCodec("", func([]byte) (Codec, error) { return zlibCodec{}, nil }),
			"nil codec":        r.RegisterCodec("x", nil),
			"empty object id":  r.RegisterObjectCodec("", newJSON2),
			"nil object codec": r.RegisterObjectCodec("x", nil),
		} {
			if err == nil {
				t.Errorf("%s: no error", name)
			}
		}
		if len(r.IDs()) != 0 {
			t.Fatalf("IDs() = %v after failed registrations", r.IDs())
		}
	})
	t.Run("wrong class", func(t *testing.T) {
		_, err := Builtin().NewCodec([]byte(`{"id":"json2"}`))
		wantErr(t, err, ErrWrongClass)
		_, err = Builtin().NewObjectCodec([]byte(`{"id":"zlib"}`))
		wantErr(t, err, ErrWrongClass)
		_, err = Builtin().NewObjectCodec([]byte(`{"id":"categorize","labels":["a"],"dtype":"<U1","astype":"|u1"}`))
		wantErr(t, err, ErrWrongClass)
		_, err = Builtin().NewCodec([]byte(`{"id":"categorize","labels":["a"],"dtype":"|O","astype":"|u1"}`))
		wantErr(t, err, ErrWrongClass)
		if !errors.Is(ErrWrongClass, ErrConfig) {
			t.Fatal("ErrWrongClass does not wrap ErrConfig")
		}
	})
	t.Run("declining constructor without the other class", func(t *testing.T) {
		var r Registry
		r.RegisterObjectCodec("shy", func([]byte) (ObjectCodec, error) { return nil, ErrWrongClass })
		_, err := r.Pipeline(nil, configs(`{"id":"shy"}`))
		wantErr(t, err, ErrWrongClass)
		if strings.Contains(err.Error(), "first filter") {
			t.Fatalf("error %q blames the filter position", err)
		}
	})
	t.Run("builtin is shared and read-only", func(t *testing.T) {
		if a, b := Builtin(), Builtin(); a != b {
			t.Fatal("Builtin returns different registries")
		}
		err := Builtin().RegisterCodec("zlib", func([]byte) (Codec, error) { return nil, nil })
		wantErr(t, err, ErrReadOnly)
		err = Builtin().RegisterObjectCodec("json2", func([]byte) (ObjectCodec, error) { return nil, nil })
		wantErr(t, err, ErrReadOnly)
		if _, err := Builtin().NewCodec([]byte(`{"id":"zlib"}`)); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("new registries are independent", func(t *testing.T) {
		a, b := NewRegistry(), NewRegistry()
		if a == b || a == Builtin() {
			t.Fatal("NewRegistry returned a shared registry")
		}
		if err := a.RegisterCodec("extra", func([]byte) (Codec, error) { return zlibCodec{}, nil }); err != nil {
			t.Fatal(err)
		}
		if _, err := a.NewCodec([]byte(`{"id":"extra"}`)); err != nil {
			t.Fatal(err)
		}
		for _, r := range []*Registry{b, Builtin()} {
			_, err := r.NewCodec([]byte(`{"id":"extra"}`))
			wantErr(t, err, ErrUnknownCodec)
		}
		if fmt.Sprint(b.IDs()) != fmt.Sprint(Builtin().IDs()) {
			t.Fatalf("NewRegistry().IDs() = %v, Builtin().IDs() = %v", b.IDs(), Builtin().IDs())
		}
	})
	t.Run("every built-in is registered", func(t *testing.T) {
		want := []string{"adler32", "astype", "bitround", "blosc", "bz2", "categorize", "crc32", "crc32c",
			"delta", "fixedscaleoffset", "fletcher32", "gzip", "hdf5_bitshuffle_lz4", "hdf5_scaleoffset", "imagecodecs_bitshuffle",
			"imagecodecs_lz4h5", "json", "json2", "lz4", "lzf", "packbits", "pickle",
			"quantize", "shuffle", "vlen-array", "vlen-bytes", "vlen-utf8", "zlib", "zstd"}
		if got := Builtin().IDs(); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("Builtin().IDs() = %v, want %v", got, want)
		}
	})
	t.Run("concurrent register and new", func(t *testing.T) {
		var r Registry
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r.RegisterCodec(fmt.Sprint("c", i), func([]byte) (Codec, error) { return zlibCodec{}, nil })
				r.NewCodec([]byte(`{"id":"c0"}`))
			}()
		}
		wg.Wait()
		if len(r.IDs()) != 8 {
			t.Fatalf("IDs() = %v", r.IDs())
		}
	})
}

func TestPipeline(t *testing.T) {
	data := signal(100_000)
	shuffled := shuffleBytes(data, 2)
	zlibShuffled := encodeZlib(t, shuffled)
	hdf5Style := withChecksum(zlibShuffled, fletcher32(zlibShuffled))
	tests := []struct {
		name       string
		compressor string
		filters    []string
		src        []byte
		size       int
		want       []byte
		wantErr    error
	}{
		{"compressor and filter", `{"id":"zlib","level":1}`, []string{`{"id":"shuffle","elementsize":2}`}, zlibShuffled, len(data), data, nil},
		{"LINDI: whole HDF5 pipeline in filters", "null", []string{`{"id":"shuffle","elementsize":2}`, `{"id":"zlib","level":4}`, `{"id":"fletcher32"}`}, hdf5Style, len(data), data, nil},
		{"no compressor, no filters", "", nil, data, len(data), data, nil},
		{"raw chunk of the wrong size", "", nil, data[:10], 11, nil, ErrCorrupt},
		{"size smaller than the data", `{"id":"zlib"}`, []string{`{"id":"shuffle","elementsize":2}`}, zlibShuffled, len(data) - 2, nil, ErrTooLarge},
		{"size larger than the data", `{"id":"zlib"}`, []string{`{"id":"shuffle","elementsize":2}`}, zlibShuffled, len(data) + 2, nil, ErrCorrupt},
		{"corrupt stage", `{"id":"zlib"}`, []string{`{"id":"shuffle","elementsize":2}`}, zlibShuffled[:100], len(data), nil, ErrCorrupt},
		{"checksum failure", "null", []string{`{"id":"zlib"}`, `{"id":"fletcher32"}`}, flipLast(hdf5Style), len(data), nil, ErrCorrupt},
		{"astype widens", "", []string{`{"id":"astype","encode_dtype":"<i2","decode_dtype":"<f8"}`}, i16s(1, 2), 16, float64s(1, 2), nil},
		{"compressor before astype", `{"id":"zlib"}`, []string{`{"id":"astype","encode_dtype":"|u1","decode_dtype":"<i4"}`}, encodeZlib(t, []byte{1, 2, 3}), 12, i32s(1, 2, 3), nil},
		{"intermediate stage bounded by size", `{"id":"zlib"}`, []string{`{"id":"astype","encode_dtype":"<i2","decode_dtype":"<i4"}`}, encodeZlib(t, make([]byte, 1000)), 12, nil, ErrTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Builtin().Pipeline(compressorConfig(tc.compressor), configs(tc.filters...))
			if err != nil {
				t.Fatal(err)
			}
			dst := []byte{1, 2, 3}
			got, err := p.Decode(dst, tc.src, tc.size)
			wantErr(t, err, tc.wantErr)
			if tc.wantErr != nil {
				if len(got) != len(dst) {
					t.Fatalf("failed Decode returned %d bytes, want the original %d", len(got), len(dst))
				}
				return
			}
			if !bytes.Equal(got[:3], dst) || !bytes.Equal(got[3:], tc.want) {
				t.Fatalf("decoded %d bytes, differing from the %d expected at %d", len(got)-3, len(tc.want), firstDiff(got[3:], tc.want))
			}
		})
	}
}

func TestPipelineShape(t *testing.T) {
	p, err := Builtin().Pipeline([]byte(`{"id":"zstd","level":1}`), configs(`{"id":"delta","dtype":"<i2"}`, `{"id":"shuffle","elementsize":2}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(p.IDs()); got != "[delta shuffle zstd]" {
		t.Errorf("IDs() = %s", got)
	}
	if p.Empty() || p.Objects() {
		t.Errorf("Empty() = %v, Objects() = %v", p.Empty(), p.Objects())
	}
	for _, compressor := range []string{"", "null", " null "} {
		p, err := Builtin().Pipeline([]byte(compressor), nil)
		if err != nil || !p.Empty() {
			t.Errorf("Pipeline(%q, nil): empty %v, err %v", compressor, p != nil && p.Empty(), err)
		}
	}
	p, _ = Builtin().Pipeline(nil, [][]byte{})
	if !p.Empty() || len(p.IDs()) != 0 {
		t.Errorf("empty filters: Empty() = %v, IDs() = %v", p.Empty(), p.IDs())
	}
	bad := []struct {
		name       string
		compressor string
		filters    []string
		err        error
	}{
		{"unknown filter", "", []string{`{"id":"zlib"}`, `{"id":"frobnicate"}`}, ErrUnknownCodec},
		{"unknown compressor", `{"id":"frobnicate"}`, nil, ErrUnknownCodec},
		{"object codec not first", "", []string{`{"id":"zlib"}`, `{"id":"vlen-utf8"}`}, ErrConfig},
		{"object codec as compressor", `{"id":"json2"}`, nil, ErrConfig},
		{"object categorize not first", "", []string{`{"id":"zlib"}`, `{"id":"categorize","labels":["a"],"dtype":"|O","astype":"|u1"}`}, ErrConfig},
		{"object categorize as compressor", `{"id":"categorize","labels":["a"],"dtype":"|O","astype":"|u1"}`, nil, ErrConfig},
		{"bad filter config", "", []string{`{"id":"delta"}`}, ErrConfig},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Builtin().Pipeline(compressorConfig(tc.compressor), configs(tc.filters...))
			wantErr(t, err, tc.err)
		})
	}
}

func TestPipelineObjects(t *testing.T) {
	items := vlen([]byte("alpha"), []byte("beta"))
	p, err := Builtin().Pipeline([]byte(`{"id":"zlib"}`), configs(`{"id":"vlen-utf8"}`))
	if err != nil {
		t.Fatal(err)
	}
	if !p.Objects() {
		t.Fatal("Objects() = false")
	}
	got, err := p.DecodeObjects(encodeZlib(t, items), 2)
	if err != nil || fmt.Sprint(got) != "[alpha beta]" {
		t.Fatalf("DecodeObjects = %v, %v", got, err)
	}
	_, err = p.Decode(nil, encodeZlib(t, items), 100)
	wantErr(t, err, ErrConfig)

	direct, _ := Builtin().Pipeline(nil, configs(`{"id":"json2"}`))
	got, err = direct.DecodeObjects([]byte(`["x","|O",[1]]`), 1)
	if err != nil || fmt.Sprint(got) != "[x]" {
		t.Fatalf("DecodeObjects = %v, %v", got, err)
	}

	bytesOnly, _ := Builtin().Pipeline([]byte(`{"id":"zlib"}`), nil)
	_, err = bytesOnly.DecodeObjects(encodeZlib(t, items), 2)
	wantErr(t, err, ErrConfig)
}

// TestPipelineCategorize builds categorize, registered for both classes, as
// the class its dtype says.
func TestPipelineCategorize(t *testing.T) {
	text, err := Builtin().Pipeline(nil, configs(`{"id":"categorize","labels":["a"],"dtype":"<U1","astype":"|u1"}`))
	if err != nil || text.Objects() {
		t.Fatalf("text categorize: Objects() = %v, err %v", text != nil && text.Objects(), err)
	}
	got, err := text.Decode(nil, []byte{1, 0}, 8)
	if err != nil || fmt.Sprint(got) != "[97 0 0 0 0 0 0 0]" {
		t.Fatalf("Decode = %v, %v", got, err)
	}
	objects, err := Builtin().Pipeline(nil, configs(`{"id":"categorize","labels":["a"],"dtype":"|O","astype":"|u1"}`))
	if err != nil || !objects.Objects() {
		t.Fatalf("object categorize: Objects() = %v, err %v", objects != nil && objects.Objects(), err)
	}
	items, err := objects.DecodeObjects([]byte{1, 0}, 2)
	if err != nil || fmt.Sprintf("%q", items) != `["a" ""]` {
		t.Fatalf("DecodeObjects = %q, %v", items, err)
	}
	_, err = Builtin().Pipeline(nil, configs(`{"id":"categorize","labels":["a"],"dtype":"<f8","astype":"|u1"}`))
	wantErr(t, err, ErrConfig)
}

// TestPipelineConcurrent decodes from many goroutines through one pipeline
// (run with -race).
func TestPipelineConcurrent(t *testing.T) {
	data := signal(300_000)
	encs := map[string][]byte{
		`{"id":"zstd"}`: encodeZstd(t, shuffleBytes(data, 2), true),
		`{"id":"zlib"}`: encodeZlib(t, shuffleBytes(data, 2)),
		`{"id":"lz4"}`:  encodeLZ4(t, shuffleBytes(data, 2)),
	}
	for compressor, enc := range encs {
		p, err := Builtin().Pipeline([]byte(compressor), configs(`{"id":"shuffle","elementsize":2}`))
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 4 {
					got, err := p.Decode(nil, enc, len(data))
					if err == nil && !bytes.Equal(got, data) {
						err = errors.New("wrong data")
					}
					if err != nil {
						errs <- fmt.Errorf("%s: %w", compressor, err)
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	}
}

// TestLimitsDerived checks the bound each stage gets from the final size.
func TestLimitsDerived(t *testing.T) {
	p, err := Builtin().Pipeline(nil, configs(`{"id":"astype","encode_dtype":"|u1","decode_dtype":"<f8"}`, `{"id":"zlib"}`, `{"id":"crc32"}`))
	if err != nil {
		t.Fatal(err)
	}
	// Decode order: crc32, zlib, astype. astype's input is size/8 bytes;
	// zlib's input at most compressBound(size/8); crc32 adds nothing to
	// its own output.
	got := p.limits(nil, 800)
	want := []int{compressBound(100), 100, 800}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("limits(800) = %v, want %v", got, want)
	}
}

// configs turns JSON texts into filter configurations.
func configs(ss ...string) [][]byte {
	var out [][]byte
	for _, s := range ss {
		out = append(out, []byte(s))
	}
	return out
}

// compressorConfig is nil for "" (no compressor).
func compressorConfig(s string) []byte {
	if s == "" {
		return nil
	}
	return []byte(s)
}
