package store

import (
	"context"
	"errors"
)

var (
	// ErrNotFound is wrapped by errors for keys that the store does not hold.
	ErrNotFound = errors.New("store: key not found")
	// ErrFormat is wrapped by errors for malformed reference files and refs.
	ErrFormat = errors.New("store: malformed reference")
	// ErrOutside is wrapped by errors for keys of a Dir whose path leads, by
	// symbolic links, out of the store's directory.
	ErrOutside = errors.New("store: symbolic link leads out of the store")
)

// Value says where the bytes of one key live: either Data, in memory, or the
// byte range [Off, Off+Len) of the object named by URL (a local path or an
// http(s) URL). Len is -1 when the value is the whole object.
type Value struct {
	Data []byte
	URL  string
	Off  int64
	Len  int64
}

// InMemory reports whether the value's bytes are held in Data.
func (v Value) InMemory() bool { return v.URL == "" }

// Store is a Zarr v2 key space.
type Store interface {
	// Get locates the value of key; an absent key gives an error wrapping ErrNotFound.
	Get(ctx context.Context, key string) (Value, error)
	// List returns the sorted names of the entries directly below the directory
	// dir ("" is the root), without the metadata files (.zarray, .zgroup, .zattrs)
	// and without chunk keys of arrays.
	List(ctx context.Context, dir string) ([]string, error)
	// Name is the path or URL the store was opened from.
	Name() string
}
