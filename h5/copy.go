package h5

// Copies of objects into a file opened for writing: by reference where
// the source's chunks can be named, else by value.

import (
	"context"
	"fmt"

	"github.com/lindigo/lindi/zarrmeta"
)

// Copy makes name (with its missing intermediate groups) a copy of src, a
// group (with everything in it) or a dataset of any open file, this one
// included: by reference, its chunks are not copied but named where they
// lie (absolute paths or URLs), attributes and links kept. src's file must
// have a LINDI document (File.Document: a LINDI or HDF5 file); from
// another file (a Zarr store), the data is read and written again, with the
// same chunks and codecs where this file can encode them.
func (g *Group) Copy(ctx context.Context, src Object, name string) (Object, error) {
	o, err := func() (Object, error) {
		ed, err := g.f.editor()
		if err != nil {
			return nil, err
		}
		if src.File().docFn == nil {
			return g.copyValues(ctx, src, name)
		}
		doc, err := src.File().Document(ctx)
		if err != nil {
			return nil, err
		}
		parent, last, err := g.parentOf(ctx, name)
		if err != nil {
			return nil, err
		}
		path := joinPath(parent.path, last)
		dl, err := ed.Import(ctx, path, doc, src.Path())
		if err != nil {
			return nil, err
		}
		l, o, p := g.f.tree.link(dl, path)
		parent.add(l, o, p)
		if o == nil {
			return parent.Get(ctx, last)
		}
		return o, nil
	}()
	if err != nil {
		return nil, fmt.Errorf("h5: copy %s to %s: %w", src.Path(), joinPath(g.path, name), err)
	}
	return o, nil
}

// copyValues copies src into name by reading it: groups with their
// attributes and members, soft links as links, datasets read and written
// again.
func (g *Group) copyValues(ctx context.Context, src Object, name string) (Object, error) {
	switch src := src.(type) {
	case *Group:
		dst, err := g.CreateGroup(ctx, name)
		if err != nil {
			return nil, err
		}
		if err := copyAttrs(ctx, dst, src.Attrs()); err != nil {
			return nil, err
		}
		for _, l := range src.Links() {
			switch l.Kind {
			case SoftLink:
				err = dst.SoftLink(ctx, l.Name, l.Target)
			case HardLink:
				var o Object
				if o, err = src.Get(ctx, l.Name); err == nil {
					_, err = dst.copyValues(ctx, o, l.Name)
				}
			default:
				err = fmt.Errorf("%s: an external link cannot be copied into a LINDI file", joinPath(src.path, l.Name))
			}
			if err != nil {
				return nil, err
			}
		}
		return dst, nil
	case *Dataset:
		return g.copyDataset(ctx, src, name)
	case *Datatype:
		return nil, nil // a committed datatype has no LINDI form: its datasets carry their dtype
	}
	return nil, fmt.Errorf("%s: cannot copy a %T", src.Path(), src)
}

// copyDataset writes a copy of src's elements and attributes as name.
func (g *Group) copyDataset(ctx context.Context, src *Dataset, name string) (*Dataset, error) {
	spec := DatasetSpec{Shape: src.Shape(), DType: src.DType(), Chunks: src.Chunks()}
	if st, err := src.d.Storage.Stored(ctx); err == nil && st.Array.Pipeline != nil && !st.Array.Objects {
		compressor, filters := st.Array.Pipeline.Configs()
		if len(filters) == 0 && compressor != nil {
			spec.Codec = compressor
		}
	}
	if spec.DType.Kind == zarrmeta.KindUnicode {
		spec.DType = ObjectDType
	}
	if src.Scalar() {
		spec.Chunks = nil
	}
	d, err := g.CreateDataset(ctx, name, spec)
	if err != nil {
		spec.Codec = nil // a codec this file cannot encode with: lindi's default
		if d, err = g.CreateDataset(ctx, name, spec); err != nil {
			return nil, err
		}
	}
	a, err := src.Read(ctx, nil)
	if err != nil {
		return nil, err
	}
	if spec.DType.Kind == zarrmeta.KindStruct {
		rows := make([][]any, len(a.Objects))
		for i, r := range a.Objects {
			if rows[i], _ = r.([]any); rows[i] == nil {
				return nil, fmt.Errorf("%s: row %d is not a row of fields", src.path, i)
			}
		}
		err = WriteRows(ctx, d, nil, rows)
	} else if a.Objects != nil {
		err = d.writeItems(ctx, a.Objects)
	} else {
		err = d.WriteArray(ctx, nil, a)
	}
	if err != nil {
		return nil, err
	}
	return d, copyAttrs(ctx, d, src.Attrs())
}

// writeItems writes the items of an object dataset: strings or References.
func (d *Dataset) writeItems(ctx context.Context, items []any) error {
	if len(items) > 0 {
		if _, ok := items[0].(Reference); ok {
			refs := make([]Reference, len(items))
			for i, v := range items {
				if refs[i], ok = v.(Reference); !ok {
					return fmt.Errorf("%w: item %d is a %T among references", ErrType, i, v)
				}
			}
			return Write(ctx, d, nil, refs)
		}
	}
	strs := make([]string, len(items))
	for i, v := range items {
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("%w: item %d is a %T, not a string", ErrType, i, v)
		}
		strs[i] = s
	}
	return Write(ctx, d, nil, strs)
}

// copyAttrs sets every attribute of attrs on dst.
func copyAttrs(ctx context.Context, dst interface {
	SetAttr(context.Context, string, any) error
}, attrs Attrs) error {
	for _, name := range attrs.Names() {
		v, err := attrs.Get(name)
		if err != nil {
			return err
		}
		if err := dst.SetAttr(ctx, name, v); err != nil {
			return err
		}
	}
	return nil
}
