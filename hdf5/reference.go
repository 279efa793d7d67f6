package hdf5

import (
	"context"
	"fmt"
	"sync"

	"golang.org/x/sync/errgroup"
)

// refPaths is the search that maps object addresses to paths for PathOf:
// a breadth-first walk by hard links from the root, resumed only as far as
// the objects asked for, so that resolving a reference near the root of a
// large remote file reads a few groups, not the whole tree.
type refPaths struct {
	mu       sync.Mutex        // held across reads: searches take turns
	paths    map[uint64]string // object address → first path found
	frontier []uint64          // objects found whose links are not read yet, in walk order
}

// maxPathReads bounds the object headers and links a PathOf search reads
// at once.
const maxPathReads = 64

// PathOf returns a path to the object whose header is at addr, as object
// references name objects: the shortest path by hard links from the root,
// the first in name order among equals. It returns "" when no hard link
// reaches addr. It walks the tree breadth first, reading each level's
// groups concurrently, only as deep as addr lies; later calls continue from
// where the last one stopped.
func (f *File) PathOf(ctx context.Context, addr uint64) (string, error) {
	rp := &f.refs
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if rp.paths == nil {
		rp.paths = map[uint64]string{f.sb.rootAddr: "/"}
		rp.frontier = []uint64{f.sb.rootAddr}
	}
	for {
		if p, ok := rp.paths[addr]; ok {
			return p, nil
		}
		if len(rp.frontier) == 0 {
			return "", nil
		}
		if err := f.expand(ctx, rp); err != nil {
			return "", fmt.Errorf("hdf5: resolve object reference %d: %w", addr, err)
		}
	}
}

// expand reads the links of the groups of the frontier, concurrently, and
// replaces the frontier with the objects they lead to that had no path yet.
// On failure rp is left as it was.
func (f *File) expand(ctx context.Context, rp *refPaths) error {
	links := make([][]Link, len(rp.frontier))
	eg, gctx := errgroup.WithContext(ctx)
	eg.SetLimit(maxPathReads)
	for i, addr := range rp.frontier {
		eg.Go(func() error {
			h, err := f.header(gctx, addr)
			if err != nil {
				return fmt.Errorf("%s: %w", rp.paths[addr], err)
			}
			if kindOf(h) != KindGroup {
				return nil
			}
			if links[i], err = f.groupLinks(gctx, addr); err != nil {
				return fmt.Errorf("%s: %w", rp.paths[addr], err)
			}
			return nil
		})
	}
	if err := eg.Wait(); err != nil {
		return err
	}
	var next []uint64
	for i, addr := range rp.frontier {
		for _, l := range links[i] {
			if l.Type != LinkHard {
				continue
			}
			if _, ok := rp.paths[l.Addr]; ok {
				continue
			}
			rp.paths[l.Addr] = joinPath(rp.paths[addr], l.Name)
			next = append(next, l.Addr)
		}
	}
	rp.frontier = next
	return nil
}
