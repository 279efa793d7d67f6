package codecs

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"
)

// TestTranspose checks the transpose codec against the definition: stored
// element e, of the transposed shape in C order, is decoded element c with
// c[order[j]] = e[j].
func TestTranspose(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 200 {
		k := 1 + trial%5
		shape := make([]int, k)
		n := 1
		for i := range shape {
			shape[i] = 1 + rng.IntN(5)
			n *= shape[i]
		}
		order := rng.Perm(k)
		item := []int{1, 2, 4, 8}[trial%4]
		stored := make([]byte, n*item)
		for i := range stored {
			stored[i] = byte(rng.IntN(256))
		}
		// Brute force: walk the decoded elements in C order.
		want := make([]byte, 0, n*item)
		tshape := make([]int, k)
		for j, a := range order {
			tshape[j] = shape[a]
		}
		c := make([]int, k)
		for range n {
			e := 0
			for j := range k {
				e = e*tshape[j] + c[order[j]]
			}
			want = append(want, stored[e*item:(e+1)*item]...)
			for a := k - 1; a >= 0; a-- {
				if c[a]++; c[a] < shape[a] {
					break
				}
				c[a] = 0
			}
		}
		codec, err := Transpose(shape, order, item)
		if err != nil {
			t.Fatal(err)
		}
		got, err := codec.Decode([]byte("x"), stored, n*item)
		if err != nil || !bytes.Equal(got[1:], want) || got[0] != 'x' {
			t.Fatalf("shape %v order %v item %d: %v", shape, order, item, err)
		}
		if _, err := codec.Decode(nil, stored, n*item-1); !errors.Is(err, ErrTooLarge) {
			t.Fatalf("limit: %v", err)
		}
		if _, err := codec.Decode(nil, stored[1:], n*item); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("short: %v", err)
		}
	}
	for _, order := range [][]int{{0, 0}, {0, 2}, {0}, {-1, 0}} {
		if _, err := Transpose([]int{2, 3}, order, 1); !errors.Is(err, ErrConfig) {
			t.Errorf("order %v: %v", order, err)
		}
	}
}

func TestV3Config(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  map[string]any
		want string
	}{
		{"gzip", map[string]any{"level": int64(5)}, `{"id":"gzip","level":5}`},
		{"zstd", map[string]any{"level": int64(3), "checksum": true}, `{"id":"zstd","level":3}`},
		{"crc32c", map[string]any{}, `{"id":"crc32c"}`},
		{"blosc", map[string]any{"cname": "lz4", "clevel": int64(5), "shuffle": "bitshuffle", "typesize": int64(2), "blocksize": int64(0)},
			`{"blocksize":0,"clevel":5,"cname":"lz4","id":"blosc","shuffle":2}`},
		{"numcodecs.shuffle", map[string]any{"elementsize": int64(4)}, `{"elementsize":4,"id":"shuffle"}`},
		{"numcodecs.zlib", map[string]any{"level": int64(4), "id": "ignored"}, `{"id":"zlib","level":4}`},
	} {
		got, err := V3Config(tc.name, tc.cfg)
		if err != nil || string(got) != tc.want {
			t.Errorf("%s: %s, %v; want %s", tc.name, got, err, tc.want)
		}
		if _, err := builtin().NewCodec(got); err != nil {
			t.Errorf("%s: the registry refuses %s: %v", tc.name, got, err)
		}
	}
	for _, name := range []string{"mystery", "numcodecs."} {
		if _, err := V3Config(name, nil); !errors.Is(err, ErrUnknownCodec) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := V3Config("blosc", map[string]any{"shuffle": "twice"}); !errors.Is(err, ErrConfig) {
		t.Errorf("blosc shuffle twice: %v", err)
	}
}

func TestZarr3Pipeline(t *testing.T) {
	tr, err := Transpose([]int{2, 3}, []int{1, 0}, 1)
	if err != nil {
		t.Fatal(err)
	}
	p, err := builtin().Zarr3Pipeline(nil, [][]byte{[]byte(`{"id":"crc32c"}`)}, tr, "transpose")
	if err != nil {
		t.Fatal(err)
	}
	if ids := p.IDs(); len(ids) != 2 || ids[0] != "transpose" || ids[1] != "crc32c" {
		t.Errorf("ids %v", ids)
	}
	// Stored: the transpose (3×2) of [[0 1 2] [3 4 5]], then its crc32c.
	stored := []byte{0, 3, 1, 4, 2, 5}
	framed := binary.LittleEndian.AppendUint32(append([]byte(nil), stored...), crc32cSum(stored))
	got, err := p.Decode(nil, framed, 6)
	if err != nil || !bytes.Equal(got, []byte{0, 1, 2, 3, 4, 5}) {
		t.Errorf("decoded %v, %v", got, err)
	}
	if _, err := builtin().Zarr3Pipeline([]byte(`{"id":"vlen-utf8"}`), nil, tr, "transpose"); !errors.Is(err, ErrConfig) {
		t.Errorf("transpose of strings: %v", err)
	}
}
