package h5

import "github.com/lindigo/lindi/internal/driver"

// tree turns the tree a driver opened into Groups and Datasets.
type tree struct {
	f      *File
	groups map[*driver.Group]*Group // a group hard-linked twice is one Group
}

func newTree(f *File) *tree { return &tree{f: f, groups: map[*driver.Group]*Group{}} }

func (t *tree) group(dg *driver.Group, path string) *Group {
	if g, ok := t.groups[dg]; ok {
		return g
	}
	g := &Group{f: t.f, path: path, attrs: newAttrs(dg.Attrs), finder: dg.Finder, hard: map[string]Object{}}
	t.groups[dg] = g
	for _, dl := range dg.Links {
		g.add(t.link(dl, joinPath(path, dl.Name)))
	}
	return g
}

// link converts a link and, for a hard link, its target at path.
func (t *tree) link(dl driver.Link, path string) (Link, Object) {
	l := Link{Name: dl.Name, Target: dl.Target, File: dl.File}
	switch dl.Kind {
	case driver.SoftLink:
		l.Kind = SoftLink
		return l, nil
	case driver.ExternalLink:
		l.Kind = ExternalLink
		return l, nil
	}
	switch n := dl.Node.(type) {
	case *driver.Group:
		return l, t.group(n, path)
	case *driver.Dataset:
		return l, newDataset(t.f, n, path)
	}
	return l, nil
}
