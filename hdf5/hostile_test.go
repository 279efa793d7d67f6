package hdf5

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"testing"

	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

// image builds a small HDF5 file by hand: a version 2 superblock with 8-byte
// offsets and lengths at 0 and the root object header at 48.
type image struct{ b []byte }

const rootAddr = 48

func newImage() *image {
	im := &image{b: make([]byte, rootAddr)}
	copy(im.b, signature)
	im.b[8], im.b[9], im.b[10] = 2, 8, 8
	binary.LittleEndian.PutUint64(im.b[12:], 0)                // base
	binary.LittleEndian.PutUint64(im.b[20:], fileio.Undefined) // extension
	binary.LittleEndian.PutUint64(im.b[36:], rootAddr)         // root
	return im
}

// finish sets the end-of-file address and the superblock checksum.
func (im *image) finish() []byte {
	binary.LittleEndian.PutUint64(im.b[28:], uint64(len(im.b)))
	binary.LittleEndian.PutUint32(im.b[44:], fileio.Checksum(im.b[:44]))
	return im.b
}

// v1Header appends a version 1 object header holding msgs, each a type and
// a body (padded to 8 bytes), and returns its address.
func (im *image) v1Header(size uint32, msgs ...msgSpec) uint64 {
	addr := uint64(len(im.b))
	var body []byte
	for _, m := range msgs {
		h := make([]byte, 8)
		binary.LittleEndian.PutUint16(h, m.typ)
		n := m.size
		if n == 0 {
			n = uint16((len(m.body) + 7) / 8 * 8)
		}
		binary.LittleEndian.PutUint16(h[2:], n)
		body = append(body, h...)
		body = append(body, m.body...)
		body = append(body, make([]byte, (8-len(m.body)%8)%8)...)
	}
	if size == 0 {
		size = uint32(len(body))
	}
	hdr := make([]byte, 16)
	hdr[0] = 1
	binary.LittleEndian.PutUint16(hdr[2:], uint16(len(msgs)))
	binary.LittleEndian.PutUint32(hdr[4:], 1)
	binary.LittleEndian.PutUint32(hdr[8:], size)
	im.b = append(im.b, hdr...)
	im.b = append(im.b, body...)
	return addr
}

type msgSpec struct {
	typ  uint16
	size uint16 // 0: the padded body length
	body []byte
}

func u64s(vs ...uint64) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint64(b, v)
	}
	return b
}

func TestHostileFiles(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name  string
		build func() []byte
		err   error // nil: any error
	}{
		{"empty", func() []byte { return nil }, ErrNotHDF5},
		{"no signature", func() []byte { return make([]byte, 5000) }, ErrNotHDF5},
		{"bad superblock checksum", func() []byte {
			im := newImage()
			im.v1Header(0)
			b := im.finish()
			b[44] ^= 1
			return b
		}, fileio.ErrChecksum},
		{"truncated superblock", func() []byte { return newImage().finish()[:30] }, fileio.ErrShort},
		{"root past end of file", func() []byte { return newImage().finish() }, fileio.ErrShort},
		{"end of file address past the end", func() []byte {
			im := newImage()
			im.v1Header(0)
			b := im.finish()
			return b[:len(b)-1]
		}, ErrFormat},
		{"continuation to itself", func() []byte {
			im := newImage()
			im.v1Header(0, msgSpec{typ: msgContinuation, body: u64s(rootAddr+16, 16)})
			return im.finish()
		}, ErrFormat},
		{"continuation loop of two", func() []byte {
			im := newImage()
			second := uint64(rootAddr + 16 + 24)
			im.v1Header(0, msgSpec{typ: msgContinuation, body: u64s(second, 24)})
			// The second chunk points back at the first.
			chunk := make([]byte, 8)
			binary.LittleEndian.PutUint16(chunk, msgContinuation)
			binary.LittleEndian.PutUint16(chunk[2:], 16)
			im.b = append(im.b, chunk...)
			im.b = append(im.b, u64s(rootAddr+16, 24)...)
			return im.finish()
		}, ErrFormat},
		{"absurd header size", func() []byte {
			im := newImage()
			im.v1Header(0xffffffff)
			return im.finish()
		}, ErrFormat},
		{"message larger than its chunk", func() []byte {
			im := newImage()
			im.v1Header(0, msgSpec{typ: msgLinkInfo, size: 0xfff0, body: make([]byte, 8)})
			return im.finish()
		}, fileio.ErrShort},
		{"continuation past end of file", func() []byte {
			im := newImage()
			im.v1Header(0, msgSpec{typ: msgContinuation, body: u64s(1<<40, 64)})
			return im.finish()
		}, fileio.ErrOutOfRange},
		{"absurd continuation length", func() []byte {
			im := newImage()
			im.v1Header(0, msgSpec{typ: msgContinuation, body: u64s(rootAddr, 1<<62)})
			return im.finish()
		}, ErrFormat},
		{"root is a dataset without dataspace", func() []byte {
			im := newImage()
			im.v1Header(0, msgSpec{typ: msgLayout, body: []byte{3, 1}})
			return im.finish()
		}, ErrFormat},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Open(ctx, &memSource{name: tc.name, data: tc.build()})
			if err == nil {
				t.Fatal("Open succeeded")
			}
			if tc.err != nil && !errors.Is(err, tc.err) {
				t.Errorf("Open: %v, want %v", err, tc.err)
			}
		})
	}
}

func TestHostileGroups(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name string
		msgs []msgSpec
		tail func(im *image) // appended structures
		err  error
	}{
		{"symbol table B-tree pointing to itself", []msgSpec{{typ: msgSymbolTable, body: u64s(0, 0)}}, nil, ErrFormat},
		{"link name longer than message", []msgSpec{{typ: msgLink, body: []byte{1, 0, 200, 'a'}}}, nil, ErrFormat},
		{"dense links without heap", []msgSpec{{typ: msgLinkInfo, body: append([]byte{0, 0}, u64s(1<<30, 1<<30)...)}}, nil, fileio.ErrOutOfRange},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			im := newImage()
			root := im.v1Header(0, tc.msgs...)
			if tc.msgs[0].typ == msgSymbolTable {
				// A B-tree node at the end of the file whose only child is
				// itself, and a local heap.
				tree := uint64(len(im.b))
				node := append([]byte("TREE"), 0, 1, 1, 0)
				node = append(node, u64s(fileio.Undefined, fileio.Undefined, 0, tree, 0)...)
				im.b = append(im.b, node...)
				heap := uint64(len(im.b))
				im.b = append(im.b, append([]byte("HEAP\x00\x00\x00\x00"), u64s(8, 0, heap+32)...)...)
				im.b = append(im.b, make([]byte, 8)...)
				binary.LittleEndian.PutUint64(im.b[root+16+8:], tree)
				binary.LittleEndian.PutUint64(im.b[root+16+16:], heap)
			}
			f, err := Open(ctx, &memSource{name: tc.name, data: im.finish()})
			if err != nil {
				t.Fatal(err)
			}
			_, err = f.Root().Members(ctx)
			if !errors.Is(err, tc.err) {
				t.Errorf("Members: %v, want %v", err, tc.err)
			}
		})
	}
}

// walkAll visits every object and attribute and reads small raw data,
// returning the first error. It stops after limit objects.
func walkAll(ctx context.Context, f *File, limit int) error {
	queue := []*Group{f.Root()}
	seen := map[uint64]bool{}
	for n := 0; len(queue) > 0 && n < limit; n++ {
		g := queue[0]
		queue = queue[1:]
		if seen[g.Addr()] {
			continue
		}
		seen[g.Addr()] = true
		if _, err := g.Attrs(ctx); err != nil {
			return err
		}
		links, err := g.Members(ctx)
		if err != nil {
			return err
		}
		for _, l := range links {
			if l.Type != LinkHard {
				continue
			}
			obj, err := g.Lookup(ctx, l.Name)
			if err != nil {
				return err
			}
			if _, err := obj.Attrs(ctx); err != nil {
				return err
			}
			switch o := obj.(type) {
			case *Group:
				queue = append(queue, o)
			case *Dataset:
				_, _ = o.Datatype().NumpyDescr()
				if n, err := o.NumBytes(); err == nil && n < 1<<20 && o.Chunks() == nil {
					if _, err := o.ReadRaw(ctx); err != nil {
						return err
					}
				}
			}
		}
	}
	_, err := f.PathOf(ctx, 0)
	return err
}

// truncate cuts b to n bytes and, when patch is set, rewrites the
// superblock's end-of-file address to n so that the cut is only found
// where a structure crosses it.
func truncate(b []byte, n int, patch bool) []byte {
	b = bytes.Clone(b[:n])
	if !patch || n < 48 {
		return b
	}
	switch b[8] {
	case 0:
		binary.LittleEndian.PutUint64(b[40:], uint64(n))
	case 2, 3:
		binary.LittleEndian.PutUint64(b[28:], uint64(n))
		binary.LittleEndian.PutUint32(b[44:], fileio.Checksum(b[:44]))
	}
	return b
}

func TestTruncatedFiles(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"fixture.h5", "fixture-latest.h5"} {
		full := readFixture(t, name)
		for _, patch := range []bool{false, true} {
			for _, n := range []int{0, 7, 100, 1000, 4096, len(full) / 4, len(full) / 2} {
				t.Run(fmt.Sprintf("%s/%d/patched=%v", name, n, patch), func(t *testing.T) {
					f, err := Open(ctx, &memSource{name: name, data: truncate(full, n, patch)})
					if err == nil {
						err = walkAll(ctx, f, 1000)
					}
					if err == nil {
						t.Errorf("%d of %d bytes: no error", n, len(full))
					}
				})
			}
		}
	}
}
