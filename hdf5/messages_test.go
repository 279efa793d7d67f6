package hdf5

import (
	"errors"
	"reflect"
	"testing"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

var sizes88 = fileio.Sizes{OffsetSize: 8, LengthSize: 8}

func TestParseDataspace(t *testing.T) {
	tests := []struct {
		name string
		msg  []byte
		want Dataspace
		err  error
	}{
		{"v1 scalar", []byte{1, 0, 0, 0, 0, 0, 0, 0}, Dataspace{Kind: SpaceScalar, Dims: []uint64{}, MaxDims: []uint64{}}, nil},
		{"v1 simple with max", append([]byte{1, 2, 1, 0, 0, 0, 0, 0}, u64s(3, 4, 10, fileio.Undefined)...),
			Dataspace{Kind: SpaceSimple, Dims: []uint64{3, 4}, MaxDims: []uint64{10, Unlimited}}, nil},
		{"v2 null", []byte{2, 0, 0, 2}, Dataspace{Kind: SpaceNull, Dims: []uint64{}, MaxDims: []uint64{}}, nil},
		{"v2 scalar", []byte{2, 0, 0, 0}, Dataspace{Kind: SpaceScalar, Dims: []uint64{}, MaxDims: []uint64{}}, nil},
		{"v2 empty", append([]byte{2, 1, 0, 1}, u64s(0)...), Dataspace{Kind: SpaceSimple, Dims: []uint64{0}, MaxDims: []uint64{0}}, nil},
		{"version 3", []byte{3, 0, 0, 0}, Dataspace{}, ErrFormat},
		{"type 3", []byte{2, 0, 0, 3}, Dataspace{}, ErrFormat},
		{"rank 33", append([]byte{2, 33, 0, 1}, make([]byte, 33*8)...), Dataspace{}, ErrFormat},
		{"scalar with rank", append([]byte{2, 1, 0, 0}, u64s(1)...), Dataspace{}, ErrFormat},
		{"overflow", append([]byte{2, 2, 0, 1}, u64s(1<<40, 1<<40)...), Dataspace{}, ErrFormat},
		{"above maximum", append([]byte{2, 1, 1, 1}, u64s(5, 4)...), Dataspace{}, ErrFormat},
		{"truncated", append([]byte{2, 2, 0, 1}, u64s(1)...), Dataspace{}, fileio.ErrShort},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseDataspace(tc.msg, sizes88)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Errorf("err %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func TestParseFill(t *testing.T) {
	tests := []struct {
		name string
		msg  []byte
		old  bool
		want FillValue
		err  error
	}{
		{"v1 defined", append([]byte{1, 1, 0, 1}, append(le32(2), 7, 8)...), false, FillValue{true, []byte{7, 8}}, nil},
		{"v1 size 0", append([]byte{1, 1, 0, 0}, le32(0)...), false, FillValue{}, nil},
		{"v2 undefined", []byte{2, 1, 0, 0}, false, FillValue{}, nil},
		{"v2 defined", append([]byte{2, 1, 0, 1}, append(le32(1), 9)...), false, FillValue{true, []byte{9}}, nil},
		{"v3 undefined", []byte{3, 0x10}, false, FillValue{}, nil},
		{"v3 defined", append([]byte{3, 0x20}, append(le32(4), 0, 0, 0xf0, 0xc0)...), false, FillValue{true, []byte{0, 0, 0xf0, 0xc0}}, nil},
		{"v3 bad flags", []byte{3, 0x80}, false, FillValue{}, ErrFormat},
		{"v4", []byte{4, 0}, false, FillValue{}, ErrFormat},
		{"size past end", append([]byte{3, 0x20}, le32(100)...), false, FillValue{}, fileio.ErrShort},
		{"old", append(le32(2), 1, 2), true, FillValue{true, []byte{1, 2}}, nil},
		{"old empty", le32(0), true, FillValue{}, nil},
		{"old truncated", append(le32(3), 1), true, FillValue{}, fileio.ErrShort},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			parse := parseFill
			if tc.old {
				parse = parseFillOld
			}
			got, err := parse(tc.msg)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Errorf("err %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}

func TestParseLink(t *testing.T) {
	tests := []struct {
		name string
		msg  []byte
		want Link
		err  error
	}{
		{"hard", append([]byte{1, 0, 3, 'a', 'b', 'c'}, u64s(800)...), Link{Name: "abc", Addr: 800}, nil},
		{"hard with order and charset", append([]byte{1, 0x14, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 'x'}, u64s(9)...),
			Link{Name: "x", Addr: 9}, nil},
		{"soft", append([]byte{1, 0x08, 1, 2, 's', 'l'}, append(le16(4), "/a/b"...)...),
			Link{Name: "sl", Type: LinkSoft, Target: "/a/b"}, nil},
		{"external", append([]byte{1, 0x08, 64, 1, 'e'}, append(le16(9), "\x00f.h5\x00/p\x00"...)...),
			Link{Name: "e", Type: LinkExternal, File: "f.h5", Target: "/p"}, nil},
		{"two-byte name length", append(append([]byte{1, 0x01}, le16(2)...), append([]byte("nm"), u64s(1)...)...),
			Link{Name: "nm", Addr: 1}, nil},
		{"version 2", []byte{2, 0, 1, 'a'}, Link{}, ErrFormat},
		{"empty name", append([]byte{1, 0, 0}, u64s(1)...), Link{}, ErrFormat},
		{"name past end", []byte{1, 0, 50, 'a'}, Link{}, ErrFormat},
		{"external unterminated", append([]byte{1, 0x08, 64, 1, 'e'}, append(le16(3), "\x00ab"...)...), Link{}, fileio.ErrShort},
		{"truncated address", []byte{1, 0, 1, 'a', 1, 2}, Link{}, fileio.ErrShort},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseLink(tc.msg, sizes88)
			if tc.err != nil {
				if !errors.Is(err, tc.err) {
					t.Errorf("err %v, want %v", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("got %+v, %v; want %+v", got, err, tc.want)
			}
		})
	}
}
