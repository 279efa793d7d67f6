package codecs

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Codec decodes one numcodecs encoding of fixed-size data. Implementations
// are safe for concurrent use.
type Codec interface {
	// Decode appends the decoding of src to dst and returns the extended
	// slice. limit is the most bytes the decoding may produce; producing more
	// is an error wrapping ErrTooLarge, detected before anything beyond limit
	// is allocated. Corrupt input is an error naming the codec id that wraps
	// ErrCorrupt. On error the returned slice has the length of dst (bytes
	// beyond it may have been written). Decode never retains src or dst.
	Decode(dst, src []byte, limit int) ([]byte, error)
}

// ObjectCodec decodes encodings of object arrays (vlen-utf8, vlen-bytes,
// vlen-array, json2, json, categorize with an object dtype) into items.
// Implementations are safe for concurrent use.
type ObjectCodec interface {
	// DecodeObjects decodes src into items in the order the encoder wrote
	// them (C order for json2, whose nested lists are flattened). Text items
	// are string, byte items []byte, vlen-array items typed slices ([]int16,
	// []float64, ...). JSON values are nil, bool, string, []any,
	// map[string]any and json.Number for every number (encoding/json's
	// UseNumber semantics, so int64 values stay exact); the bare tokens NaN,
	// Infinity and -Infinity become json.Number("NaN") and so on, which
	// Float64 parses. n is the expected item count, or -1 when unknown; a
	// different count is an error wrapping ErrCorrupt.
	DecodeObjects(src []byte, n int) ([]any, error)
}

// SizeBounder is implemented by codecs whose encoded size may differ from the
// decoded size. A Pipeline uses it to bound every intermediate stage by the
// size the caller expects. A codec that does not implement it is assumed to
// keep the size unchanged (shuffle, delta).
type SizeBounder interface {
	// MaxEncodedLen returns the largest encoding this codec can produce for
	// decodedLen bytes of decoded data.
	MaxEncodedLen(decodedLen int) int
}

// ErrUnknownCodec is wrapped by errors for a codec id that no registry entry
// matches.
var ErrUnknownCodec = errors.New("codecs: unknown codec")

// ErrCorrupt is wrapped by errors for encoded data that cannot be decoded:
// truncated, malformed, or failing a checksum.
var ErrCorrupt = errors.New("codecs: corrupt data")

// ErrTooLarge is wrapped by errors for data that decodes to more bytes than
// the caller allowed.
var ErrTooLarge = errors.New("codecs: decoded data too large")

// ErrConfig is wrapped by errors for a codec configuration that is malformed
// or asks for something this package does not support.
var ErrConfig = errors.New("codecs: bad codec configuration")

// codecError names the codec that failed and the reason; it unwraps to one
// of the sentinels (and to a cause, when there is one).
type codecError struct {
	id     string
	detail string
	kind   error
	cause  error
}

func (e *codecError) Error() string {
	msg := "codecs: " + e.id + ": " + e.detail
	if e.cause != nil {
		msg += ": " + e.cause.Error()
	}
	return msg
}

func (e *codecError) Unwrap() []error {
	if e.cause != nil {
		return []error{e.kind, e.cause}
	}
	return []error{e.kind}
}

// errCorrupt reports malformed input to codec id.
func errCorrupt(id, format string, args ...any) error {
	return &codecError{id: id, detail: fmt.Sprintf(format, args...), kind: ErrCorrupt}
}

// wrapCorrupt reports malformed input to codec id detected by a dependency.
func wrapCorrupt(id string, cause error) error {
	return &codecError{id: id, detail: "corrupt data", kind: ErrCorrupt, cause: cause}
}

// errTooLarge reports output of codec id beyond limit bytes.
func errTooLarge(id string, limit int) error {
	return &codecError{id: id, detail: fmt.Sprintf("decoded data exceeds the limit of %d bytes", limit), kind: ErrTooLarge}
}

// errConfig reports an unusable configuration of codec id.
func errConfig(id, format string, args ...any) error {
	return &codecError{id: id, detail: fmt.Sprintf(format, args...), kind: ErrConfig}
}

// Encoder is implemented by codecs that can also encode. A registry holds one
// constructor per id for both directions: a writer builds the codec from its
// configuration as a reader does and asserts Encoder; a codec that decodes
// only does not implement it. A configuration that decodes but cannot be
// encoded with (zlib level 10, blosc's snappy or bit shuffle) still builds;
// Encode then fails with an error wrapping ErrConfig that names the codec.
// Implementations are safe for concurrent use.
type Encoder interface {
	// Encode appends the encoding of src to dst and returns the extended
	// slice. itemSize is the size in bytes of one element of the array the
	// chunk belongs to (blosc's typesize); src's length is a multiple of it.
	// The result decodes to src exactly, through this package's decoder and
	// through numcodecs 0.11's. Encode never retains src or dst; on error
	// it returns dst with its original length.
	Encode(dst, src []byte, itemSize int) ([]byte, error)

	// Config returns the codec's configuration as a .zarray stores it: the
	// minimal form numcodecs 0.11's get_codec accepts, with the defaults
	// numcodecs fills in made explicit, keys sorted, no spaces (for blosc
	// {"blocksize":0,"clevel":5,"cname":"lz4","id":"blosc","shuffle":1},
	// without the typesize 0.11 rejects; for zstd no checksum). The caller
	// must not modify it.
	Config() json.RawMessage
}

// ObjectEncoder is implemented by object codecs that can also encode
// (vlen-utf8, vlen-bytes, json2). Implementations are safe for concurrent
// use.
type ObjectEncoder interface {
	// EncodeObjects encodes items, one chunk of an object array of the given
	// chunk shape in C order, as numcodecs would (json2 appends the dtype
	// "|O" and the shape). Items are the values DecodeObjects gives, and
	// int64, uint64 and float64 for JSON numbers; vlen-utf8 and vlen-bytes
	// write nil and 0 (zarr's fill value) as empty items, as numcodecs does.
	// len(items) must be the product of shape.
	EncodeObjects(items []any, shape []int) ([]byte, error)

	// Config returns the codec's configuration as Encoder.Config does.
	Config() json.RawMessage
}
