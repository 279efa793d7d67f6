package h5

import (
	"context"
	"errors"
	"sync"

	"github.com/lindigo/lindi/internal/driver"
	"golang.org/x/sync/errgroup"
)

// tree turns the tree a driver opened into Groups and Datasets, as the
// driver's nodes are loaded.
type tree struct {
	f      *File
	mu     sync.Mutex
	groups map[*driver.Group]*Group // a group hard-linked twice is one Group
}

func newTree(f *File) *tree { return &tree{f: f, groups: map[*driver.Group]*Group{}} }

// group returns the Group of dg, shown at path when it is met first.
func (t *tree) group(dg *driver.Group, path string) *Group {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.groupLocked(dg, path)
}

func (t *tree) groupLocked(dg *driver.Group, path string) *Group {
	if g, ok := t.groups[dg]; ok {
		return g
	}
	g := &Group{f: t.f, path: path, attrs: newAttrs(dg.Attrs), finder: dg.Finder, unlisted: dg.Unlisted, complete: dg.Complete,
		hard: map[string]Object{}, pending: map[string]*driver.Pending{}}
	t.groups[dg] = g
	for _, dl := range dg.Links {
		l, o, p := t.linkLocked(dl, joinPath(path, dl.Name))
		g.add(l, o, p)
	}
	return g
}

// link converts a link and, for a hard link, its target at path: an Object,
// or the Pending that loads it.
func (t *tree) link(dl driver.Link, path string) (Link, Object, *driver.Pending) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.linkLocked(dl, path)
}

func (t *tree) linkLocked(dl driver.Link, path string) (Link, Object, *driver.Pending) {
	l := Link{Name: dl.Name, Target: dl.Target, File: dl.File}
	switch dl.Kind {
	case driver.SoftLink:
		l.Kind = SoftLink
		return l, nil, nil
	case driver.ExternalLink:
		l.Kind = ExternalLink
		return l, nil, nil
	}
	if p, ok := dl.Node.(*driver.Pending); ok {
		return l, nil, p
	}
	return l, t.objectLocked(dl.Node, path), nil
}

// object converts a loaded node (nil for none) shown at path.
func (t *tree) object(n driver.Node, path string) Object {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.objectLocked(n, path)
}

func (t *tree) objectLocked(n driver.Node, path string) Object {
	switch n := n.(type) {
	case *driver.Group:
		return t.groupLocked(n, path)
	case *driver.Dataset:
		return newDataset(t.f, n, path)
	case *driver.Datatype:
		return &Datatype{f: t.f, path: path, d: n, attrs: newAttrs(n.Attrs)}
	}
	return nil
}

// maxLoads bounds the objects loaded at once when a walk reads a level of
// the tree: enough to cover a wide NWB group's members in one round trip.
// At 64, ls -r of the 120-series NWB file of the shared benchmark took
// 0.59 s at 20 ms (0.41× h5py's visititems); at 256, 0.45 s (0.30×).
const maxLoads = 256

// loadMembers completes groups and loads, concurrently, the targets of
// their hard links that are not loaded yet, completing those that are
// groups. What fails to load is left as it was (a walk reports the error
// when it reaches it); only the end of ctx fails.
func loadMembers(ctx context.Context, groups []*Group) error {
	if err := completeAll(ctx, groups); err != nil {
		return err
	}
	eg, gctx := errgroup.WithContext(ctx)
	eg.SetLimit(maxLoads)
	for _, g := range groups {
		for _, name := range g.pendingNames() {
			eg.Go(func() error {
				o, err := g.target(gctx, name)
				if sub, ok := o.(*Group); ok && err == nil {
					err = sub.completed(gctx)
				}
				if err != nil && ctx.Err() != nil {
					return ctx.Err()
				}
				return nil
			})
		}
	}
	return eg.Wait()
}

// completeAll completes groups concurrently; like loadMembers it fails
// only when ctx ends.
func completeAll(ctx context.Context, groups []*Group) error {
	eg, gctx := errgroup.WithContext(ctx)
	eg.SetLimit(maxLoads)
	for _, g := range groups {
		eg.Go(func() error {
			if err := g.completed(gctx); err != nil && ctx.Err() != nil {
				return ctx.Err()
			}
			return nil
		})
	}
	return eg.Wait()
}

// preload loads the subtrees of groups level by level, each level's
// members concurrently, so that walking them costs one round of requests
// per level instead of one per object.
func preload(ctx context.Context, groups []*Group) error {
	seen := map[*Group]bool{}
	for len(groups) > 0 {
		if err := loadMembers(ctx, groups); err != nil {
			return err
		}
		var next []*Group
		for _, g := range groups {
			seen[g] = true
			for _, o := range g.hardTargets() {
				if sub, ok := o.(*Group); ok && !seen[sub] {
					seen[sub] = true
					next = append(next, sub)
				}
			}
		}
		groups = next
	}
	return nil
}

// errNotObject is returned for a hard link to an object that is neither a
// group, a dataset nor a committed datatype.
var errNotObject = errors.New("not a group, a dataset or a datatype")
