package codecs

import (
	"encoding/json"
	"fmt"
)

// ErrNoEncoder is wrapped by the errors of Pipeline.Encode and
// Pipeline.EncodeObjects for a stage whose codec decodes only (bz2, lzf,
// fixedscaleoffset, ...); the error names the codec id. It wraps ErrConfig.
var ErrNoEncoder = fmt.Errorf("%w: codec cannot encode", ErrConfig)

// Encode appends the encoding of src to dst: the filters in configuration
// order, then the compressor, each stage given itemSize (the array's
// element size, which blosc records as its typesize). An empty pipeline
// copies src. On error dst is returned with its original length; a stage
// that cannot encode fails with an error wrapping ErrNoEncoder that names
// it. Intermediate buffers come from a pool, so the output is the only
// allocation once the pool is warm. Encode on a pipeline with an object
// codec fails with ErrConfig.
func (p *Pipeline) Encode(dst, src []byte, itemSize int) ([]byte, error) {
	if p.object != nil {
		return dst, fmt.Errorf("%w: pipeline ends in an object codec: use EncodeObjects", ErrConfig)
	}
	return p.encodeBytes(dst, src, itemSize, 0)
}

// EncodeObjects encodes items, one chunk of the given shape in C order,
// with the object codec (the first filter) and then the byte stages, as
// Zarr does for object arrays. The byte stages see an item size of 1: the
// object codec's output is bytes. A pipeline without an object codec fails
// with ErrConfig, one whose object codec cannot encode with ErrNoEncoder.
func (p *Pipeline) EncodeObjects(items []any, shape []int) ([]byte, error) {
	if p.object == nil {
		return nil, fmt.Errorf("%w: pipeline %v has no object codec", ErrConfig, p.ids)
	}
	enc, ok := p.object.(ObjectEncoder)
	if !ok {
		return nil, p.noEncoder(0)
	}
	buf, err := enc.EncodeObjects(items, shape)
	if err != nil || len(p.stages) == 0 {
		return buf, err
	}
	return p.encodeBytes(nil, buf, 1, 1)
}

// encodeBytes runs the byte stages in encode order (the reverse of
// p.stages); first is the index in p.ids of the first of them.
func (p *Pipeline) encodeBytes(dst, src []byte, itemSize, first int) ([]byte, error) {
	for i, e := range p.encoders {
		if e == nil {
			return dst, p.noEncoder(first + i)
		}
	}
	return chain(dst, src, len(p.encoders), func(i int, out, in []byte) ([]byte, error) {
		got, err := p.encoders[i].Encode(out, in, itemSize)
		if err != nil {
			return out, err // out as it was: dst[:len(dst)] for the last
		}
		return got, nil
	})
}

// noEncoder reports that the stage at config index i cannot encode.
func (p *Pipeline) noEncoder(i int) error {
	return &codecError{id: p.ids[i], detail: "decodes only", kind: ErrNoEncoder}
}

// Configs returns the configurations to store in a .zarray: the
// compressor's (nil when the pipeline has none, stored as null) and the
// filters' in order (nil when there are none). A codec that encodes gives
// its Config; one that does not is given as configured, keys sorted. The
// slices are the caller's; the messages must not be modified.
func (p *Pipeline) Configs() (compressor json.RawMessage, filters []json.RawMessage) {
	off := 0 // config index of the first byte stage
	if p.object != nil {
		off = 1
	}
	for i, raw := range p.configs {
		var c json.RawMessage
		if i < off {
			c = configOf(p.object, raw)
		} else {
			c = configOf(p.stages[len(p.stages)-1-(i-off)], raw)
		}
		if p.hasCompressor && i == len(p.configs)-1 {
			compressor = c
		} else {
			filters = append(filters, c)
		}
	}
	return compressor, filters
}

// configOf is codec's Config when it encodes, else its configuration raw
// with sorted keys.
func configOf(codec any, raw []byte) json.RawMessage {
	switch c := codec.(type) {
	case Encoder:
		return c.Config()
	case ObjectEncoder:
		return c.Config()
	}
	return compactConfig(raw)
}
