package hdf5

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

// Attribute is one attribute of an object, its value decoded into Go.
//
// Value maps the stored elements as follows. Integers become int64 (signed)
// or uint64 (unsigned and bitfields), floats (16, 32 and 64 bits) float64,
// strings (fixed-length with their padding removed, or variable-length)
// string, h5py's bool enum bool, other enums their base integer, object
// references ObjectRef, opaque elements []byte (those h5py tagged as a
// numpy datetime64 or timedelta64, int64 counts of their unit, which the
// type's NumpyTag names), compound elements a
// map[string]any of their members decoded the same way, and
// variable-length sequences a typed slice of their base elements
// ([]int64, []float64, …). A scalar
// dataspace gives one such value (int64, float64, string, …); a simple
// dataspace gives a slice ([]int64, []uint64, []float64, []string, []bool,
// []ObjectRef, [][]byte, []map[string]any, []any for sequences) holding
// the elements in C order,
// with Shape giving the dimensions (so an N-d attribute is its flat slice
// plus Shape); a null dataspace gives nil. An array datatype adds its
// dimensions to Shape and always gives the flat slice of its base
// elements, even in a scalar dataspace (an array member of a compound is
// such a slice too).
//
// Err is non-nil when the value could not be decoded (a region reference,
// a time datatype); Value is then nil and Raw still holds the stored bytes.
type Attribute struct {
	Name  string
	Type  *Datatype
	Space Dataspace
	Shape []uint64 // Space.Dims; nil for scalar and null spaces
	Value any
	Raw   []byte // the stored elements (heap IDs for variable-length types)
	Err   error
}

// attrInfo is the attribute info message (type 0x0015).
type attrInfo struct {
	heapAddr  uint64
	nameIndex uint64
}

func parseAttrInfo(b []byte, sizes fileio.Sizes) (attrInfo, error) {
	d := fileio.NewDecoder(b, sizes)
	var ai attrInfo
	if v := d.Uint8(); d.Err() == nil && v != 0 {
		return ai, fmt.Errorf("%w: attribute info message version %d", ErrFormat, v)
	}
	if flags := d.Uint8(); flags&1 != 0 {
		d.Uint16() // maximum creation index
	}
	ai.heapAddr = d.Offset()
	ai.nameIndex = d.Offset()
	if err := d.Err(); err != nil {
		return ai, fmt.Errorf("attribute info message: %w", err)
	}
	return ai, nil
}

// attrs reads and decodes the attributes of the object at addr, sorted by
// name.
func (f *File) attrs(ctx context.Context, addr uint64, path string) ([]*Attribute, error) {
	h, err := f.header(ctx, addr)
	if err != nil {
		return nil, fmt.Errorf("hdf5: attributes of %s: %w", path, err)
	}
	var bodies [][]byte
	for _, m := range h.all(msgAttribute) {
		b, err := f.body(ctx, m)
		if err != nil {
			return nil, fmt.Errorf("hdf5: attributes of %s: %w", path, err)
		}
		bodies = append(bodies, b)
	}
	if m, ok := h.first(msgAttrInfo); ok {
		ai, err := parseAttrInfo(m.body, f.r.Sizes())
		if err != nil {
			return nil, fmt.Errorf("hdf5: attributes of %s: %w", path, err)
		}
		if !fileio.IsUndefined(ai.heapAddr) {
			dense, err := f.denseAttrs(ctx, ai)
			if err != nil {
				return nil, fmt.Errorf("hdf5: attributes of %s: %w", path, err)
			}
			bodies = append(bodies, dense...)
		}
	}
	attrs := make([]*Attribute, 0, len(bodies))
	for _, b := range bodies {
		a, err := f.parseAttribute(ctx, b)
		if err != nil {
			return nil, fmt.Errorf("hdf5: attributes of %s: %w", path, err)
		}
		a.Value, a.Err = f.decodeValue(ctx, a.Type, a.Space, a.Raw)
		if a.Err != nil {
			a.Err = fmt.Errorf("hdf5: attribute %q of %s: %w", a.Name, path, a.Err)
		}
		attrs = append(attrs, a)
	}
	slices.SortFunc(attrs, func(a, b *Attribute) int { return strings.Compare(a.Name, b.Name) })
	return attrs, nil
}

// parseAttribute decodes an attribute message (type 0x000C), versions 1 to
// 3, leaving the value undecoded.
func (f *File) parseAttribute(ctx context.Context, b []byte) (*Attribute, error) {
	d := fileio.NewDecoder(b, f.r.Sizes())
	version, flags := d.Uint8(), d.Uint8()
	nameLen, typeLen, spaceLen := int(d.Uint16()), int(d.Uint16()), int(d.Uint16())
	if version == 3 {
		d.Uint8() // name character set
	}
	if err := d.Err(); err != nil {
		return nil, fmt.Errorf("attribute message: %w", err)
	}
	if version < 1 || version > 3 {
		return nil, fmt.Errorf("%w: attribute message version %d", ErrFormat, version)
	}
	field := func(n int) []byte {
		p := d.Bytes(n)
		if version == 1 {
			d.Skip(min((8-n%8)%8, d.Len()))
		}
		return p
	}
	name, typ, space := field(nameLen), field(typeLen), field(spaceLen)
	if err := d.Err(); err != nil {
		return nil, fmt.Errorf("attribute message: %w", err)
	}
	a := &Attribute{Name: cString(name)}
	var err error
	var tflags uint8
	if flags&1 != 0 {
		tflags = msgFlagShared
	}
	if a.Type, err = f.datatype(ctx, message{typ: msgDatatype, flags: tflags, body: typ}); err != nil {
		return nil, fmt.Errorf("attribute %q: %w", a.Name, err)
	}
	if flags&2 != 0 {
		if space, err = f.body(ctx, message{typ: msgDataspace, flags: msgFlagShared, body: space}); err != nil {
			return nil, fmt.Errorf("attribute %q: %w", a.Name, err)
		}
	}
	if a.Space, err = parseDataspace(space, f.r.Sizes()); err != nil {
		return nil, fmt.Errorf("attribute %q: %w", a.Name, err)
	}
	if a.Space.Kind == SpaceSimple {
		a.Shape = a.Space.Dims
	}
	if a.Type.Class == ClassArray && a.Space.Kind != SpaceNull {
		a.Shape = slices.Clone(a.Shape)
		for _, d := range a.Type.Dims {
			a.Shape = append(a.Shape, uint64(d))
		}
	}
	n := a.Space.NumElements()
	if a.Type.Size > 0 && n > uint64(d.Len())/uint64(a.Type.Size) {
		return nil, fmt.Errorf("%w: attribute %q holds %d bytes for %d elements of %d bytes",
			ErrFormat, a.Name, d.Len(), n, a.Type.Size)
	}
	a.Raw = bytes.Clone(d.Bytes(int(n * uint64(a.Type.Size))))
	return a, d.Err()
}

// datatype parses the datatype message m, following it to the committed
// datatype it shares when it is shared.
func (f *File) datatype(ctx context.Context, m message) (*Datatype, error) {
	b, err := f.body(ctx, m)
	if err != nil {
		return nil, err
	}
	t, err := parseDatatype(fileio.NewDecoder(b, f.r.Sizes()), 0)
	if err != nil || m.flags&msgFlagShared == 0 {
		return t, err
	}
	// A datatype shared through an object header is a committed one; one
	// in the shared message heap is not.
	if addr, heapID, err := f.sharedAddr(m); err == nil && heapID == nil {
		t.Committed = addr
	}
	return t, nil
}
