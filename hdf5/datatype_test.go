package hdf5

import (
	"encoding/binary"
	"errors"
	"reflect"
	"testing"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

// dt builds a datatype message: class/version byte, three bit-field bytes,
// the size and the properties.
func dt(classVersion byte, b0, b1, b2 byte, size uint32, props ...[]byte) []byte {
	b := []byte{classVersion, b0, b1, b2}
	b = binary.LittleEndian.AppendUint32(b, size)
	for _, p := range props {
		b = append(b, p...)
	}
	return b
}

func le16(v ...uint16) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint16(b, x)
	}
	return b
}

func le32(v ...uint32) []byte {
	var b []byte
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, x)
	}
	return b
}

var (
	i32  = dt(0x10, 0x08, 0, 0, 4, le16(0, 32))
	f64  = dt(0x11, 0x20, 63, 0, 8, le16(0, 64), []byte{52, 11, 0, 52}, le32(1023))
	char = dt(0x13, 0x00, 0, 0, 1)
)

func TestParseDatatype(t *testing.T) {
	tests := []struct {
		name  string
		msg   []byte
		descr string // NumpyDescr, or "" when it must fail
		check func(*Datatype) bool
	}{
		{"int32", i32, "<i4", func(d *Datatype) bool { return d.Signed && d.Precision == 32 }},
		{"uint16 big-endian", dt(0x10, 0x01, 0, 0, 2, le16(0, 16)), ">u2", nil},
		{"int8", dt(0x10, 0x08, 0, 0, 1, le16(0, 8)), "|i1", nil},
		{"3-byte uint: numpy has none", dt(0x10, 0x00, 0, 0, 3, le16(0, 24)), "|V3", nil},
		{"6-byte int", dt(0x10, 0x08, 0, 0, 6, le16(0, 48)), "|V6", nil},
		{"float64", f64, "<f8", func(d *Datatype) bool { return d.ExpBias == 1023 && d.MantSize == 52 }},
		{"float32 big-endian", dt(0x11, 0x21, 31, 0, 4, le16(0, 32), []byte{23, 8, 0, 23}, le32(127)), ">f4", nil},
		{"float16", dt(0x11, 0x20, 15, 0, 2, le16(0, 16), []byte{10, 5, 0, 10}, le32(15)), "<f2", nil},
		{"bitfield big-endian", dt(0x14, 0x01, 0, 0, 2, le16(0, 16)), ">u2", nil},
		{"string utf-8 null-padded", dt(0x13, 0x11, 0, 0, 5), "|S5",
			func(d *Datatype) bool { return d.Pad == PadNullPad && d.Charset == CharsetUTF8 }},
		{"opaque with tag", dt(0x15, 8, 0, 0, 4, []byte("abc\x00\x00\x00\x00\x00")), "|V4",
			func(d *Datatype) bool { return d.Tag == "abc" }},
		{"opaque h5py datetime64", dt(0x15, 16, 0, 0, 8, []byte("NUMPY:<M8[s]\x00\x00\x00\x00")), "<M8[s]", nil},
		{"opaque h5py timedelta64 big-endian", dt(0x15, 16, 0, 0, 8, []byte("NUMPY:>m8[ns]\x00\x00\x00")), ">m8[ns]", nil},
		{"opaque NUMPY tag of the wrong size", dt(0x15, 16, 0, 0, 4, []byte("NUMPY:<M8[s]\x00\x00\x00\x00")), "|V4", nil},
		// h5py reads an opaque type tagged with bytes, an integer or a float as that dtype.
		{"opaque NUMPY tag of an integer", dt(0x15, 16, 0, 0, 8, []byte("NUMPY:<i8\x00\x00\x00\x00\x00\x00\x00")), "<i8", nil},
		{"opaque NUMPY tag of bytes", dt(0x15, 16, 0, 0, 21, []byte("NUMPY:|S21\x00\x00\x00\x00\x00\x00")), "|S21", nil},
		{"opaque NUMPY tag of a float", dt(0x15, 16, 0, 0, 4, []byte("NUMPY:>f4\x00\x00\x00\x00\x00\x00\x00")), ">f4", nil},
		{"opaque NUMPY tag of an integer of the wrong size", dt(0x15, 16, 0, 0, 4, []byte("NUMPY:<i8\x00\x00\x00\x00\x00\x00\x00")), "|V4", nil},
		{"opaque NUMPY tag of a compound", dt(0x15, 16, 0, 0, 8, []byte("NUMPY:[('a',\x00\x00\x00\x00")), "|V8", nil},
		{"object reference", dt(0x17, 0, 0, 0, 8), "|O", func(d *Datatype) bool { return d.Ref == RefObject }},
		{"region reference", dt(0x17, 1, 0, 0, 12), "|O", func(d *Datatype) bool { return d.Ref == RefRegion }},
		{"vlen string", dt(0x19, 0x01, 0x01, 0, 16, char), "|O",
			func(d *Datatype) bool { return d.VlenString && d.Charset == CharsetUTF8 && d.Base.Class == ClassString }},
		{"vlen sequence", dt(0x19, 0x00, 0, 0, 16, i32), "|O", func(d *Datatype) bool { return !d.VlenString }},
		{"array v3 at top level", dt(0x3a, 0, 0, 0, 24, []byte{2}, le32(2, 3), i32), "",
			func(d *Datatype) bool { return reflect.DeepEqual(d.Dims, []uint32{2, 3}) }},
		{"array v2", dt(0x2a, 0, 0, 0, 12, []byte{1, 0, 0, 0}, le32(3), le32(0), i32), "",
			func(d *Datatype) bool { return reflect.DeepEqual(d.Dims, []uint32{3}) }},
		{"enum v3", dt(0x38, 2, 0, 0, 1, dt(0x10, 0x08, 0, 0, 1, le16(0, 8)), []byte("A\x00B\x00"), []byte{1, 2}), "|i1",
			func(d *Datatype) bool { return len(d.Members) == 2 && d.Members[1].Name == "B" && !d.IsBool() }},
		{"bool enum v1", dt(0x18, 2, 0, 0, 1, dt(0x10, 0x08, 0, 0, 1, le16(0, 8)),
			[]byte("FALSE\x00\x00\x00TRUE\x00\x00\x00\x00"), []byte{0, 1}), "|b1", (*Datatype).IsBool},
		{"compound v3", dt(0x36, 2, 0, 0, 12, []byte("x\x00\x00"), i32, []byte("y\x00\x04"), f64),
			`[["x","<i4"],["y","<f8"]]`, nil},
		{"compound v1 with a dimensioned member", dt(0x16, 1, 0, 0, 12,
			[]byte("a\x00\x00\x00\x00\x00\x00\x00"), le32(0), []byte{1, 0, 0, 0}, le32(0, 0, 3, 0, 0, 0), i32),
			`[["a","<i4",[3]]]`, nil},
		{"compound v2 with a gap", dt(0x26, 2, 0, 0, 16,
			[]byte("x\x00\x00\x00\x00\x00\x00\x00"), le32(0), i32, []byte("y\x00\x00\x00\x00\x00\x00\x00"), le32(8), f64),
			`[["x","<i4"],["","|V4"],["y","<f8"]]`, nil},
		{"compound v2 with leading and trailing padding", dt(0x26, 1, 0, 0, 12,
			[]byte("x\x00\x00\x00\x00\x00\x00\x00"), le32(4), i32),
			`[["","|V4"],["x","<i4"],["","|V4"]]`, nil},
		{"compound v2 with overlapping members", dt(0x26, 2, 0, 0, 16,
			[]byte("x\x00\x00\x00\x00\x00\x00\x00"), le32(0), i32, []byte("y\x00\x00\x00\x00\x00\x00\x00"), le32(2), f64),
			"", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := parseDatatype(fileio.NewDecoder(tc.msg, fileio.Sizes{OffsetSize: 8, LengthSize: 8}), 0)
			if err != nil {
				t.Fatal(err)
			}
			descr, err := d.NumpyDescr()
			if tc.descr == "" {
				if !errors.Is(err, ErrUnsupported) {
					t.Errorf("NumpyDescr = %q, %v; want ErrUnsupported", descr, err)
				}
			} else if err != nil || descr != tc.descr {
				t.Errorf("NumpyDescr = %q, %v; want %q", descr, err, tc.descr)
			}
			if tc.check != nil && !tc.check(d) {
				t.Errorf("parsed %+v", d)
			}
		})
	}
}

func TestParseDatatypeErrors(t *testing.T) {
	nested := i32
	for range maxTypeDepth + 2 {
		nested = dt(0x3a, 0, 0, 0, 4, []byte{1}, le32(1), nested)
	}
	tests := []struct {
		name string
		msg  []byte
		err  error
	}{
		{"truncated", i32[:9], fileio.ErrShort},
		{"version 0", dt(0x00, 0, 0, 0, 4, le16(0, 32)), ErrFormat},
		{"class 11", dt(0x1b, 0, 0, 0, 4), ErrFormat},
		{"VAX float", dt(0x11, 0x41, 0, 0, 4, le16(0, 32), []byte{23, 8, 0, 23}, le32(127)), ErrUnsupported},
		{"integer of 0 bytes", dt(0x10, 0, 0, 0, 0, le16(0, 0)), ErrFormat},
		{"array size mismatch", dt(0x3a, 0, 0, 0, 10, []byte{1}, le32(3), i32), ErrFormat},
		{"array rank 0", dt(0x3a, 0, 0, 0, 4, []byte{0}, i32), ErrFormat},
		{"compound member outside", dt(0x36, 1, 0, 0, 4, []byte("x\x00\x02"), i32), ErrFormat},
		{"compound with too many members", dt(0x36, 0xff, 0xff, 0, 4), ErrFormat},
		{"enum over float", dt(0x38, 1, 0, 0, 8, f64, []byte("A\x00"), make([]byte, 8)), ErrFormat},
		{"string padding 3", dt(0x13, 0x03, 0, 0, 4), ErrFormat},
		{"unterminated member name", dt(0x36, 1, 0, 0, 4, []byte("xyz")), fileio.ErrShort},
		{"v4 reference", dt(0x47, 0, 0, 0, 8), ErrUnsupported},
		{"nested too deep", nested, ErrFormat},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseDatatype(fileio.NewDecoder(tc.msg, fileio.Sizes{OffsetSize: 8, LengthSize: 8}), 0)
			if !errors.Is(err, tc.err) {
				t.Errorf("parseDatatype: %v, want %v", err, tc.err)
			}
		})
	}
}
