package hdf5

import (
	"context"
	"fmt"

	"github.com/lindigo/lindi/hdf5/internal/btree2"
	"github.com/lindigo/lindi/hdf5/internal/fileio"
)

// Record layouts of the name-index B-trees (types 5 and 8).
const (
	linkNameRecord = 4 + 7 // hash, heap ID
	attrNameRecord = 8 + 1 + 4 + 4
)

// denseLinks reads the links a group stores in a fractal heap, indexed by
// a version 2 B-tree of name hashes.
func (f *File) denseLinks(ctx context.Context, li linkInfo) ([]Link, error) {
	heap, err := f.openFractalHeap(ctx, li.heapAddr)
	if err != nil {
		return nil, err
	}
	var links []Link
	err = f.walkIndex(ctx, li.nameIndex, btree2.TypeLinkName, linkNameRecord, func(rec []byte) error {
		obj, err := heap.object(ctx, rec[4:11])
		if err != nil {
			return err
		}
		l, err := parseLink(obj, f.r.Sizes())
		if err != nil {
			return err
		}
		links = append(links, l)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("dense links: %w", err)
	}
	return links, nil
}

// denseAttrs reads the attribute messages stored in a fractal heap,
// indexed by a version 2 B-tree of name hashes.
func (f *File) denseAttrs(ctx context.Context, ai attrInfo) ([][]byte, error) {
	heap, err := f.openFractalHeap(ctx, ai.heapAddr)
	if err != nil {
		return nil, err
	}
	var msgs [][]byte
	err = f.walkIndex(ctx, ai.nameIndex, btree2.TypeAttrName, attrNameRecord, func(rec []byte) error {
		var b []byte
		var err error
		if rec[8]&msgFlagShared != 0 {
			// The ID names the attribute in the shared message heap.
			b, err = f.sohmMessage(ctx, msgAttribute, rec[:8])
		} else {
			b, err = heap.object(ctx, rec[:8])
		}
		if err != nil {
			return err
		}
		msgs = append(msgs, b)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("dense attributes: %w", err)
	}
	return msgs, nil
}

// walkIndex visits the records of the version 2 B-tree at addr after
// checking its record type and size.
func (f *File) walkIndex(ctx context.Context, addr uint64, typ btree2.Type, size int, visit func([]byte) error) error {
	if fileio.IsUndefined(addr) {
		return fmt.Errorf("%w: dense storage without a name index", ErrFormat)
	}
	t, err := btree2.Open(ctx, f.r, addr)
	if err != nil {
		return err
	}
	if t.Type != typ || int(t.RecordSize) < size {
		return fmt.Errorf("%w: B-tree at %d has type %d with %d-byte records, want type %d with %d",
			ErrFormat, addr, t.Type, t.RecordSize, typ, size)
	}
	return t.Walk(ctx, visit)
}
