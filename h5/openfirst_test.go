package h5

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/lindigo/lindi/internal/driver"
)

// gateDriver answers Open when its gate is closed, with root or err.
type gateDriver struct {
	name string
	gate chan struct{}
	root *driver.Group
	err  error
}

func (d *gateDriver) Name() string { return d.name }
func (d *gateDriver) Sniff(context.Context, *driver.Input) (driver.Match, error) {
	return driver.Maybe, nil
}
func (d *gateDriver) Open(ctx context.Context, _ *driver.Env, _ *driver.Input) (*driver.Group, error) {
	select {
	case <-d.gate:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return d.root, d.err
}

// TestOpenFirst: drivers guessing at a URL open at once, and the first in
// order that takes it wins whatever the order they answer in; an earlier
// driver's real error is the answer.
func TestOpenFirst(t *testing.T) {
	ctx := context.Background()
	mk := func(name string, err error) *gateDriver {
		return &gateDriver{name: name, gate: make(chan struct{}), root: &driver.Group{}, err: err}
	}
	notMine := fmt.Errorf("%w: no", driver.ErrNotMine)
	for _, tc := range []struct {
		name  string
		ds    []*gateDriver
		order []int // the order the gates open in
		want  string
		err   bool
	}{
		{"second wins, answers first", []*gateDriver{mk("a", notMine), mk("b", nil), mk("c", nil)}, []int{2, 1, 0}, "b", false},
		{"first wins although last to answer", []*gateDriver{mk("a", nil), mk("b", nil)}, []int{1, 0}, "a", false},
		{"an earlier error is the answer", []*gateDriver{mk("a", errors.New("broken")), mk("b", nil)}, []int{1, 0}, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &File{name: "https://example.org/x.zarr", env: &driver.Env{}}
			ds := make([]driver.Driver, len(tc.ds))
			for i, d := range tc.ds {
				ds[i] = d
			}
			go func() {
				for _, i := range tc.order {
					close(tc.ds[i].gate)
				}
			}()
			done, err := f.openFirst(ctx, ds, nil)
			if !done || (err != nil) != tc.err || !tc.err && f.format != tc.want {
				t.Errorf("format %q, err %v, done %v; want %q", f.format, err, done, tc.want)
			}
		})
	}
	f := &File{env: &driver.Env{}}
	a, b := mk("a", notMine), mk("b", notMine)
	close(a.gate)
	close(b.gate)
	if done, _ := f.openFirst(ctx, []driver.Driver{a, b}, nil); done {
		t.Error("done when no driver took the file")
	}
}
