package hdf5

import (
	"fmt"
	"math/bits"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

// SpaceKind is the kind of a dataspace.
type SpaceKind uint8

// Dataspace kinds.
const (
	SpaceScalar SpaceKind = iota // one element, rank 0
	SpaceSimple                  // an N-dimensional array (N may be 0 elements long)
	SpaceNull                    // no elements at all
)

// String returns "scalar", "simple" or "null".
func (k SpaceKind) String() string {
	switch k {
	case SpaceScalar:
		return "scalar"
	case SpaceSimple:
		return "simple"
	case SpaceNull:
		return "null"
	}
	return fmt.Sprintf("dataspace kind %d", uint8(k))
}

// Unlimited is the MaxDims value of a dimension that may grow without
// bound.
const Unlimited = ^uint64(0)

// maxRank is the largest rank the library allows.
const maxRank = 32

// Dataspace is the shape of a dataset or attribute. Dims is empty for
// scalar and null spaces. MaxDims has one entry per dimension (equal to
// Dims when the file does not store maximum sizes); Unlimited marks an
// unlimited dimension.
type Dataspace struct {
	Kind    SpaceKind
	Dims    []uint64
	MaxDims []uint64
}

// NumElements returns the number of elements: 1 for a scalar, 0 for a null
// space, the product of Dims otherwise.
func (s Dataspace) NumElements() uint64 {
	switch s.Kind {
	case SpaceScalar:
		return 1
	case SpaceNull:
		return 0
	}
	n := uint64(1)
	for _, d := range s.Dims {
		n *= d
	}
	return n
}

// parseDataspace decodes a dataspace message (type 0x0001). It fails when
// the element count overflows 64 bits.
func parseDataspace(b []byte, sizes fileio.Sizes) (Dataspace, error) {
	d := fileio.NewDecoder(b, sizes)
	version, rank, flags := d.Uint8(), int(d.Uint8()), d.Uint8()
	var s Dataspace
	switch version {
	case 1:
		d.Skip(5)
		s.Kind = SpaceSimple
		if rank == 0 {
			s.Kind = SpaceScalar
		}
	case 2:
		s.Kind = SpaceKind(d.Uint8())
		if s.Kind > SpaceNull {
			return s, fmt.Errorf("%w: dataspace type %d", ErrFormat, s.Kind)
		}
	default:
		if d.Err() == nil {
			return s, fmt.Errorf("%w: dataspace version %d", ErrFormat, version)
		}
	}
	if rank > maxRank {
		return s, fmt.Errorf("%w: dataspace rank %d", ErrFormat, rank)
	}
	if s.Kind != SpaceSimple && rank != 0 {
		return s, fmt.Errorf("%w: %s dataspace of rank %d", ErrFormat, s.Kind, rank)
	}
	s.Dims = make([]uint64, rank)
	for i := range s.Dims {
		s.Dims[i] = d.Length()
	}
	s.MaxDims = s.Dims
	if flags&1 != 0 {
		s.MaxDims = make([]uint64, rank)
		for i := range s.MaxDims {
			s.MaxDims[i] = d.Length()
		}
	}
	if err := d.Err(); err != nil {
		return s, fmt.Errorf("dataspace: %w", err)
	}
	n := uint64(1)
	for i, dim := range s.Dims {
		if dim == fileio.Undefined {
			return s, fmt.Errorf("%w: dataspace dimension %d is undefined", ErrFormat, i)
		}
		hi, lo := bits.Mul64(n, dim)
		if hi != 0 {
			return s, fmt.Errorf("%w: dataspace %v has more than 2^64 elements", ErrFormat, s.Dims)
		}
		n = lo
		if s.MaxDims[i] < dim {
			return s, fmt.Errorf("%w: dataspace dimension %d is %d, above its maximum %d", ErrFormat, i, dim, s.MaxDims[i])
		}
	}
	return s, nil
}
