package lindi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/io/source"
	"github.com/lindigo/lindi/store"
)

// The layout Python lindi gives a tar: the entry is the first member, its
// data at 512, 1024 bytes.
const (
	entryName  = ".tar_entry.json"
	indexName  = ".tar_index.json"
	entryOff   = 512
	entrySize  = 1024
	trashDir   = ".trash/"
	wholeBytes = 16 << 20
)

// span is where a member's data lies in the tar.
type span struct{ off, size int64 }

// tarFile is an opened .lindi.tar: its members (stale .trash copies left out)
// and its lindi.json.
type tarFile struct {
	name    string
	members map[string]span
	doc     []byte
}

// Member locates the data of the member name.
func (t *tarFile) Member(_ context.Context, name string) (store.Value, error) {
	s, ok := t.members[name]
	if !ok {
		return store.Value{}, fmt.Errorf("%s: member %q: %w", t.name, name, store.ErrNotFound)
	}
	return store.Value{URL: t.name, Off: s.off, Len: s.size}, nil
}

// openTar reads the entry, the index and lindi.json of the tar src, whose
// first bytes are head.
func openTar(ctx context.Context, src source.Source, head []byte, limit int64) (*tarFile, error) {
	size, err := src.Size(ctx)
	if err != nil {
		return nil, err
	}
	r := &tarReader{src: src, size: size, have: head, limit: limit}
	t := &tarFile{name: src.Name()}
	if t.doc, err = t.read(ctx, r); err != nil {
		return nil, fmt.Errorf("%s: %w", t.name, err)
	}
	return t, nil
}

// read finds the index through the entry, the members through the index,
// and returns lindi.json.
func (t *tarFile) read(ctx context.Context, r *tarReader) ([]byte, error) {
	b, err := r.read(ctx, entryOff, entrySize, false)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", entryName, err)
	}
	index, err := parseEntry(b)
	if err != nil {
		return nil, err
	}
	if b, err = r.read(ctx, index.off, index.size, true); err != nil {
		return nil, fmt.Errorf("%s: %w", indexName, err)
	}
	if t.members, err = parseIndex(b, r.size); err != nil {
		return nil, err
	}
	if self := t.members[indexName]; self != index {
		return nil, fmt.Errorf("%w: %s lists itself at %d (%d bytes), %s says %d (%d bytes)",
			driver.ErrFormat, indexName, self.off, self.size, entryName, index.off, index.size)
	}
	doc, ok := t.members[jsonName]
	if !ok {
		return nil, fmt.Errorf("%w: no %s in %s", driver.ErrFormat, jsonName, indexName)
	}
	b, err = r.read(ctx, doc.off, doc.size, false)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", jsonName, err)
	}
	return b, nil
}

// member is a file of the index: its name, the offsets of its header and
// data, and its size.
type member struct {
	N *string `json:"n"`
	O *int64  `json:"o"`
	D *int64  `json:"d"`
	S *int64  `json:"s"`
}

func (m member) span() (span, error) {
	if m.N == nil || m.D == nil || m.S == nil {
		return span{}, fmt.Errorf("%w: a file needs \"n\", \"d\" and \"s\"", driver.ErrFormat)
	}
	if *m.D < 0 || *m.S < 0 {
		return span{}, fmt.Errorf("%w: file %q at %d of %d bytes", driver.ErrFormat, *m.N, *m.D, *m.S)
	}
	return span{off: *m.D, size: *m.S}, nil
}

// parseEntry parses .tar_entry.json: where the index lies.
func parseEntry(b []byte) (span, error) {
	var e struct {
		Index *member `json:"index"`
	}
	if err := json.Unmarshal(trimPadding(b), &e); err != nil {
		return span{}, fmt.Errorf("%w: %s: %v", driver.ErrFormat, entryName, err)
	}
	if e.Index == nil {
		return span{}, fmt.Errorf("%w: %s has no \"index\"", driver.ErrFormat, entryName)
	}
	s, err := e.Index.span()
	if err != nil {
		return span{}, fmt.Errorf("%s: %w", entryName, err)
	}
	if *e.Index.N != indexName {
		return span{}, fmt.Errorf("%w: %s names %q as the index", driver.ErrFormat, entryName, *e.Index.N)
	}
	return s, nil
}

// parseIndex parses .tar_index.json into the live members of a tar of size
// bytes. Copies moved to .trash/ when a member was rewritten are left out.
func parseIndex(b []byte, size int64) (map[string]span, error) {
	var idx struct {
		Files []member `json:"files"`
	}
	if err := json.Unmarshal(trimPadding(b), &idx); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", driver.ErrFormat, indexName, err)
	}
	members := make(map[string]span, len(idx.Files))
	for _, f := range idx.Files {
		s, err := f.span()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", indexName, err)
		}
		if s.off > size || s.size > size-s.off {
			return nil, fmt.Errorf("%w: %s: file %q at %d of %d bytes is %w of %d bytes",
				driver.ErrFormat, indexName, *f.N, s.off, s.size, errBounds, size)
		}
		if !strings.HasPrefix(*f.N, trashDir) {
			members[*f.N] = s
		}
	}
	return members, nil
}

// trimPadding drops the spaces (and any NULs) a member is padded with to
// leave it room to grow.
func trimPadding(b []byte) []byte { return bytes.TrimRight(b, " \t\r\n\x00") }

// tarReader reads a tar's metadata members: from the bytes already read at its
// start when they hold the range, else from the source. A read with whole set
// (of an index, which locates a member not yet known) reads a tar of at most
// wholeBytes whole, so that the member costs no further round trip.
type tarReader struct {
	src  source.Source
	size int64
	have []byte // the tar's first len(have) bytes; not to be modified (Input.Head shares them)
	// limit bounds the size of one metadata member (index, lindi.json).
	limit int64
}

func (r *tarReader) read(ctx context.Context, off, n int64, whole bool) ([]byte, error) {
	if off < 0 || n < 0 || off > r.size || n > r.size-off {
		return nil, fmt.Errorf("%w: %d bytes at %d are %w of %d bytes", driver.ErrFormat, n, off, errBounds, r.size)
	}
	if n > r.limit {
		return nil, fmt.Errorf("%w: %d bytes is more than the metadata limit of %d (h5.WithMaxMetadataBytes)", driver.ErrFormat, n, r.limit)
	}
	if off+n <= int64(len(r.have)) {
		return r.have[off : off+n], nil
	}
	if whole && r.size <= wholeBytes {
		all := make([]byte, r.size)
		copy(all, r.have)
		if err := r.readAt(ctx, all[len(r.have):], int64(len(r.have))); err != nil {
			return nil, err
		}
		r.have = all
		return all[off : off+n], nil
	}
	buf := make([]byte, n)
	got := 0 // the part already read
	if off < int64(len(r.have)) {
		got = copy(buf, r.have[off:])
	}
	return buf, r.readAt(ctx, buf[got:], off+int64(got))
}

func (r *tarReader) readAt(ctx context.Context, p []byte, off int64) error {
	n, err := r.src.ReadAt(ctx, p, off)
	if n == len(p) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return fmt.Errorf("%d bytes at %d: %w", len(p), off, err)
}
