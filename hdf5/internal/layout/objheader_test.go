package layout

import (
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

// Message types this package decodes.
const (
	msgDataspace = 0x01
	msgLayout    = 0x08
	msgFilters   = 0x0b
	msgCont      = 0x10
)

// headerMessages is a test-only object header reader (versions 1 and 2,
// with continuation blocks): just enough to find a dataset's messages in
// the fixtures without the hdf5 package. It returns the first message of
// each type.
func headerMessages(t testing.TB, file []byte, addr uint64) map[int][]byte {
	t.Helper()
	msgs := make(map[int][]byte)
	type block struct {
		addr, size uint64
		cont       bool // a continuation block, not the header's first
	}
	var queue []block
	v2 := string(file[addr:addr+4]) == "OHDR"
	var flags byte // version 2 header flags
	if v2 {
		flags = file[addr+5]
		p := addr + 6
		if flags&0x20 != 0 {
			p += 16
		}
		if flags&0x10 != 0 {
			p += 4
		}
		w := uint64(1) << (flags & 3)
		size := fileio.DecodeUint(file[p : p+w])
		queue = append(queue, block{p + w, size, false})
	} else {
		if file[addr] != 1 {
			t.Fatalf("object header at %d: version %d", addr, file[addr])
		}
		size := uint64(binary.LittleEndian.Uint32(file[addr+8:]))
		queue = append(queue, block{addr + 16, size, false})
	}
	for len(queue) > 0 {
		b := queue[0]
		queue = queue[1:]
		p, end := b.addr, b.addr+b.size
		if v2 && b.cont { // signature and checksum around the messages
			if string(file[p:p+4]) != "OCHK" {
				t.Fatalf("continuation block at %d: no OCHK", p)
			}
			p += 4
			end -= 4
		}
		for {
			var typ int
			var size uint64
			if v2 {
				if end-p < 4 {
					break
				}
				typ, size = int(file[p]), uint64(binary.LittleEndian.Uint16(file[p+1:]))
				p += 4
				if flags&0x04 != 0 { // creation order tracked
					p += 2
				}
			} else {
				if end-p < 8 {
					break
				}
				typ, size = int(binary.LittleEndian.Uint16(file[p:])), uint64(binary.LittleEndian.Uint16(file[p+2:]))
				p += 8
			}
			data := file[p : p+size]
			p += size
			if typ == msgCont {
				queue = append(queue, block{binary.LittleEndian.Uint64(data), binary.LittleEndian.Uint64(data[8:]), true})
				continue
			}
			if _, ok := msgs[typ]; !ok {
				msgs[typ] = data
			}
		}
	}
	return msgs
}

// maxDims decodes the maximum dimensions of a dataspace message (current
// dimensions when it stores none).
func maxDims(t testing.TB, msg []byte) []uint64 {
	t.Helper()
	version, rank, flags := msg[0], int(msg[1]), msg[2]
	p := 8
	if version == 2 {
		p = 4
	}
	if version != 1 && version != 2 {
		t.Fatalf("dataspace version %d", version)
	}
	cur := make([]uint64, rank)
	for i := range cur {
		cur[i] = binary.LittleEndian.Uint64(msg[p:])
		p += 8
	}
	if flags&1 == 0 {
		return cur
	}
	out := make([]uint64, rank)
	for i := range out {
		out[i] = binary.LittleEndian.Uint64(msg[p:])
		p += 8
	}
	return out
}

func describe(b []byte) string {
	if len(b) > 48 {
		b = b[:48]
	}
	return fmt.Sprintf("% x", b)
}
