package source

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrOutside is wrapped by errors for a local file a root refuses (see
// WithRoot): a path outside its directory, one that leaves it through ".."
// or a symbolic link, or a file that is not a regular file. It wraps
// ErrBlocked. Its messages name the path as it was given, never where a
// symbolic link pointed.
var ErrOutside = fmt.Errorf("%w: outside the permitted directory, or not a regular file", ErrBlocked)

// WithRoot confines the local files sources open (paths, file: URLs, and
// Pool.PerRead) to root's directory tree: each is opened through root, so a
// path outside it, or one that climbs out of it by ".." or a symbolic link,
// fails with ErrOutside without being opened, and so does a file that is
// not a regular file (a FIFO, a device), whose open could block. root must
// stay open while the sources are used; the caller closes it.
func WithRoot(root *os.Root) Option {
	return func(c *config) error {
		if root == nil {
			return errors.New("source: WithRoot(nil)")
		}
		dir, err := filepath.Abs(root.Name())
		if err != nil {
			return fmt.Errorf("source: WithRoot: %v", err)
		}
		c.root = &rooted{root: root, dir: dir}
		return nil
	}
}

// WithLocalOnly makes Open refuse http(s) and s3 names with ErrBlocked,
// before any connection: for services reading documents they do not trust,
// whose refs could otherwise make them fetch any URL (an address on the
// service's own network included).
func WithLocalOnly() Option {
	return func(c *config) error {
		c.localOnly = true
		return nil
	}
}

// rooted is the root of WithRoot and its directory as an absolute path.
type rooted struct {
	root *os.Root
	dir  string
}

// open opens the regular file at path (absolute, or relative to the working
// directory) through the root.
func (r *rooted) open(path string) (*os.File, error) {
	rel, err := r.rel(path)
	if err != nil {
		return nil, err
	}
	f, err := r.root.OpenFile(rel, os.O_RDONLY|nonBlock, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("source: %s: %w", path, fs.ErrNotExist)
	}
	if err != nil {
		return nil, fmt.Errorf("source: %s: %w", path, ErrOutside)
	}
	st, err := f.Stat()
	if err == nil && st.IsDir() {
		err = fmt.Errorf("%w: %s", ErrIsDir, path)
	} else if err == nil && !st.Mode().IsRegular() {
		err = fmt.Errorf("source: %s: %w", path, ErrOutside)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// rel is path relative to the root's directory, or ErrOutside.
func (r *rooted) rel(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", fmt.Errorf("source: %s: %w", path, ErrOutside)
	}
	rel, err := filepath.Rel(r.dir, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", fmt.Errorf("source: %s: %w", path, ErrOutside)
	}
	return rel, nil
}

// openRooted opens path as a File through r.
func openRooted(r *rooted, path string) (*File, error) {
	f, err := r.open(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("source: %w", err)
	}
	return &File{f: f, name: path, size: fi.Size()}, nil
}

// PerRead returns a source of the local file at path opened anew for each
// read, as the PerRead type is, confined to the pool's root when it has one
// (WithRoot).
func (p *Pool) PerRead(path string) Source {
	if p.cfg.root == nil {
		return PerRead(path)
	}
	return rootedPerRead{r: p.cfg.root, path: path}
}

// rootedPerRead is PerRead through a root.
type rootedPerRead struct {
	r    *rooted
	path string
}

func (c rootedPerRead) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	fh, err := c.r.open(c.path)
	if err != nil {
		return 0, err
	}
	defer fh.Close()
	return fh.ReadAt(p, off)
}

func (c rootedPerRead) Size(context.Context) (int64, error) {
	fh, err := c.r.open(c.path)
	if err != nil {
		return 0, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

func (c rootedPerRead) Name() string { return c.path }
