package codecs

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Zarr v3 names its codecs and configures them its own way. V3Config maps a
// bytes→bytes codec of a v3 chain onto the numcodecs configuration of the
// same codec in this package's registry, so that v3 arrays decode through
// the one registry; Transpose is v3's array→array codec, and Zarr3Pipeline
// puts the pieces together.

// bloscShuffles maps the v3 blosc codec's shuffle names onto numcodecs'
// numbers.
var bloscShuffles = map[string]int64{"noshuffle": 0, "shuffle": 1, "bitshuffle": 2}

// V3Config returns the numcodecs configuration of the Zarr v3 bytes→bytes
// codec name with configuration cfg (decoded JSON): gzip, zstd, blosc (its
// v3 configuration, shuffle by name), crc32c, and the numcodecs.* names
// (numcodecs.zlib, numcodecs.shuffle, numcodecs.fletcher32, …), whose
// configurations are numcodecs' own. Another name is an error wrapping
// ErrUnknownCodec that names it.
func V3Config(name string, cfg map[string]any) ([]byte, error) {
	out := map[string]any{}
	switch name {
	case "gzip", "zstd":
		out["id"] = name
		if l, ok := cfg["level"]; ok {
			out["level"] = l
		}
	case "crc32c":
		out["id"] = name
	case "blosc":
		out["id"] = name
		for _, k := range []string{"cname", "clevel", "blocksize"} {
			if v, ok := cfg[k]; ok {
				out[k] = v
			}
		}
		if s, ok := cfg["shuffle"]; ok {
			name, _ := s.(string)
			n, ok := bloscShuffles[name]
			if !ok {
				return nil, errConfig("blosc", "shuffle %v is not noshuffle, shuffle or bitshuffle", s)
			}
			out["shuffle"] = n
		}
	default:
		id, ok := strings.CutPrefix(name, "numcodecs.")
		if !ok || id == "" {
			return nil, fmt.Errorf("%w: Zarr v3 codec %q", ErrUnknownCodec, name)
		}
		for k, v := range cfg {
			out[k] = v
		}
		out["id"] = id
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, errConfig(name, "configuration: %v", err)
	}
	return b, nil
}

// Zarr3Pipeline builds the decoding pipeline of a Zarr v3 codec chain whose
// array→bytes codec the caller has interpreted: object is the numcodecs
// configuration of an object codec standing for it (vlen-utf8), or nil;
// bytesCodecs are the chain's bytes→bytes codecs in chain order, as
// numcodecs configurations (see V3Config); post, when non-nil, runs last
// when decoding, after every other stage: the inverse of the chain's
// array→array codecs (Transpose), named postID in IDs.
func (r *Registry) Zarr3Pipeline(object []byte, bytesCodecs [][]byte, post Codec, postID string) (*Pipeline, error) {
	var filters [][]byte
	if object != nil {
		filters = append(filters, object)
	}
	filters = append(filters, bytesCodecs...)
	p, err := r.Pipeline(nil, filters)
	if err != nil {
		return nil, err
	}
	if post != nil {
		if p.object != nil {
			return nil, fmt.Errorf("%w: %s on an object array", ErrConfig, postID)
		}
		p.stages = append(p.stages, post)
		p.ids = append([]string{postID}, p.ids...)
		p.configs = append([][]byte{[]byte(fmt.Sprintf(`{"id":%q}`, postID))}, p.configs...)
		p.encoders = append([]Encoder{nil}, p.encoders...)
	}
	return p, nil
}

// transposeCodec undoes Zarr v3's transpose codec on chunks of one shape:
// the stored chunk is numpy.transpose(chunk, order) in C order.
type transposeCodec struct {
	shape   []int // the decoded chunk's shape
	strides []int // for each decoded axis, its stride in the stored chunk, in items
	item    int
	n       int // bytes in a chunk
}

// Transpose returns the codec that turns chunks of shape shape (items of
// itemSize bytes) stored as numpy.transpose(chunk, order) back into C order.
// order must be a permutation of the axes.
func Transpose(shape, order []int, itemSize int) (Codec, error) {
	k := len(shape)
	if len(order) != k || itemSize <= 0 {
		return nil, errConfig("transpose", "order %v for a %d-dimensional chunk", order, k)
	}
	seen := make([]bool, k)
	for _, a := range order {
		if a < 0 || a >= k || seen[a] {
			return nil, errConfig("transpose", "order %v is not a permutation of %d axes", order, k)
		}
		seen[a] = true
	}
	// Stored axis j is decoded axis order[j]; its C-order stride is the
	// product of the stored extents after j.
	strides := make([]int, k)
	s := 1
	for j := k - 1; j >= 0; j-- {
		strides[order[j]] = s
		s *= shape[order[j]]
	}
	return &transposeCodec{shape: slices.Clone(shape), strides: strides, item: itemSize, n: s * itemSize}, nil
}

func (t *transposeCodec) Decode(dst, src []byte, limit int) ([]byte, error) {
	if t.n > limit {
		return dst, errTooLarge("transpose", limit)
	}
	if len(src) != t.n {
		return dst, errCorrupt("transpose", "chunk of %d bytes, want %d", len(src), t.n)
	}
	start := len(dst)
	dst = slices.Grow(dst, t.n)[:start+t.n]
	out := dst[start:]
	k := len(t.shape)
	if t.n == 0 {
		return dst, nil
	}
	if k == 0 {
		copy(out, src)
		return dst, nil
	}
	idx := make([]int, k)
	last := k - 1
	inner, step := t.shape[last], t.strides[last]*t.item
	off := 0 // the stored offset of idx, in items
	for o := 0; o < t.n; {
		s := off * t.item
		for i := 0; i < inner; i++ {
			copy(out[o:o+t.item], src[s:s+t.item])
			o += t.item
			s += step
		}
		// Advance the axes before the last, odometer style.
		a := last - 1
		for ; a >= 0; a-- {
			idx[a]++
			off += t.strides[a]
			if idx[a] < t.shape[a] {
				break
			}
			off -= idx[a] * t.strides[a]
			idx[a] = 0
		}
		if a < 0 {
			break
		}
	}
	return dst, nil
}
