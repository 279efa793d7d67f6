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
