package h5grove

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/lindigo/lindi/h5"
)

// linkMode is the resolve_links argument: which soft and external links are
// followed.
type linkMode int

const (
	onlyValid linkMode = iota // follow links that lead somewhere; report the others as links
	noLinks                   // report every soft and external link as a link
	allLinks                  // follow every link; a broken one is an error
)

func parseLinkMode(q queryArgs) (linkMode, error) {
	if !q.has("resolve_links") {
		return onlyValid, nil
	}
	v := q.get("resolve_links")
	switch strings.ToLower(v) {
	case "only_valid":
		return onlyValid, nil
	case "none", "false":
		return noLinks, nil
	case "all", "true":
		return allLinks, nil
	}
	return 0, fmt.Errorf("%w: %q is not a valid value for link resolution. Accepted values are: all, none or only_valid", errQuery, v)
}

// entity is what a path names: a group or dataset, or a link left unresolved.
type entity struct {
	path string
	obj  h5.Object // nil for an unresolved link
	link h5.Link
}

// name is the last segment of the path, "" for the root, as h5grove names it.
func (e entity) name() string { return e.path[strings.LastIndex(e.path, "/")+1:] }

// target finds the entity the request's path names, following links as
// its resolve_links says, and returns that link mode too.
func target(ctx context.Context, req *request) (entity, linkMode, error) {
	mode, err := parseLinkMode(req.q)
	if err != nil {
		return entity{}, 0, err
	}
	e, err := lookup(ctx, req, req.q.get("path"), mode)
	return e, mode, err
}

// lookup finds the entity at p.
func lookup(ctx context.Context, req *request, p string, mode linkMode) (entity, error) {
	if p == "" {
		p = "/"
	}
	if p == "/" {
		return entity{path: p, obj: req.f.Root()}, nil
	}
	notFound := fmt.Errorf("%w: %s is not a valid path in %s", errPath, p, path.Base(req.name))
	because := func(err error) error { return fmt.Errorf("%w (%v)", notFound, err) }
	clean := strings.Trim(p, "/")
	parentPath, base := "/", clean
	if i := strings.LastIndex(clean, "/"); i >= 0 {
		parentPath, base = "/"+clean[:i], clean[i+1:]
	}
	parent, err := req.f.Group(ctx, parentPath)
	if err != nil {
		return entity{}, because(err)
	}
	l, ok := parent.Link(base)
	if !ok || base == "" || base == "." || base == ".." {
		return entity{}, notFound
	}
	if l.Kind != h5.HardLink && mode == noLinks {
		return entity{path: p, link: l}, nil
	}
	obj, err := parent.Get(ctx, base)
	if err == nil && obj == nil {
		return entity{path: p, link: l}, nil // a committed datatype
	}
	if err != nil && l.Kind != h5.HardLink {
		if mode == onlyValid {
			return entity{path: p, link: l}, nil
		}
		return entity{}, fmt.Errorf("%w: Cannot resolve link at %s of %s", errLink, p, path.Base(req.name))
	}
	if err != nil {
		return entity{}, because(err)
	}
	return entity{path: p, obj: obj, link: l}, nil
}

// childPath joins a group path and a member name as h5grove does.
func childPath(parent, name string) string {
	if parent == "/" || parent == "" {
		return "/" + name
	}
	return strings.TrimRight(parent, "/") + "/" + name
}
