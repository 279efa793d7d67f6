package h5

// Changes to the tree of a file opened for writing: groups, soft links,
// deletions.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"unicode"
)

// checkName refuses a path component that cannot name an object: empty,
// "." or "..", with control characters, or a Zarr metadata key.
func checkName(name string) error {
	switch {
	case name == "":
		return errors.New("empty name")
	case name == "." || name == "..":
		return fmt.Errorf("name %q is not allowed", name)
	case strings.HasPrefix(name, ".z"):
		return fmt.Errorf("name %q is kept for Zarr metadata", name)
	case strings.ContainsFunc(name, func(r rune) bool { return unicode.IsControl(r) || r == '\\' }):
		return fmt.Errorf("name %q holds a control character or a backslash", name)
	}
	return nil
}

// splitNew checks a relative path of new members of g and returns its
// components.
func (g *Group) splitNew(name string) ([]string, error) {
	if strings.HasPrefix(name, "/") {
		if g.path != "/" {
			return nil, fmt.Errorf("%q: an absolute path is made from the file (File.Root)", name)
		}
		name = name[1:]
	}
	parts := strings.Split(name, "/")
	for _, p := range parts {
		if err := checkName(p); err != nil {
			return nil, err
		}
	}
	return parts, nil
}

// CreateGroup makes the group name (a name, or a relative path whose
// missing intermediate groups are made too) and returns it. It fails if an
// object of that name exists.
func (g *Group) CreateGroup(ctx context.Context, name string) (*Group, error) {
	ng, err := g.createGroup(ctx, name, false)
	if err != nil {
		return nil, fmt.Errorf("h5: create group %s: %w", joinPath(g.path, name), err)
	}
	return ng, nil
}

// RequireGroup returns the group name, making it (and missing intermediate
// groups) when it does not exist. It fails if name is a dataset or a link.
func (g *Group) RequireGroup(ctx context.Context, name string) (*Group, error) {
	ng, err := g.createGroup(ctx, name, true)
	if err != nil {
		return nil, fmt.Errorf("h5: require group %s: %w", joinPath(g.path, name), err)
	}
	return ng, nil
}

func (g *Group) createGroup(ctx context.Context, name string, exist bool) (*Group, error) {
	ed, err := g.f.editor()
	if err != nil {
		return nil, err
	}
	parts, err := g.splitNew(name)
	if err != nil {
		return nil, err
	}
	cur := g
	for i, p := range parts {
		last := i == len(parts)-1
		if l, ok := cur.Link(p); ok {
			if last && !exist {
				return nil, fmt.Errorf("%s: %w", joinPath(cur.path, p), fs.ErrExist)
			}
			if l.Kind != HardLink {
				return nil, fmt.Errorf("%s is a %s link, not a group", joinPath(cur.path, p), l.Kind)
			}
			next, err := cur.Group(ctx, p)
			if err != nil {
				return nil, err
			}
			cur = next
			continue
		}
		path := joinPath(cur.path, p)
		dg, err := ed.CreateGroup(ctx, path)
		if err != nil {
			return nil, err
		}
		next := g.f.tree.group(dg, path)
		cur.add(Link{Name: p, Kind: HardLink}, next, nil)
		cur = next
	}
	return cur, nil
}

// parentOf makes the intermediate groups of a new member's relative path
// and returns the group that will hold it and its name.
func (g *Group) parentOf(ctx context.Context, name string) (*Group, string, error) {
	parts, err := g.splitNew(name)
	if err != nil {
		return nil, "", err
	}
	parent := g
	if len(parts) > 1 {
		if parent, err = g.createGroup(ctx, strings.Join(parts[:len(parts)-1], "/"), true); err != nil {
			return nil, "", err
		}
	}
	last := parts[len(parts)-1]
	if _, ok := parent.Link(last); ok {
		return nil, "", fmt.Errorf("%s: %w", joinPath(parent.path, last), fs.ErrExist)
	}
	return parent, last, nil
}

// SoftLink makes name (made with its missing intermediate groups) a soft
// link to target, an absolute path in the file, which need not exist yet.
func (g *Group) SoftLink(ctx context.Context, name, target string) error {
	err := func() error {
		ed, err := g.f.editor()
		if err != nil {
			return err
		}
		if !strings.HasPrefix(target, "/") {
			return fmt.Errorf("target %q is not an absolute path", target)
		}
		parent, last, err := g.parentOf(ctx, name)
		if err != nil {
			return err
		}
		if err := ed.SoftLink(ctx, joinPath(parent.path, last), target); err != nil {
			return err
		}
		parent.add(Link{Name: last, Kind: SoftLink, Target: target}, nil, nil)
		return nil
	}()
	if err != nil {
		return fmt.Errorf("h5: soft link %s: %w", joinPath(g.path, name), err)
	}
	return nil
}

// Delete removes the member name (a relative path) of g: a dataset, a
// group with everything in it, or a link (not its target). In a .lindi.tar
// the space its chunks took is reclaimed only by a compaction (lindi
// compact).
func (g *Group) Delete(ctx context.Context, name string) error {
	err := func() error {
		ed, err := g.f.editor()
		if err != nil {
			return err
		}
		parts, err := g.splitNew(name)
		if err != nil {
			return err
		}
		parent := g
		if len(parts) > 1 {
			if parent, err = g.Group(ctx, strings.Join(parts[:len(parts)-1], "/")); err != nil {
				return err
			}
		}
		last := parts[len(parts)-1]
		if _, ok := parent.Link(last); !ok {
			return fs.ErrNotExist
		}
		if err := ed.Delete(ctx, joinPath(parent.path, last)); err != nil {
			return err
		}
		parent.remove(last)
		return nil
	}()
	if err != nil {
		return fmt.Errorf("h5: delete %s: %w", joinPath(g.path, name), err)
	}
	return nil
}

// remove drops the link name.
func (g *Group) remove(name string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for i, l := range g.links {
		if l.Name == name {
			g.links = append(g.links[:i:i], g.links[i+1:]...)
			break
		}
	}
	delete(g.hard, name)
	delete(g.pending, name)
}
