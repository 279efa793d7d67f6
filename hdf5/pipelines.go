package hdf5

import (
	"fmt"
	"sync"

	"github.com/lindigo/lindi/codecs"
	"github.com/lindigo/lindi/hdf5/internal/layout"
)

// maxMasks bounds the pipelines kept per dataset: a file whose chunks
// skip filters in many combinations builds the rest on each use.
const maxMasks = 64

// pipelines builds, once per filter mask, the pipeline that decodes a
// chunk which went through the dataset's filters minus those the mask
// skips. It is safe for concurrent use.
type pipelines struct {
	reg      *codecs.Registry
	filters  []layout.Filter
	elemSize int

	mu     sync.Mutex
	byMask map[uint32]*codecs.Pipeline
}

func newPipelines(reg *codecs.Registry, filters []layout.Filter, elemSize int) *pipelines {
	return &pipelines{reg: reg, filters: filters, elemSize: elemSize, byMask: map[uint32]*codecs.Pipeline{}}
}

// get returns the pipeline for a chunk with the given filter mask: bit i
// set means filter i was skipped. Bits past the last filter are ignored.
func (p *pipelines) get(mask uint32) (*codecs.Pipeline, error) {
	if n := len(p.filters); n < 32 {
		mask &= 1<<n - 1
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if pipe, ok := p.byMask[mask]; ok {
		return pipe, nil
	}
	pipe, err := p.build(mask)
	if err != nil {
		return nil, err
	}
	if len(p.byMask) < maxMasks {
		p.byMask[mask] = pipe
	}
	return pipe, nil
}

func (p *pipelines) build(mask uint32) (*codecs.Pipeline, error) {
	var cfgs [][]byte
	for i, flt := range p.filters {
		if mask&(1<<i) != 0 {
			continue
		}
		cfg, err := flt.Codec(p.elemSize)
		if err != nil {
			return nil, err
		}
		cfgs = append(cfgs, cfg)
	}
	pipe, err := p.reg.Pipeline(nil, cfgs)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnsupported, err)
	}
	return pipe, nil
}
