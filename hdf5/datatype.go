package hdf5

import (
	"encoding/binary"
	"fmt"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

// Class is an HDF5 datatype class.
type Class uint8

// The datatype classes of the HDF5 format.
const (
	ClassFixed     Class = 0  // integers
	ClassFloat     Class = 1  // floating point
	ClassTime      Class = 2  // time (never written by current libraries)
	ClassString    Class = 3  // fixed-length strings
	ClassBitfield  Class = 4  // bit fields
	ClassOpaque    Class = 5  // uninterpreted bytes with a tag
	ClassCompound  Class = 6  // structures
	ClassReference Class = 7  // object and region references
	ClassEnum      Class = 8  // enumerations over an integer base
	ClassVlen      Class = 9  // variable-length sequences and strings
	ClassArray     Class = 10 // fixed-size arrays of a base type
)

var classNames = [...]string{"fixed-point", "floating-point", "time", "string", "bitfield",
	"opaque", "compound", "reference", "enum", "variable-length", "array"}

// String returns the class's name as the specification spells it.
func (c Class) String() string {
	if int(c) < len(classNames) {
		return classNames[c]
	}
	return fmt.Sprintf("class %d", uint8(c))
}

// StringPad says how a fixed-length string fills its unused bytes.
type StringPad uint8

// String padding types.
const (
	PadNullTerm  StringPad = 0 // ends at the first NUL; the rest is undefined
	PadNullPad   StringPad = 1 // padded with NULs
	PadSpacePad  StringPad = 2 // padded with spaces (Fortran style)
	maxStringPad           = PadSpacePad
)

// Charset is the character set of a string datatype.
type Charset uint8

// Character sets.
const (
	CharsetASCII Charset = 0
	CharsetUTF8  Charset = 1
)

// RefKind is the kind of a reference datatype.
type RefKind uint8

// Reference kinds.
const (
	RefObject RefKind = 0 // the address of an object header
	RefRegion RefKind = 1 // a dataset region stored in the global heap
)

// Field is one member of a compound datatype.
type Field struct {
	Name   string
	Offset uint32 // byte offset of the member in the element
	Type   *Datatype
}

// EnumMember is one name/value pair of an enum datatype.
type EnumMember struct {
	Name  string
	Value []byte // the value in the base type's size and byte order
}

// Datatype describes the type of a dataset's or attribute's elements. A
// Datatype is immutable once parsed and may be shared between goroutines.
//
// Which fields are set depends on Class: BigEndian for fixed-point,
// floating-point, bitfield, time and enum (through Base); Signed, BitOffset
// and Precision for fixed-point and bitfield; the Exp*/Mant* fields for
// floating-point; Pad and Charset for strings (fixed and variable-length);
// Fields for compounds; Base and Members for enums; Base and Dims for
// arrays; Base, VlenString, Pad and Charset for variable-length types;
// Ref for references; Tag for opaque types.
type Datatype struct {
	Class     Class
	Version   uint8  // datatype message version (1 to 4)
	Size      uint32 // bytes per element
	BigEndian bool
	Signed    bool
	BitOffset uint16
	Precision uint16 // significant bits

	ExpLocation, ExpSize   uint8
	MantLocation, MantSize uint8
	ExpBias                uint32

	Pad     StringPad
	Charset Charset

	Fields     []Field
	Members    []EnumMember
	Base       *Datatype
	Dims       []uint32
	VlenString bool
	Ref        RefKind
	Tag        string

	// Committed is the object header address of the committed (named)
	// datatype a dataset's or attribute's type is, as h5py's
	// get_type().committed(); 0 for a type of its own. File.PathOf names it.
	Committed uint64
}

// maxTypeDepth bounds the nesting of compound, enum, array and vlen types:
// real files nest a few levels, hostile ones could recurse without end.
const maxTypeDepth = 32

// maxArrayRank bounds the rank of an array datatype.
const maxArrayRank = 32

// parseDatatype decodes a datatype message body (or an embedded datatype)
// at the decoder's cursor.
func parseDatatype(d *fileio.Decoder, depth int) (*Datatype, error) {
	if depth > maxTypeDepth {
		return nil, fmt.Errorf("%w: datatype nested deeper than %d levels", ErrFormat, maxTypeDepth)
	}
	cv := d.Uint8()
	b0, b1, b2 := d.Uint8(), d.Uint8(), d.Uint8()
	size := d.Uint32()
	if err := d.Err(); err != nil {
		return nil, fmt.Errorf("datatype: %w", err)
	}
	t := &Datatype{Class: Class(cv & 0x0f), Version: cv >> 4, Size: size}
	bits := uint32(b0) | uint32(b1)<<8 | uint32(b2)<<16
	if t.Version < 1 || t.Version > 4 {
		return nil, fmt.Errorf("%w: datatype version %d", ErrFormat, t.Version)
	}
	var err error
	switch t.Class {
	case ClassFixed, ClassBitfield:
		err = t.parseFixed(d, bits)
	case ClassFloat:
		err = t.parseFloat(d, bits)
	case ClassTime:
		t.BigEndian = bits&1 != 0
		t.Precision = d.Uint16()
	case ClassString:
		err = t.parseStringBits(bits)
	case ClassOpaque:
		t.Tag = cString(d.Bytes(int(bits & 0xff)))
		if nt := t.numpyTagged(); nt != nil {
			t = nt
		}
	case ClassCompound:
		err = t.parseCompound(d, bits, depth)
	case ClassReference:
		t.Ref = RefKind(bits & 0x0f)
		if t.Version >= 4 || t.Ref > RefRegion {
			err = fmt.Errorf("%w: reference datatype version %d type %d (HDF5 1.12 references)",
				ErrUnsupported, t.Version, t.Ref)
		}
	case ClassEnum:
		err = t.parseEnum(d, bits, depth)
	case ClassVlen:
		err = t.parseVlen(d, bits, depth)
	case ClassArray:
		err = t.parseArray(d, depth)
	default:
		err = fmt.Errorf("%w: datatype class %d", ErrFormat, t.Class)
	}
	if err == nil {
		err = d.Err()
	}
	if err != nil {
		return nil, fmt.Errorf("%s datatype: %w", t.Class, err)
	}
	return t, nil
}

func (t *Datatype) parseFixed(d *fileio.Decoder, bits uint32) error {
	t.BigEndian = bits&1 != 0
	t.Signed = bits&8 != 0
	t.BitOffset = d.Uint16()
	t.Precision = d.Uint16()
	if t.Size == 0 || t.Size > 16 {
		return fmt.Errorf("%w: integer size %d bytes", ErrFormat, t.Size)
	}
	return nil
}

func (t *Datatype) parseFloat(d *fileio.Decoder, bits uint32) error {
	switch bits&1 | (bits>>5)&2 {
	case 0:
	case 1:
		t.BigEndian = true
	default:
		return fmt.Errorf("%w: VAX byte order", ErrUnsupported)
	}
	t.BitOffset = d.Uint16()
	t.Precision = d.Uint16()
	t.ExpLocation, t.ExpSize = d.Uint8(), d.Uint8()
	t.MantLocation, t.MantSize = d.Uint8(), d.Uint8()
	t.ExpBias = d.Uint32()
	if t.Size == 0 || t.Size > 16 {
		return fmt.Errorf("%w: float size %d bytes", ErrFormat, t.Size)
	}
	return nil
}

func (t *Datatype) parseStringBits(bits uint32) error {
	t.Pad = StringPad(bits & 0x0f)
	t.Charset = Charset(bits >> 4 & 0x0f)
	if t.Pad > maxStringPad {
		return fmt.Errorf("%w: string padding type %d", ErrFormat, t.Pad)
	}
	return nil
}

func (t *Datatype) parseCompound(d *fileio.Decoder, bits uint32, depth int) error {
	n := int(bits & 0xffff)
	// Each member takes at least two bytes (a name and an 8-byte type
	// header would be more): a count beyond the bytes left is a lie.
	if n > d.Len() {
		return fmt.Errorf("%w: %d compound members in %d bytes", ErrFormat, n, d.Len())
	}
	t.Fields = make([]Field, 0, n)
	for i := range n {
		f, err := t.parseMember(d, depth)
		if err != nil {
			return fmt.Errorf("member %d: %w", i, err)
		}
		if uint64(f.Offset)+uint64(f.Type.Size) > uint64(t.Size) {
			return fmt.Errorf("%w: member %q at offset %d size %d overflows %d-byte compound",
				ErrFormat, f.Name, f.Offset, f.Type.Size, t.Size)
		}
		t.Fields = append(t.Fields, f)
	}
	return nil
}

func (t *Datatype) parseMember(d *fileio.Decoder, depth int) (Field, error) {
	var f Field
	if t.Version >= 3 {
		f.Name = readCString(d)
		f.Offset = uint32(d.Uint(offsetWidth(t.Size)))
	} else {
		f.Name = readPaddedName(d)
		f.Offset = d.Uint32()
	}
	var dims []uint32
	if t.Version == 1 {
		rank := int(d.Uint8())
		d.Skip(3 + 4 + 4) // reserved, permutation, reserved
		all := [4]uint32{d.Uint32(), d.Uint32(), d.Uint32(), d.Uint32()}
		if rank > 4 {
			return f, fmt.Errorf("%w: compound member rank %d > 4", ErrFormat, rank)
		}
		dims = all[:rank]
	}
	if err := d.Err(); err != nil {
		return f, err
	}
	mt, err := parseDatatype(d, depth+1)
	if err != nil {
		return f, err
	}
	if len(dims) > 0 {
		mt, err = arrayOf(mt, dims)
		if err != nil {
			return f, err
		}
	}
	f.Type = mt
	return f, nil
}

// arrayOf builds the array datatype a version 1 compound member with
// dimensions stands for.
func arrayOf(base *Datatype, dims []uint32) (*Datatype, error) {
	n := uint64(base.Size)
	for _, d := range dims {
		n *= uint64(d)
		if n > 1<<32-1 {
			return nil, fmt.Errorf("%w: array of %v × %d bytes is too large", ErrFormat, dims, base.Size)
		}
	}
	return &Datatype{Class: ClassArray, Version: 2, Size: uint32(n), Base: base, Dims: dims}, nil
}

// offsetWidth is the byte width of a version 3 compound member offset: the
// fewest bytes that can hold the compound's size.
func offsetWidth(size uint32) int {
	switch {
	case size < 1<<8:
		return 1
	case size < 1<<16:
		return 2
	case size < 1<<24:
		return 3
	}
	return 4
}

func (t *Datatype) parseEnum(d *fileio.Decoder, bits uint32, depth int) error {
	n := int(bits & 0xffff)
	base, err := parseDatatype(d, depth+1)
	if err != nil {
		return err
	}
	if base.Class != ClassFixed && base.Class != ClassBitfield {
		return fmt.Errorf("%w: enum over %s base", ErrFormat, base.Class)
	}
	if base.Size != t.Size {
		return fmt.Errorf("%w: %d-byte enum over a %d-byte base", ErrFormat, t.Size, base.Size)
	}
	if n > d.Len() {
		return fmt.Errorf("%w: %d enum members in %d bytes", ErrFormat, n, d.Len())
	}
	t.Base = base
	t.BigEndian = base.BigEndian
	t.Signed = base.Signed
	t.Members = make([]EnumMember, n)
	for i := range t.Members {
		if t.Version >= 3 {
			t.Members[i].Name = readCString(d)
		} else {
			t.Members[i].Name = readPaddedName(d)
		}
	}
	for i := range t.Members {
		t.Members[i].Value = d.Bytes(int(base.Size))
	}
	return d.Err()
}

func (t *Datatype) parseVlen(d *fileio.Decoder, bits uint32, depth int) error {
	switch bits & 0x0f {
	case 0:
	case 1:
		t.VlenString = true
	default:
		return fmt.Errorf("%w: variable-length type %d", ErrFormat, bits&0x0f)
	}
	t.Pad = StringPad(bits >> 4 & 0x0f)
	t.Charset = Charset(bits >> 8 & 0x0f)
	base, err := parseDatatype(d, depth+1)
	if err != nil {
		return err
	}
	t.Base = base
	return nil
}

func (t *Datatype) parseArray(d *fileio.Decoder, depth int) error {
	if t.Version < 2 {
		return fmt.Errorf("%w: array datatype version %d", ErrFormat, t.Version)
	}
	rank := int(d.Uint8())
	if rank == 0 || rank > maxArrayRank {
		return fmt.Errorf("%w: array rank %d", ErrFormat, rank)
	}
	if t.Version == 2 {
		d.Skip(3)
	}
	t.Dims = make([]uint32, rank)
	for i := range t.Dims {
		t.Dims[i] = d.Uint32()
	}
	if t.Version == 2 {
		d.Skip(4 * rank) // permutation indices, never used
	}
	if err := d.Err(); err != nil {
		return err
	}
	base, err := parseDatatype(d, depth+1)
	if err != nil {
		return err
	}
	t.Base = base
	n := uint64(base.Size)
	for _, k := range t.Dims {
		n *= uint64(k)
		if n > uint64(t.Size) {
			break
		}
	}
	if n != uint64(t.Size) {
		return fmt.Errorf("%w: array %v of %d-byte elements in a %d-byte type", ErrFormat, t.Dims, base.Size, t.Size)
	}
	return nil
}

// readPaddedName reads a NUL-terminated name padded with NULs to a
// multiple of eight bytes (compound and enum names before version 3).
func readPaddedName(d *fileio.Decoder) string {
	start := d.Pos()
	s := readCString(d)
	n := d.Pos() - start
	if pad := (8 - n%8) % 8; pad > 0 {
		d.Skip(min(pad, d.Len()))
	}
	return s
}

// readCString reads a NUL-terminated string and consumes the NUL.
func readCString(d *fileio.Decoder) string {
	start := d.Pos()
	rest := d.Rest()
	for i, c := range rest {
		if c == 0 {
			d.Seek(start + i + 1)
			return string(rest[:i])
		}
	}
	d.Fail(fmt.Errorf("%w: string not terminated", fileio.ErrShort))
	return ""
}

// cString returns b up to its first NUL.
func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// IsBool reports whether t is the enum h5py writes for numpy bool: a
// one-byte integer base with exactly the members FALSE = 0 and TRUE = 1.
func (t *Datatype) IsBool() bool {
	if t.Class != ClassEnum || t.Base == nil || t.Base.Size != 1 || len(t.Members) != 2 {
		return false
	}
	m0, m1 := t.Members[0], t.Members[1]
	return m0.Name == "FALSE" && m0.Value[0] == 0 && m1.Name == "TRUE" && m1.Value[0] == 1
}

// EnumValues maps the names of an enum datatype to their values, as h5py's
// check_enum_dtype does; nil for other datatypes, for h5py's bool enum
// (which reads as bool) and for an enum whose base is wider than 8 bytes.
func (t *Datatype) EnumValues() map[string]int64 {
	if t.Class != ClassEnum || t.IsBool() || t.Base == nil || t.Base.Size > 8 {
		return nil
	}
	out := make(map[string]int64, len(t.Members))
	for _, m := range t.Members {
		if len(m.Value) != int(t.Base.Size) {
			return nil
		}
		var buf [8]byte
		var v uint64
		if t.Base.BigEndian {
			copy(buf[8-len(m.Value):], m.Value)
			v = binary.BigEndian.Uint64(buf[:])
		} else {
			copy(buf[:], m.Value)
			v = binary.LittleEndian.Uint64(buf[:])
		}
		if shift := 64 - 8*uint(len(m.Value)); t.Base.Signed {
			out[m.Name] = int64(v<<shift) >> shift
		} else {
			out[m.Name] = int64(v)
		}
	}
	return out
}
