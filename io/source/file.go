package source

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// File is a Source reading a local file with positioned reads (pread), so
// concurrent reads never contend on a shared offset.
type File struct {
	f     *os.File
	name  string
	size  int64
	stats Counters
}

// OpenFile opens the local file at path for reading. The size is taken once,
// at open: the file is assumed not to change while it is read.
func OpenFile(path string) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("source: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("source: %w", err)
	}
	if fi.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%w: %s", ErrIsDir, path)
	}
	return &File{f: f, name: path, size: fi.Size()}, nil
}

// ReadAt reads len(p) bytes at off. It checks ctx before reading but a read
// already started runs to completion: local reads are short.
func (f *File) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, fmt.Errorf("%w: %s: offset %d", ErrRange, f.name, off)
	}
	start := time.Now()
	n, err := f.f.ReadAt(p, off)
	f.stats.record(start, n)
	if err != nil && !errors.Is(err, io.EOF) {
		err = fmt.Errorf("source: %s: %w", f.name, err)
	}
	return n, err
}

// Size reports the size the file had when it was opened.
func (f *File) Size(ctx context.Context) (int64, error) { return f.size, nil }

// Name reports the path the file was opened with.
func (f *File) Name() string { return f.name }

// Stats reports the reads made so far.
func (f *File) Stats() Stats { return f.stats.Snapshot() }

// Close closes the file. Reads after Close fail.
func (f *File) Close() error { return f.f.Close() }

// PerRead is a local file opened anew for each read and closed after it:
// for stores that hold a file per chunk (a Zarr directory, a .lindi.d),
// too many to keep open. Its name is the path.
type PerRead string

// ReadAt opens the file, reads len(p) bytes at off and closes it.
func (c PerRead) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	fh, err := os.Open(string(c))
	if err != nil {
		return 0, err
	}
	defer fh.Close()
	return fh.ReadAt(p, off)
}

// Size is the file's size now.
func (c PerRead) Size(context.Context) (int64, error) {
	st, err := os.Stat(string(c))
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// Name is the path.
func (c PerRead) Name() string { return string(c) }
