package inflate

import (
	"bytes"
	"compress/flate"
	"errors"
	"io"
	"testing"
)

// stdInflate decodes raw DEFLATE with the standard library, the reference
// the decoder here must agree with byte for byte.
func stdInflate(src []byte) ([]byte, error) {
	return io.ReadAll(flate.NewReader(bytes.NewReader(src)))
}

func deflate(tb testing.TB, raw []byte, level int) []byte {
	var buf bytes.Buffer
	w, err := flate.NewWriter(&buf, level)
	if err != nil {
		tb.Fatal(err)
	}
	w.Write(raw)
	w.Close()
	return buf.Bytes()
}

func TestInflateLevels(t *testing.T) {
	raw, _ := zlibChunk(t)
	inputs := map[string][]byte{
		"noisy":  raw[:200_000],
		"zeros":  make([]byte, 100_000),
		"text":   bytes.Repeat([]byte("the quick brown fox jumps over the lazy dog. "), 3000),
		"short":  []byte("a"),
		"empty":  nil,
		"period": bytes.Repeat([]byte{1, 2, 3, 4, 5, 6, 7}, 5000),
	}
	for name, in := range inputs {
		for _, level := range []int{flate.NoCompression, flate.HuffmanOnly, 1, 6, 9} {
			enc := deflate(t, in, level)
			got, n, err := Inflate(nil, enc, len(in))
			if err != nil || !bytes.Equal(got, in) || n != len(enc) {
				t.Errorf("%s level %d: %d bytes, took %d of %d, err %v", name, level, len(got), n, len(enc), err)
			}
			// Into a buffer of exactly the size, and into one too small
			// to start with.
			exact := make([]byte, 0, len(in))
			if got, _, err := Inflate(exact, enc, len(in)); err != nil || !bytes.Equal(got, in) {
				t.Errorf("%s level %d exact: err %v", name, level, err)
			}
			if got, _, err := Inflate(make([]byte, 3, 5), enc, len(in)); err != nil || !bytes.Equal(got[3:], in) {
				t.Errorf("%s level %d small: err %v", name, level, err)
			}
			if len(in) > 0 {
				if _, _, err := Inflate(nil, enc, len(in)-1); !errors.Is(err, ErrTooLarge) {
					t.Errorf("%s level %d: limit %d gave %v", name, level, len(in)-1, err)
				}
			}
			for _, cut := range []int{len(enc) / 2, len(enc) - 1} {
				if cut < 0 || cut >= len(enc) {
					continue
				}
				if _, _, err := Inflate(nil, enc[:cut], len(in)); err == nil {
					t.Errorf("%s level %d cut at %d: no error", name, level, cut)
				}
			}
		}
	}
}

// TestInflateWindow checks that Inflate writes nothing past dst's length
// plus the limit, even when dst's capacity goes on: the engine decodes into
// windows of a larger output.
func TestInflateWindow(t *testing.T) {
	raw, _ := zlibChunk(t)
	raw = raw[:100_000]
	enc := deflate(t, raw, 6)
	big := make([]byte, 2*len(raw))
	for i := range big {
		big[i] = 0xAA
	}
	got, _, err := Inflate(big[:0], enc, len(raw))
	if err != nil || !bytes.Equal(got, raw) {
		t.Fatal(err)
	}
	for i, b := range big[len(raw):] {
		if b != 0xAA {
			t.Fatalf("byte %d past the limit written", len(raw)+i)
		}
	}
}

func TestInflateTrailing(t *testing.T) {
	enc := deflate(t, []byte("hello, hello, hello"), 9)
	got, n, err := Inflate(nil, append(bytes.Clone(enc), "tail"...), 100)
	if err != nil || string(got) != "hello, hello, hello" || n != len(enc) {
		t.Fatalf("%q %d %v", got, n, err)
	}
}

// FuzzInflate is the differential test: on any input, Inflate and the
// standard library's decoder both fail, or both give the same bytes.
func FuzzInflate(f *testing.F) {
	raw, _ := zlibChunk(f)
	for _, level := range []int{0, -2, 1, 6, 9} {
		f.Add(deflate(f, raw[:3000], level))
		f.Add(deflate(f, bytes.Repeat([]byte("abcab"), 300), level))
	}
	img, _ := imageChunk(f)
	f.Add(deflate(f, img[:6000], 1)) // literals that pair (pairsPay)
	f.Add([]byte{})
	f.Add([]byte{0x03, 0x00})
	f.Fuzz(func(t *testing.T, src []byte) {
		const limit = 1 << 20
		want, werr := stdInflate(src)
		got, n, err := Inflate(nil, src, limit)
		if werr == nil && len(want) > limit {
			if !errors.Is(err, ErrTooLarge) {
				t.Fatalf("%d bytes over the limit: err %v", len(want), err)
			}
			return
		}
		if (err == nil) != (werr == nil) {
			t.Fatalf("error %v, standard library %v", err, werr)
		}
		if err == nil {
			if !bytes.Equal(got, want) {
				t.Fatalf("decoded %d bytes, standard library %d, differing", len(got), len(want))
			}
			r := bytes.NewReader(src)
			io.Copy(io.Discard, flate.NewReader(r))
			if used := len(src) - r.Len(); n != used {
				t.Fatalf("took %d bytes of input, standard library %d", n, used)
			}
		}
	})
}

// TestInflatePairs decodes streams whose literals pair (camera-like images
// with a few bits of noise) and streams whose literals do not, at each
// level, into buffers that fit, buffers that must grow, and limits just
// short of the output.
func TestInflatePairs(t *testing.T) {
	img, _ := imageChunk(t)
	noisy := noisyInt16(40 << 10)
	for _, c := range []struct {
		name string
		raw  []byte
		pays bool
	}{{"image", img, true}, {"noisy", noisy, false}} {
		for _, level := range []int{1, 6, 9, -2} {
			src := deflate(t, c.raw, level)
			got, n, err := Inflate(make([]byte, 0, len(c.raw)), src, len(c.raw))
			if err != nil || !bytes.Equal(got, c.raw) || n != len(src) {
				t.Fatalf("%s level %d: %d bytes (err %v), want %d", c.name, level, len(got), err, len(c.raw))
			}
			if got, _, err = Inflate(make([]byte, 3, 10), src, len(c.raw)); err != nil || !bytes.Equal(got[3:], c.raw) {
				t.Fatalf("%s level %d, growing: err %v", c.name, level, err)
			}
			for short := 1; short <= 3; short++ {
				if _, _, err := Inflate(nil, src, len(c.raw)-short); !errors.Is(err, ErrTooLarge) {
					t.Fatalf("%s level %d, limit %d short: err %v, want ErrTooLarge", c.name, level, short, err)
				}
			}
		}
		// Whether the first dynamic block's code pairs, from its lengths.
		d := new(decoder)
		d.in = deflate(t, c.raw, 1)
		if err := d.need(3); err != nil || d.bits>>1&3 != 2 {
			t.Fatalf("%s: first block is not dynamic", c.name)
		}
		d.consume(3)
		if err := d.dynamic(); err != nil {
			t.Fatal(err)
		}
		if got := pairsPay(d.lens[:256]); got != c.pays {
			t.Errorf("%s: pairsPay = %v, want %v", c.name, got, c.pays)
		}
	}
}
