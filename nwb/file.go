package nwb

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/lindigo/lindi/h5"
)

// File is an open NWB file.
type File struct {
	h *h5.File
}

// Open opens an NWB file from anything h5.Open takes (a local path or an
// http(s) URL of an HDF5 file, a LINDI JSON file or a Zarr store) and checks
// that its root is an NWBFile. Close the File when done.
func Open(ctx context.Context, name string, opts ...h5.Option) (*File, error) {
	hf, err := h5.Open(ctx, name, opts...)
	if err != nil {
		return nil, err
	}
	f, err := New(hf)
	if err != nil {
		hf.Close()
		return nil, err
	}
	return f, nil
}

// New reads an already open h5.File as NWB. It fails with ErrNotNWB unless
// the root group has an nwb_version attribute or the neurodata_type NWBFile.
// Closing the File closes hf.
func New(hf *h5.File) (*File, error) {
	attrs := hf.Root().Attrs()
	hasVersion := attrs.Has("nwb_version")
	if t, _ := attrs.String("neurodata_type"); t != "NWBFile" && !hasVersion {
		return nil, fmt.Errorf("%w: %s: its root has neither nwb_version nor neurodata_type NWBFile", ErrNotNWB, hf.Name())
	}
	return &File{h: hf}, nil
}

// H5 returns the underlying h5.File, for reads this package does not cover.
func (f *File) H5() *h5.File { return f.h }

// Close closes the file.
func (f *File) Close() error { return f.h.Close() }

// Version is the file's nwb_version attribute ("" when absent).
func (f *File) Version() string {
	v, _ := f.h.Root().Attrs().String("nwb_version")
	return v
}

// Object is a neurodata object: a group or dataset with a neurodata_type.
type Object struct {
	// Path is the object's absolute path.
	Path string
	// Name is the last component of Path, the name pynwb gives the object.
	Name string
	// Type is its neurodata_type ("ElectricalSeries", "DynamicTable", …).
	Type string
	// Namespace is the namespace that defines Type ("core", "hdmf-common", …).
	Namespace string
	// Group is set for a group, unset for a dataset.
	Group bool
	// ObjectID is its object_id ("" when it has none).
	ObjectID string
}

// Objects lists the file's neurodata objects below the root, depth first in
// name order; each object is listed once, under its hard link.
func (f *File) Objects(ctx context.Context) ([]Object, error) {
	var out []Object
	err := f.h.Root().Walk(ctx, func(path string, link h5.Link, obj h5.Object, err error) error {
		if err != nil || link.Kind != h5.HardLink {
			return nil // links that cannot be followed, and soft links, are not objects of their own
		}
		t, _ := obj.Attrs().String("neurodata_type")
		if t == "" {
			return nil
		}
		ns, _ := obj.Attrs().String("namespace")
		id, _ := obj.Attrs().String("object_id")
		_, isGroup := obj.(*h5.Group)
		out = append(out, Object{Path: obj.Path(), Name: obj.Name(), Type: t, Namespace: ns, Group: isGroup, ObjectID: id})
		return nil
	})
	return out, err
}

// typeOf gives an object's neurodata_type, or "".
func typeOf(o h5.Object) string {
	t, _ := o.Attrs().String("neurodata_type")
	return t
}

// group returns the group at path, with an error naming what was expected
// (h5's error names the path).
func (f *File) group(ctx context.Context, path, what string) (*h5.Group, error) {
	g, err := f.h.Group(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("nwb: open %s: %w", what, unprefixed{err})
	}
	return g, nil
}

// text reads a scalar or 1-element string dataset at path below g; "" when absent.
func text(ctx context.Context, g *h5.Group, path string) (string, error) {
	d, err := g.Dataset(ctx, path)
	if errors.Is(err, h5.ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return textOf(ctx, d)
}

// textOf reads a string dataset, its elements joined by ", ".
func textOf(ctx context.Context, d *h5.Dataset) (string, error) {
	s, err := h5.Read[string](ctx, d, nil)
	if err != nil {
		return "", err
	}
	return strings.Join(s.Data, ", "), nil
}
