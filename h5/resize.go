package h5

import (
	"context"
	"fmt"
)

// Resize changes the shape of d (h5py's resize; the rank stays): growing
// keeps every chunk where it is, by reference, and the new elements read
// as the fill value until written; shrinking drops the chunks that fall
// outside. Do not read d while it runs.
func (d *Dataset) Resize(ctx context.Context, shape []int) error {
	err := func() error {
		ed, err := d.f.editor()
		if err != nil {
			return err
		}
		for _, n := range shape {
			if n < 0 {
				return fmt.Errorf("shape %v has a negative dimension", shape)
			}
		}
		nd, err := ed.Resize(ctx, d.path, shape)
		if err != nil {
			return err
		}
		d.d = nd
		return nil
	}()
	if err != nil {
		return fmt.Errorf("h5: resize %s to %v: %w", d.path, shape, err)
	}
	return nil
}
