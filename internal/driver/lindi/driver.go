// Package lindi is the driver of the LINDI containers: a .lindi.tar (a tar
// holding lindi.json and the blobs its refs name) and a .lindi.d (the same
// files in a directory). Both are recognised by content, not by name: a tar
// has "ustar" at offset 257, a .lindi.d is a directory holding lindi.json.
//
// The container's lindi.json is read here; its refs "./blobs/…" (any "./"
// url) are located as members of the container, with bounds checks, and the
// tree is built by the Zarr driver as for a bare .lindi.json. Over HTTP, a
// tar's entry, index and lindi.json take at most two round trips when the
// index lies in the tar's first 64 KiB (as Python lindi writes it) or the
// tar is at most 16 MiB; a .lindi.d URL is recognised by its lindi.json.
//
// # Writing
//
// The package also offers the writable containers (Containers):
// a .lindi.tar (any name ending in ".tar", as Python lindi chooses), a
// .lindi.d (any name ending in ".d") and, with zarr.JSONContainer, a
// .lindi.json. A new tar is laid out byte for byte as Python lindi creates
// one. Blobs are appended (a tar) or written as files (a directory) by
// concurrent callers; a commit makes the new document durable before the
// one switch that makes it the file's state: the tar's 1024-byte entry,
// rewritten only after the new lindi.json and index are appended and
// synced, or the rename of a synced lindi.json. A writer killed at any point
// leaves the previous state or the new one; the next OpenSink cuts off
// what it left. lindi.json and the index are never rewritten in place, so
// each commit costs their padded size; Compact drops what no ref names.
//
// One writer at a time: Create and OpenSink take an advisory flock (on the
// tar itself, on the directory of a .lindi.d, and on a file name+".lock"
// beside a .lindi.json, whose commits replace its inode) and Close releases
// it; another writer gets ErrLocked. Readers never lock, and Python lindi
// takes no lock at all. Where the platform has no flock the lock is not
// taken.
//
// Errors: a malformed container wraps driver.ErrFormat; a key that cannot
// name a member, or does not fit a USTAR header, is refused naming it; a
// failed write (a full disk) fails that call and every later one on the
// sink, leaving the file at its last committed state for the next writer.
package lindi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/internal/driver/zarr"
	"github.com/lindigo/lindi/store"
)

// Containers are the writable LINDI containers, each claiming names by
// their suffix: a .lindi.tar (any name ending in ".tar"), a .lindi.d (".d")
// and a .lindi.json (zarr.JSONContainer, locked beside the file).
func Containers() []driver.Container {
	return []driver.Container{TarContainer{}, DirContainer{}, zarr.JSONContainer{Lock: LockBeside}}
}

// jsonName is the LINDI document inside a container.
const jsonName = "lindi.json"

// TarDriver reads .lindi.tar files.
type TarDriver struct{}

func (TarDriver) Name() string { return "LINDI tar" }

// Sniff says Yes to a USTAR tar: "ustar" at offset 257.
func (TarDriver) Sniff(ctx context.Context, in *driver.Input) (driver.Match, error) {
	if in.Dir || in.StoreURL() {
		return driver.No, nil
	}
	head, err := in.SniffHead(ctx)
	switch {
	case err != nil:
		return driver.No, err
	case isTar(head):
		return driver.Yes, nil
	}
	return driver.No, nil
}

func isTar(head []byte) bool {
	return len(head) >= 262 && bytes.Equal(head[257:262], []byte("ustar"))
}

func (TarDriver) Open(ctx context.Context, env *driver.Env, in *driver.Input) (*driver.Group, error) {
	head, err := in.Head(ctx)
	if err != nil {
		return nil, err
	}
	src, err := env.Pool.Open(ctx, in.Name)
	if err != nil {
		return nil, err
	}
	t, err := openTar(ctx, src, head, env.MetadataLimit())
	if err != nil {
		return nil, err
	}
	st, err := store.ParseContainerAt(in.Name, in.Base, t.doc, t)
	if err != nil {
		return nil, err
	}
	return zarr.OpenLINDI(ctx, env, st, false)
}

// DirDriver reads .lindi.d directories, local or served over HTTP.
type DirDriver struct{}

func (DirDriver) Name() string { return "LINDI directory" }

// Sniff says Yes to a local directory holding lindi.json and Maybe to any
// URL: plain HTTP cannot list a directory, so only reading its lindi.json
// tells.
func (DirDriver) Sniff(_ context.Context, in *driver.Input) (driver.Match, error) {
	switch {
	case in.StoreURL():
		return driver.No, nil // a Zarr store by its name, not a .lindi.d
	case in.URL:
		return driver.Maybe, nil
	case !in.Dir:
		return driver.No, nil
	}
	st, err := os.Stat(filepath.Join(in.Name, jsonName))
	if err == nil && st.Mode().IsRegular() {
		return driver.Yes, nil
	}
	return driver.No, nil
}

func (DirDriver) Open(ctx context.Context, env *driver.Env, in *driver.Input) (*driver.Group, error) {
	d, err := newDir(in.Name, in.URL)
	if err != nil {
		return nil, err
	}
	data, err := d.document(ctx, env)
	if in.URL && driver.NotFound(err) {
		return nil, fmt.Errorf("%w: no %s", driver.ErrNotMine, d.join(jsonName))
	}
	if err != nil {
		return nil, err
	}
	st, err := store.ParseContainer(d.root, data, d)
	if err != nil {
		return nil, err
	}
	return zarr.OpenLINDI(ctx, env, st, !in.URL)
}

// errBounds is wrapped by errors for a container whose index points outside it.
var errBounds = errors.New("outside the file")
