package h5

// Attribute changes of a file opened for writing.

import (
	"context"
	"fmt"
	"sync"

	"github.com/lindigo/lindi/internal/driver"
)

// SetAttr sets the attribute name of the group to v: a bool, an integer, a
// float (written as a float: 30000.0), a string, []byte (as UTF-8 text), a
// Reference, or a slice (nested for N-d) of one of those kinds; NaN and
// ±Inf are stored as LINDI stores them. A name LINDI reserves (_SCALAR,
// _REFERENCE, …) and a value it cannot store (nil, a map, a mixed list, the
// strings "NaN", "Infinity" and "-Infinity") are refused.
func (g *Group) SetAttr(ctx context.Context, name string, v any) error {
	return g.f.changeAttr(ctx, g.path, name, &g.mu, &g.attrs, func(ed driver.Editor) (map[string]any, error) {
		return ed.SetAttr(ctx, g.path, name, driverValue(v))
	})
}

// DeleteAttr removes the attribute name of the group.
func (g *Group) DeleteAttr(ctx context.Context, name string) error {
	return g.f.changeAttr(ctx, g.path, name, &g.mu, &g.attrs, func(ed driver.Editor) (map[string]any, error) {
		return ed.DeleteAttr(ctx, g.path, name)
	})
}

// SetAttr sets the attribute name of the dataset to v (see Group.SetAttr).
func (d *Dataset) SetAttr(ctx context.Context, name string, v any) error {
	return d.f.changeAttr(ctx, d.path, name, &d.mu, &d.attrs, func(ed driver.Editor) (map[string]any, error) {
		return ed.SetAttr(ctx, d.path, name, driverValue(v))
	})
}

// DeleteAttr removes the attribute name of the dataset.
func (d *Dataset) DeleteAttr(ctx context.Context, name string) error {
	return d.f.changeAttr(ctx, d.path, name, &d.mu, &d.attrs, func(ed driver.Editor) (map[string]any, error) {
		return ed.DeleteAttr(ctx, d.path, name)
	})
}

// changeAttr runs change, an editor's change of the attribute name of the
// object at path, and makes *attrs (guarded by mu) what it gives.
func (f *File) changeAttr(ctx context.Context, path, name string, mu *sync.RWMutex, attrs *Attrs,
	change func(driver.Editor) (map[string]any, error)) error {
	ed, err := f.editor()
	var vals map[string]any
	if err == nil {
		vals, err = change(ed)
	}
	if err != nil {
		return fmt.Errorf("h5: attribute %s@%s: %w", path, name, err)
	}
	mu.Lock()
	*attrs = newAttrs(vals)
	mu.Unlock()
	return nil
}

// driverValue turns References in an attribute value into the drivers'.
func driverValue(v any) any {
	switch v := v.(type) {
	case Reference:
		return driver.Ref{Path: v.Path}
	case *Reference:
		if v != nil {
			return driver.Ref{Path: v.Path}
		}
	case []Reference:
		out := make([]driver.Ref, len(v))
		for i, r := range v {
			out[i] = driver.Ref{Path: r.Path}
		}
		return out
	}
	return v
}
