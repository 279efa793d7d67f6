package hdf5

import (
	"context"
	"fmt"
)

// PathOf returns a path to the object whose header is at addr, as object
// references name objects: the shortest path by hard links from the root,
// the first in name order among equals. It returns "" when no hard link
// reaches addr. The first call walks the whole tree once; later calls use
// the map it built.
func (f *File) PathOf(ctx context.Context, addr uint64) (string, error) {
	f.mu.Lock()
	paths := f.paths
	f.mu.Unlock()
	if paths == nil {
		var err error
		if paths, err = f.walkPaths(ctx); err != nil {
			return "", fmt.Errorf("hdf5: resolve object reference %d: %w", addr, err)
		}
		f.mu.Lock()
		f.paths = paths
		f.mu.Unlock()
	}
	return paths[addr], nil
}

// walkPaths maps every object reachable by hard links to its first path in
// breadth-first, name order.
func (f *File) walkPaths(ctx context.Context) (map[uint64]string, error) {
	paths := map[uint64]string{f.sb.rootAddr: "/"}
	queue := []uint64{f.sb.rootAddr}
	for len(queue) > 0 {
		addr := queue[0]
		queue = queue[1:]
		h, err := f.header(ctx, addr)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", paths[addr], err)
		}
		if kindOf(h) != KindGroup {
			continue
		}
		links, err := f.groupLinks(ctx, addr)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", paths[addr], err)
		}
		for _, l := range links {
			if l.Type != LinkHard {
				continue
			}
			if _, ok := paths[l.Addr]; ok {
				continue
			}
			paths[l.Addr] = joinPath(paths[addr], l.Name)
			queue = append(queue, l.Addr)
		}
	}
	return paths, nil
}
