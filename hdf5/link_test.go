package hdf5

import (
	"context"
	"testing"
)

// TestLinkLookup checks that looking one name up (through a symbol table's
// B-tree, or link messages) finds what a full listing finds, in every
// group of the fixtures, and that absent names are absent.
func TestLinkLookup(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"fixture.h5", "fixture-latest.h5"} {
		t.Run(name, func(t *testing.T) {
			f := openBytes(t, name, readFixture(t, name))
			queue := []*Group{f.Root()}
			checked := 0
			for len(queue) > 0 {
				g := queue[0]
				queue = queue[1:]
				// A fresh file for the lookups: no listing is cached there.
				fresh := openBytes(t, name, readFixture(t, name))
				members, err := g.Members(ctx)
				if err != nil {
					t.Fatal(err)
				}
				for _, want := range members {
					fg := &Group{f: fresh, path: g.path, addr: g.addr}
					got, ok, err := fg.Link(ctx, want.Name)
					if err != nil || !ok || got.Name != want.Name || got.Addr != want.Addr || got.Target != want.Target {
						t.Errorf("%s: Link(%q) = %+v, %v, %v; want %+v", g.path, want.Name, got, ok, err, want)
					}
					checked++
					for _, absent := range []string{want.Name + "\x00", want.Name + "~", ""} {
						if _, ok, err := fg.Link(ctx, absent); ok || err != nil {
							t.Errorf("%s: Link(%q) found something (%v)", g.path, absent, err)
						}
					}
					if want.Type != LinkHard {
						continue
					}
					if sub, err := g.Group(ctx, want.Name); err == nil {
						queue = append(queue, sub)
					}
				}
			}
			if checked < 20 {
				t.Errorf("checked only %d links", checked)
			}
		})
	}
}
