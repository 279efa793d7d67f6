package codecs

import (
	"encoding/json"

	"github.com/lindigo/lindi/codecs/internal/compress"
)

// deflateParams is the configuration zlib and gzip share: a level, which
// only encoding uses (decoding never fails on it).
type deflateParams struct {
	level  int
	err    error // why Encode cannot use the configuration
	config json.RawMessage
}

// parseDeflate reads the level of a zlib or gzip configuration; numcodecs
// defaults it to 1.
func parseDeflate(id string, config []byte) deflateParams {
	p, err := parseParams(id, config)
	var d deflateParams
	if err == nil {
		d.level, err = p.int("level", 1)
	}
	if err == nil {
		if e := compress.CheckDeflateLevel(d.level); e != nil {
			err = errConfig(id, "level %d: want -1 to 9", d.level)
		}
	}
	d.err = err
	if err != nil {
		d.config = compactConfig(config)
	} else {
		d.config = configJSON(map[string]any{"id": id, "level": d.level})
	}
	return d
}

func newZlib(config []byte) (Codec, error) { return zlibCodec{parseDeflate("zlib", config)}, nil }
func newGzip(config []byte) (Codec, error) { return gzipCodec{parseDeflate("gzip", config)}, nil }

// Encode writes a zlib stream: levels 4 to 6 (and the default, -1) with
// klauspost/compress's lazy matcher, which compresses as well as zlib does
// there at 1.3 to 5 times the standard library's speed (on the ephys-like
// samples lindi-bench put writes, 1.389× at 80 MB/s a core against the
// standard library's 1.385× at 40 to 54 MB/s and C zlib's 1.362× at
// 29 MB/s), the other levels with the standard library's compress/zlib;
// see compress.Zlib and BenchmarkDeflateCorpora in internal/compress.
func (c zlibCodec) Encode(dst, src []byte, _ int) ([]byte, error) {
	return deflateEncode("zlib", c.deflateParams, compress.Zlib, dst, src)
}

// Config returns {"id":"zlib","level":n}.
func (c zlibCodec) Config() json.RawMessage { return c.config }

// Encode writes one gzip member with no name and a zero modification time,
// so that equal chunks encode to equal bytes (Python's gzip stamps the time).
func (c gzipCodec) Encode(dst, src []byte, _ int) ([]byte, error) {
	return deflateEncode("gzip", c.deflateParams, compress.Gzip, dst, src)
}

// Config returns {"id":"gzip","level":n}.
func (c gzipCodec) Config() json.RawMessage { return c.config }

func deflateEncode(id string, p deflateParams, enc func(dst, src []byte, level int) ([]byte, error), dst, src []byte) ([]byte, error) {
	if p.err != nil {
		return dst, p.err
	}
	if p.config == nil {
		return dst, errConfig(id, "codec built without a configuration cannot encode")
	}
	out, err := enc(dst, src, p.level)
	if err != nil {
		return dst, &codecError{id: id, detail: "encode", kind: ErrConfig, cause: err}
	}
	return out, nil
}
