package layout

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

var sizes8 = fileio.Sizes{OffsetSize: 8, LengthSize: 8}

// msg concatenates little-endian fields: byte, uint16, uint32 and uint64
// values and byte slices.
func msg(fields ...any) []byte {
	var b []byte
	for _, f := range fields {
		switch v := f.(type) {
		case byte:
			b = append(b, v)
		case uint16:
			b = binary.LittleEndian.AppendUint16(b, v)
		case uint32:
			b = binary.LittleEndian.AppendUint32(b, v)
		case uint64:
			b = binary.LittleEndian.AppendUint64(b, v)
		case []byte:
			b = append(b, v...)
		default:
			panic(fmt.Sprintf("msg: %T", f))
		}
	}
	return b
}

func TestParse(t *testing.T) {
	undef := ^uint64(0)
	tests := []struct {
		name string
		in   []byte
		want string // fmt.Sprintf("%v", *Layout) subset, or "" when err
		err  error
	}{
		{"v1 contiguous", msg(byte(1), byte(2), byte(1), []byte{0, 0, 0, 0, 0}, uint64(800), uint32(10), uint32(20)),
			"contiguous addr=800 size=0", nil},
		{"v1 chunked", msg(byte(1), byte(3), byte(2), []byte{0, 0, 0, 0, 0}, uint64(96), uint32(4), uint32(5), uint32(8)),
			"chunked addr=96 chunk=[4 5] elem=8 index=v1 B-tree", nil},
		{"v2 compact", msg(byte(2), byte(1), byte(0), []byte{0, 0, 0, 0, 0}, uint32(3), uint32(3), []byte{7, 8, 9}),
			"compact data=[7 8 9]", nil},
		{"v3 compact", msg(byte(3), byte(0), uint16(2), []byte{1, 2}), "compact data=[1 2]", nil},
		{"v3 contiguous", msg(byte(3), byte(1), uint64(4096), uint64(512)), "contiguous addr=4096 size=512", nil},
		{"v3 contiguous unallocated", msg(byte(3), byte(1), undef, uint64(512)), fmt.Sprintf("contiguous addr=%d size=512", undef), nil},
		{"v3 chunked", msg(byte(3), byte(2), byte(3), uint64(1200), uint32(10), uint32(20), uint32(4)),
			"chunked addr=1200 chunk=[10 20] elem=4 index=v1 B-tree", nil},
		{"v4 single filtered", msg(byte(4), byte(2), byte(FlagSingleFiltered), byte(3), byte(2), uint16(10), uint16(10), uint16(4), byte(1), uint64(333), uint32(2), uint64(5000)),
			"chunked addr=5000 chunk=[10 10] elem=4 index=single chunk single=333/2", nil},
		{"v4 implicit", msg(byte(4), byte(2), byte(0), byte(2), byte(1), byte(5), byte(2), byte(2), uint64(64)),
			"chunked addr=64 chunk=[5] elem=2 index=implicit", nil},
		{"v4 fixed array", msg(byte(4), byte(2), byte(0), byte(2), byte(4), uint32(100), uint32(8), byte(3), byte(10), uint64(64)),
			"chunked addr=64 chunk=[100] elem=8 index=fixed array pagebits=10", nil},
		{"v4 extensible array", msg(byte(4), byte(2), byte(0), byte(3), byte(1), byte(1), byte(3), byte(1), byte(4), byte(32), byte(4), byte(4), byte(16), byte(10), uint64(64)),
			"chunked addr=64 chunk=[1 3] elem=1 index=extensible array ea={32 4 4 16 10}", nil},
		{"v4 v2 B-tree", msg(byte(4), byte(2), byte(0), byte(3), byte(8), uint64(1), uint64(1), uint64(1), byte(5), uint32(2048), byte(100), byte(40), uint64(64)),
			"chunked addr=64 chunk=[1 1] elem=1 index=v2 B-tree bt2={2048 100 40}", nil},
		{"virtual v4", msg(byte(4), byte(3), uint64(1), uint32(7)), "virtual addr=1 heap=7", nil},
		{"virtual v3", msg(byte(3), byte(3), uint64(1), uint32(0)), "", ErrCorrupt},
		{"virtual v1", msg(byte(1), byte(1), byte(3), []byte{0, 0, 0, 0, 0}), "", ErrCorrupt},
		{"virtual truncated", msg(byte(4), byte(3), uint64(1)), "", fileio.ErrShort},
		{"version 5", msg(byte(5), byte(1)), "", ErrUnsupported},
		{"empty", nil, "", fileio.ErrShort},
		{"truncated contiguous", msg(byte(3), byte(1), uint32(1)), "", fileio.ErrShort},
		{"compact overrun", msg(byte(3), byte(0), uint16(20), []byte{1}), "", fileio.ErrShort},
		{"bad class", msg(byte(3), byte(9)), "", ErrCorrupt},
		{"zero chunk dim", msg(byte(3), byte(2), byte(2), uint64(1), uint32(0), uint32(4)), "", ErrCorrupt},
		{"chunk rank 0", msg(byte(3), byte(2), byte(1), uint64(1), uint32(4)), "", ErrCorrupt},
		{"chunk rank 40", msg(byte(3), byte(2), byte(40), uint64(1)), "", ErrCorrupt},
		{"v4 width 9", msg(byte(4), byte(2), byte(0), byte(2), byte(9)), "", ErrCorrupt},
		{"v4 bad flags", msg(byte(4), byte(2), byte(0x80), byte(2), byte(1)), "", ErrCorrupt},
		{"v4 bad index", msg(byte(4), byte(2), byte(0), byte(2), byte(1), byte(5), byte(2), byte(9), uint64(64)), "", ErrCorrupt},
		{"overflowing chunk", msg(byte(4), byte(2), byte(0), byte(3), byte(8), ^uint64(0)>>1, uint64(4), uint64(8), byte(2), uint64(64)), "", ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := Parse(tt.in, sizes8)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("err = %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := summary(l); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func summary(l *Layout) string {
	switch l.Class {
	case Compact:
		return fmt.Sprintf("compact data=%v", l.Data)
	case Contiguous:
		return fmt.Sprintf("contiguous addr=%d size=%d", l.Addr, l.Size)
	case Virtual:
		return fmt.Sprintf("virtual addr=%d heap=%d", l.Addr, l.HeapIndex)
	}
	s := fmt.Sprintf("chunked addr=%d chunk=%v elem=%d index=%v", l.Addr, l.Chunk, l.ElemSize, l.IndexType)
	switch l.IndexType {
	case Single:
		s += fmt.Sprintf(" single=%d/%d", l.SingleSize, l.SingleMask)
	case FixedArray:
		s += fmt.Sprintf(" pagebits=%d", l.PageBits)
	case ExtensibleArray:
		s += fmt.Sprintf(" ea=%v", l.EA)
	case BTree2:
		s += fmt.Sprintf(" bt2=%v", l.BT2)
	}
	return s
}

func TestParseFilters(t *testing.T) {
	name := func(s string, pad int) []byte { return append([]byte(s), make([]byte, pad)...) }
	tests := []struct {
		name string
		in   []byte
		want string
		err  error
	}{
		{"v1 deflate+shuffle", msg(byte(1), byte(2), []byte{0, 0, 0, 0, 0, 0},
			uint16(2), uint16(8), uint16(1), uint16(1), name("shuffle", 1), uint32(4), uint32(0),
			uint16(1), uint16(8), uint16(1), uint16(1), name("deflate", 1), uint32(6), uint32(0)),
			"[{2 shuffle 1 [4]} {1 deflate 1 [6]}]", nil},
		{"v1 no name, two values", msg(byte(1), byte(1), []byte{0, 0, 0, 0, 0, 0},
			uint16(3), uint16(0), uint16(0), uint16(2), uint32(1), uint32(2)),
			"[{3  0 [1 2]}]", nil},
		{"v2 mixed", msg(byte(2), byte(2),
			uint16(1), uint16(0), uint16(1), uint32(9),
			uint16(32001), uint16(6), uint16(0), uint16(0), name("blosc", 1)),
			"[{1  0 [9]} {32001 blosc 0 []}]", nil},
		{"version 3", msg(byte(3), byte(0)), "", ErrUnsupported},
		{"too many", msg(byte(2), byte(33)), "", ErrCorrupt},
		{"truncated", msg(byte(2), byte(1), uint16(1)), "", fileio.ErrShort},
		{"absurd client data", msg(byte(2), byte(1), uint16(1), uint16(0), uint16(0xffff)), "", ErrCorrupt},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs, err := ParseFilters(tt.in)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("err = %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(fs); got != tt.want {
				t.Errorf("got %s, want %s", got, tt.want)
			}
		})
	}
}

func TestFilterCodec(t *testing.T) {
	tests := []struct {
		f    Filter
		want string
		err  string
	}{
		{Filter{ID: FilterDeflate, ClientData: []uint32{4}}, `{"id":"zlib","level":4}`, ""},
		{Filter{ID: FilterDeflate}, `{"id":"zlib","level":6}`, ""},
		{Filter{ID: FilterShuffle, ClientData: []uint32{8}}, `{"elementsize":8,"id":"shuffle"}`, ""},
		{Filter{ID: FilterShuffle}, `{"elementsize":2,"id":"shuffle"}`, ""},
		{Filter{ID: FilterFletcher32}, `{"id":"fletcher32"}`, ""},
		{Filter{ID: FilterLZF, ClientData: []uint32{4, 261, 1000}}, `{"id":"lzf"}`, ""},
		{Filter{ID: FilterBlosc, Name: "blosc"}, `{"id":"blosc"}`, ""},
		{Filter{ID: FilterZstd}, `{"id":"zstd"}`, ""},
		{Filter{ID: FilterSzip}, "", "filter 4 (szip)"},
		{Filter{ID: FilterNbit}, "", "filter 5 (nbit)"},
		{Filter{ID: FilterScaleOffset, ClientData: []uint32{2, 0, 5, 0, 4, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
			`{"count":5,"dtype":"<i4","fill":0,"id":"hdf5_scaleoffset","scale_factor":0,"scale_type":2}`, ""},
		{Filter{ID: 307, Name: "bzip2"}, "", "filter 307 (bzip2)"},
		{Filter{ID: 40000}, "", "filter 40000 (unnamed)"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.f.ID), func(t *testing.T) {
			got, err := tt.f.Codec(2)
			if tt.err != "" {
				if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want ErrUnsupported naming %q", err, tt.err)
				}
				return
			}
			if err != nil || string(got) != tt.want {
				t.Fatalf("Codec = %s, %v; want %s", got, err, tt.want)
			}
		})
	}
	if (Filter{Flags: 1}).Optional() != true || (Filter{}).Optional() {
		t.Error("Optional reads the wrong flag bit")
	}
}
