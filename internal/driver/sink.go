package driver

import (
	"context"
	"encoding/json"

	"github.com/lindigo/lindi/store"
)

// Sink is a writable LINDI container (a .lindi.json, .lindi.tar or
// .lindi.d): where the chunks written to a file go, and how the file's
// document is committed. Each container's commit protocol lives in its
// driver's folder. A Sink is held by one writer at a time (an advisory lock
// taken when it is opened, released by Close).
//
// A Sink is also the store.Members of the document being written, so that a
// chunk written before the commit reads back (a read-modify-write of a
// partial chunk) through the ordinary read path.
type Sink interface {
	store.Members
	// Blob stores data, the encoded chunk under key (a Zarr key such as
	// "acquisition/x/data/0.0"), and returns the ref to record for key: a
	// member ["./blobs/<key>", 0, len] (versioned ".v2", ".v3", … when the
	// member exists), or an inline string for a container that keeps
	// everything in its document. The caller inlines chunks under
	// InlineLimit itself and calls Blob only for larger ones. Blob is safe
	// for concurrent use; what it stores becomes part of the file only at
	// the next Commit.
	Blob(ctx context.Context, key string, data []byte) (json.RawMessage, error)
	// Commit makes doc, the whole LINDI JSON document, the file's state,
	// atomically and durably: a process killed at any point leaves a file
	// that opens at the previous or the new state.
	Commit(ctx context.Context, doc []byte) error
	// Close releases the container; it does not commit.
	Close() error
}

// InlineLimit is the size under which a chunk is kept in the document as an
// inline string rather than a member, as Python lindi does.
const InlineLimit = 1000

// InlineRef returns the ref that keeps data in the document itself, as
// Python lindi stores it: the bytes as a JSON string of the same code points
// when they are all ASCII (control characters included), "base64:…"
// otherwise.
func InlineRef(data []byte) json.RawMessage { return store.InlineRef(data) }

// Container is a writable LINDI container format, chosen by the suffix of
// the name a user gives (".lindi.json", ".lindi.tar", ".lindi.d"). The
// drivers that can write offer their containers; h5 lists them
// (h5/drivers.go) and never names a format elsewhere.
type Container interface {
	// Name names the format, as h5.File.Format reports it ("LINDI tar").
	Name() string
	// Claims reports whether name, a local path, is this container's by its
	// suffix.
	Claims(name string) bool
	// Create makes a new, empty container that is to become name (its
	// document the empty LINDI document) and returns it open for writing,
	// locked. It is written beside name (Stage) and appears at name only at
	// its first Commit (Publish): h5py's mode "x" when replace is false (an
	// existing file or directory at name is an error wrapping fs.ErrExist,
	// at once and again at that commit), its mode "w" when replace is true
	// (what is at name is replaced at that commit, atomically for a file).
	// Close before any commit removes what Create made and leaves name as
	// it was.
	Create(ctx context.Context, name string, replace bool) (Sink, error)
	// OpenSink opens the existing container at name for amending, locked,
	// and returns its current document. A torn tail left by a writer that
	// was killed is repaired here. A missing file is an error wrapping
	// fs.ErrNotExist.
	OpenSink(ctx context.Context, name string) (s Sink, doc []byte, err error)
}

// Compacter is implemented by containers whose superseded members take
// space (a .lindi.tar, a .lindi.d).
type Compacter interface {
	// Compact rewrites the container at name to hold only what its
	// document names, atomically (a new file renamed into place).
	Compact(ctx context.Context, name string) error
}

// ContainerFor returns the first of cs that claims name, or nil.
func ContainerFor(cs []Container, name string) Container {
	for _, c := range cs {
		if c.Claims(name) {
			return c
		}
	}
	return nil
}

// EmptyDocument is the document of a new LINDI file, as Python lindi
// creates it.
const EmptyDocument = `{"refs":{".zgroup":{"zarr_format":2}}}`
