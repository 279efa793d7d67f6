package driver

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/lindigo/lindi/zarrmeta"
)

// Editor changes the tree of a file opened for writing: the LINDI document
// held in memory and the chunks put into its Sink, made the file's state by
// Commit. Paths are absolute ("/a/b"), already checked by the caller to
// name no reserved or malformed component. Metadata changes are serialised
// by the editor; PutChunk is safe for concurrent use.
type Editor interface {
	// CreateGroup makes an empty group at path, whose parent exists.
	CreateGroup(ctx context.Context, path string) (*Group, error)
	// CreateDataset makes a dataset at path, whose parent exists, with no
	// chunk written: it reads as its fill value.
	CreateDataset(ctx context.Context, path string, spec *DatasetSpec) (*Dataset, error)
	// SetAttr sets the attribute name of the object at path to v and
	// returns the object's attributes as a reader now sees them. Values
	// are those of Group.Attrs plus Go ints, floats and their slices, and
	// Ref (an object reference, written with the object ids lindi checks).
	SetAttr(ctx context.Context, path, name string, v any) (map[string]any, error)
	// DeleteAttr removes the attribute name of the object at path, and
	// returns the attributes left.
	DeleteAttr(ctx context.Context, path, name string) (map[string]any, error)
	// SoftLink makes path a soft link to target.
	SoftLink(ctx context.Context, path, target string) error
	// Delete removes the object or link at path and everything under it.
	Delete(ctx context.Context, path string) error
	// Import makes path a copy of the object at from (an absolute path) in
	// doc, a LINDI document with absolute refs (a File's Document): its
	// metadata and the refs of its chunks, so that no chunk is copied. It
	// returns the link to the new object.
	Import(ctx context.Context, path string, doc []byte, from string) (Link, error)
	// Writable reports why the dataset at path cannot take writes (an
	// _EXTERNAL_ARRAY_LINK dataset, whose data lives in an HDF5 file), or nil.
	Writable(ctx context.Context, path string) error
	// PutChunk stores data, the encoded chunk at grid coordinates coords
	// of the dataset at path.
	PutChunk(ctx context.Context, path string, coords []int, data []byte) error
	// PutRef records ref, a [url, offset, length] range or an inline
	// string, as the chunk at coords of the dataset at path.
	PutRef(ctx context.Context, path string, coords []int, ref json.RawMessage) error
	// Unlink turns the _EXTERNAL_ARRAY_LINK dataset at path into an
	// ordinary one (its chunks put first) and returns it as it now reads.
	Unlink(ctx context.Context, path string) (*Dataset, error)
	// Resize changes the shape of the dataset at path (same rank), keeping
	// the chunks that stay inside it and dropping the others, and returns
	// the dataset as it now reads.
	Resize(ctx context.Context, path string, shape []int) (*Dataset, error)
	// RefItem returns the item that stores a reference to the object at
	// path in an object dataset (LINDI's {"_REFERENCE": …}).
	RefItem(ctx context.Context, path string) (any, error)
	// Commit makes the file's state the tree as it stands, atomically.
	Commit(ctx context.Context) error
	// Close releases the file without committing.
	Close() error
}

// DatasetSpec says how to store a new dataset.
type DatasetSpec struct {
	Shape  []int          // the shape users see (empty for a scalar)
	DType  zarrmeta.DType // the stored element type (|O for strings, references, compound rows)
	Chunks []int          // the chunk shape (nil for a scalar)
	// Compressor and Filters are numcodecs configurations, as .zarray
	// holds them: JSON null (or nil) for no compressor.
	Compressor json.RawMessage
	Filters    []json.RawMessage
	// Fill is the .zarray fill_value (JSON), nil for the dtype's zero.
	Fill json.RawMessage
	// Compound, for a dataset of compound rows stored as objects, lists
	// the fields as LINDI's _COMPOUND_DTYPE does: [name, type] pairs.
	Compound [][2]string
}

// ErrReadOnly is wrapped by errors for a change to a file that was not
// opened for writing. It is the value of h5.ErrReadOnly.
var ErrReadOnly = errors.New("h5: file is not open for writing")
