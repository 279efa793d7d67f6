package nwb

import (
	"context"
	"fmt"

	"github.com/lindigo/lindi/h5"
)

// Added is what an amendment holds beyond its source.
type Added struct {
	// Source is the file the amendment was made from (its SourceAttr).
	Source string
	// Objects are the neurodata objects the source does not have (by
	// object_id, or by path for objects without one), in Objects order.
	Objects []Object
	// Grown are the source's tables that have more rows in the amendment.
	Grown []Grown
}

// Grown is a table of the source that rows were appended to.
type Grown struct {
	Path         string
	Before, Rows int
}

// Added compares an amendment with the source Amend recorded in it,
// opening that source (with opts). It returns nil and no error for a file
// that records no source, and an Added with only Source set, with the
// error, when the source cannot be read.
func (f *File) Added(ctx context.Context, opts ...h5.Option) (*Added, error) {
	src, err := f.h.Root().Attrs().String(SourceAttr)
	if err != nil || src == "" {
		return nil, nil
	}
	sf, err := Open(ctx, src, opts...)
	if err != nil {
		return &Added{Source: src}, fmt.Errorf("nwb: %s: open its source: %w", f.h.Name(), unprefixed{err})
	}
	defer sf.Close()
	old, err := sf.Objects(ctx)
	if err != nil {
		return nil, err
	}
	ids, paths := map[string]bool{}, map[string]Object{}
	for _, o := range old {
		if o.ObjectID != "" {
			ids[o.ObjectID] = true
		}
		paths[o.Path] = o
	}
	objs, err := f.Objects(ctx)
	if err != nil {
		return nil, err
	}
	out := &Added{Source: src}
	for _, o := range objs {
		_, samePath := paths[o.Path]
		if o.ObjectID != "" && !ids[o.ObjectID] || o.ObjectID == "" && !samePath {
			out.Objects = append(out.Objects, o)
			continue
		}
		if !o.Group || !samePath {
			continue
		}
		g, err := f.h.Group(ctx, o.Path)
		if err != nil {
			return nil, err
		}
		if _, err := g.Dataset(ctx, "id"); err != nil {
			continue
		}
		now, err1 := f.Table(ctx, o.Path)
		before, err2 := sf.Table(ctx, o.Path)
		if err1 == nil && err2 == nil && now.Len() != before.Len() {
			out.Grown = append(out.Grown, Grown{Path: o.Path, Before: before.Len(), Rows: now.Len()})
		}
	}
	return out, nil
}
