package codecs

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
)

// maxObjectBytes bounds the bytes the byte stages of an object pipeline may
// produce, since object chunks have no fixed decoded size.
const maxObjectBytes = 1 << 30

// Pipeline decodes a chunk through a compressor and filters as Zarr v2 does:
// the compressor first, then the filters in reverse order; it encodes the
// other way round, when every stage is an Encoder (or ObjectEncoder). A
// Pipeline is immutable and safe for concurrent use.
type Pipeline struct {
	stages        []Codec     // decode order
	object        ObjectCodec // filters[0] when it is an object codec
	ids           []string    // config order: filters, then the compressor
	configs       [][]byte    // config order, as given
	encoders      []Encoder   // the stages in encode order; nil for decode-only ones
	hasCompressor bool
}

// Pipeline builds the pipeline for a compressor configuration (nil, empty or
// JSON null for none) and filter configurations (nil for none; each element
// may be any codec, compressors included, as LINDI writes whole HDF5
// pipelines as filters). An object codec may only be the first filter; the
// first filter is built as an ObjectCodec when its id has such a constructor
// that accepts the configuration, and as a Codec otherwise.
func (r *Registry) Pipeline(compressor []byte, filters [][]byte) (*Pipeline, error) {
	p := new(Pipeline)
	var encodeOrder []Codec
	for i, f := range filters {
		if i == 0 {
			oc, err := r.NewObjectCodec(f)
			if err == nil {
				p.object = oc
				p.ids = append(p.ids, idOf(f))
				p.configs = append(p.configs, bytes.Clone(f))
				continue
			}
			if !errors.Is(err, ErrWrongClass) {
				return nil, fmt.Errorf("codecs: filter %d: %w", i, err)
			}
		}
		c, err := r.NewCodec(f)
		if i > 0 && errors.Is(err, ErrWrongClass) {
			return nil, fmt.Errorf("%w: object codec %q must be the first filter", ErrConfig, idOf(f))
		}
		if err != nil {
			return nil, fmt.Errorf("codecs: filter %d: %w", i, err)
		}
		p.ids = append(p.ids, idOf(f))
		p.configs = append(p.configs, bytes.Clone(f))
		encodeOrder = append(encodeOrder, c)
	}
	if !isNull(compressor) {
		c, err := r.NewCodec(compressor)
		if errors.Is(err, ErrWrongClass) {
			return nil, fmt.Errorf("%w: compressor %q is an object codec", ErrConfig, idOf(compressor))
		}
		if err != nil {
			return nil, fmt.Errorf("codecs: compressor: %w", err)
		}
		p.ids = append(p.ids, idOf(compressor))
		p.configs = append(p.configs, bytes.Clone(compressor))
		p.hasCompressor = true
		encodeOrder = append(encodeOrder, c)
	}
	for i := len(encodeOrder) - 1; i >= 0; i-- {
		p.stages = append(p.stages, encodeOrder[i])
	}
	for _, c := range encodeOrder {
		e, _ := c.(Encoder)
		p.encoders = append(p.encoders, e)
	}
	return p, nil
}

// idOf returns the id of a configuration a registry has already accepted.
func idOf(config []byte) string {
	id, _ := configID(config)
	return id
}

// Empty reports whether the pipeline has no compressor and no filter, so that
// chunks are stored raw.
func (p *Pipeline) Empty() bool { return len(p.stages) == 0 && p.object == nil }

// IDs returns the codec ids in configuration order: the filters, then the
// compressor. The slice is a copy.
func (p *Pipeline) IDs() []string { return append([]string(nil), p.ids...) }

// Objects reports whether the pipeline ends in an object codec, to be read
// with DecodeObjects.
func (p *Pipeline) Objects() bool { return p.object != nil }

// maxPooledScratch keeps rare huge intermediate buffers out of the pool.
const maxPooledScratch = 64 << 20

// scratch pools intermediate buffers between stages.
var scratch = sync.Pool{New: func() any { return new([]byte) }}

// Decode appends the decoding of src to dst. The decoded chunk must be
// exactly size bytes: more is an error wrapping ErrTooLarge, fewer an error
// wrapping ErrCorrupt, and on error dst is returned with its original length.
// Every intermediate stage is limited to the largest encoding its successor
// can have for size bytes (see SizeBounder). An empty pipeline copies src.
// Decode on a pipeline with an object codec fails with ErrConfig.
func (p *Pipeline) Decode(dst, src []byte, size int) ([]byte, error) {
	if p.object != nil {
		return dst, fmt.Errorf("%w: pipeline ends in an object codec: use DecodeObjects", ErrConfig)
	}
	if size < 0 {
		return dst, fmt.Errorf("%w: negative size %d", ErrConfig, size)
	}
	if len(p.stages) == 0 {
		if len(src) != size {
			return dst, fmt.Errorf("codecs: raw chunk of %d bytes, want %d: %w", len(src), size, ErrCorrupt)
		}
		return append(dst, src...), nil
	}
	var room [8]int
	limits := p.limits(room[:0], size)
	start := len(dst)
	out, err := p.run(dst, src, limits)
	if err != nil {
		return dst[:start], err
	}
	if got := len(out) - start; got != size {
		return dst[:start], fmt.Errorf("codecs: pipeline %v: decoded %d bytes, want %d: %w", p.ids, got, size, ErrCorrupt)
	}
	return out, nil
}

// limits appends to buf the output limit of every stage, the last being
// size (buf lets callers keep the slice on the stack).
func (p *Pipeline) limits(buf []int, size int) []int {
	limits := append(buf[:0], make([]int, len(p.stages))...)
	bound := size
	for i := len(p.stages) - 1; i >= 0; i-- {
		limits[i] = bound
		if b, ok := p.stages[i].(SizeBounder); ok {
			bound = b.MaxEncodedLen(bound)
		}
	}
	return limits
}

// run passes src through the stages, the last appending to dst.
func (p *Pipeline) run(dst, src []byte, limits []int) ([]byte, error) {
	return chain(dst, src, len(p.stages), func(i int, out, in []byte) ([]byte, error) {
		return p.stages[i].Decode(out, in, limits[i])
	})
}

// chain passes src through n stages, step(i, out, in) appending the output
// of stage i to out: the last to dst, the others to two pooled scratch
// buffers in turn.
func chain(dst, src []byte, n int, step func(i int, out, in []byte) ([]byte, error)) ([]byte, error) {
	if n == 0 {
		return append(dst, src...), nil
	}
	var bufs [2]*[]byte
	defer func() {
		for _, b := range bufs {
			if b != nil && cap(*b) <= maxPooledScratch {
				*b = (*b)[:0]
				scratch.Put(b)
			}
		}
	}()
	in := src
	for i := range n - 1 {
		b := bufs[i%2]
		if b == nil {
			b = scratch.Get().(*[]byte)
			bufs[i%2] = b
		}
		out, err := step(i, (*b)[:0], in)
		if out != nil {
			*b = out // keep what the stage grew
		}
		if err != nil {
			return dst, err
		}
		in = out
	}
	return step(n-1, dst, in)
}

// DecodeObjects decodes src through the byte stages and then the object
// codec, which must be the first filter. n is the expected item count, or
// -1 when unknown. The byte stages may produce at most 1 GiB.
func (p *Pipeline) DecodeObjects(src []byte, n int) ([]any, error) {
	if p.object == nil {
		return nil, fmt.Errorf("%w: pipeline %v has no object codec", ErrConfig, p.ids)
	}
	if len(p.stages) == 0 {
		return p.object.DecodeObjects(src, n)
	}
	limits := p.limits(nil, maxObjectBytes)
	buf, err := p.run(nil, src, limits)
	if err != nil {
		return nil, err
	}
	return p.object.DecodeObjects(buf, n)
}
