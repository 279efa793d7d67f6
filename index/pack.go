package index

import (
	"encoding/json"
	"fmt"
	"sync"

	"github.com/lindigo/lindi/codecs"
)

// packers are the compressors an inline chunk may take: blosc-zstd at
// clevel 5 (smaller than 9 on NWB's cached specifications, and four times
// faster) with and without byte shuffle, and Python lindi's own blosc-lz4
// (better on short JSON text). Blosc, as Python lindi
// uses: a frame that declares its length, because Python lindi pads a
// numeric chunk shorter than the chunk's bytes with zeros before decoding
// it (a bare zstd frame then fails to decode).
var packers = sync.OnceValues(func() ([]codecs.Encoder, error) {
	var out []codecs.Encoder
	for _, config := range []string{
		`{"id":"blosc","cname":"zstd","clevel":5,"shuffle":1}`,
		`{"id":"blosc","cname":"zstd","clevel":5,"shuffle":0}`,
		`{"id":"blosc","cname":"lz4","clevel":5,"shuffle":1}`,
	} {
		c, err := codecs.Builtin().NewCodec([]byte(config))
		if err != nil {
			return nil, err
		}
		e, ok := c.(codecs.Encoder)
		if !ok {
			return nil, fmt.Errorf("index: blosc cannot encode")
		}
		out = append(out, e)
	}
	return out, nil
})

// packed is an inline chunk as stored: its ref and the compressor that
// undoes it (nil: none).
type packed struct {
	ref        string
	compressor json.RawMessage
}

// pack stores chunk inline as the shortest of its raw bytes and its blosc
// encodings (packers), measured as JSON text with the compressor's
// configuration: Python lindi compresses every inline chunk with blosc-lz4
// (16 bytes of header even for four bytes of data), so taking the shortest
// keeps each chunk no larger than Python lindi's. itemSize is blosc's
// typesize: the elements' size, 4 for a fixed-width string's UTF-32
// characters.
func pack(chunk []byte, itemSize int) (packed, error) {
	best := packed{ref: inlineRef(chunk)}
	if len(chunk) < 32 {
		return best, nil // shorter than a blosc header and its config
	}
	encs, err := packers()
	if err != nil {
		return best, err
	}
	cost := jsonLen(best.ref)
	for _, e := range encs {
		enc, err := e.Encode(nil, chunk, itemSize)
		if err != nil {
			return best, err
		}
		p := packed{ref: inlineRef(enc), compressor: e.Config()}
		if c := jsonLen(p.ref) + len(p.compressor); c < cost {
			best, cost = p, c
		}
	}
	return best, nil
}

// jsonLen is the length of s as a JSON string, escaped as Python's json
// module and this package's writer escape it (control characters as \u00XX
// but for the five short escapes, quotes and backslashes doubled).
func jsonLen(s string) int {
	n := 2
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f':
			n += 2
		case c < 0x20:
			n += 6
		default:
			n++
		}
	}
	return n
}
