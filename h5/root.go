package h5

import (
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"

	"github.com/lindigo/lindi/io/source"
)

// ErrOutside is wrapped by errors for a name that WithRoot or WithLocalOnly
// refuse: a local file outside the root's directory (or leading out of it
// through ".." or a symbolic link), a file that is neither a regular file
// nor a directory, or a remote name. It is source.ErrOutside, and wraps
// source.ErrBlocked.
var ErrOutside = source.ErrOutside

// WithRoot confines every local file the file reads to root's directory
// tree, for a service that opens files it does not trust: the file itself,
// the files its LINDI refs and external links name (the files those open,
// too) and the members of its directory stores are opened through root, so
// that a ref to /etc/passwd, file:///… or ../secret, or a symbolic link
// leading out, fails with ErrOutside and reads nothing. A FIFO or device is
// refused rather than opened. Symbolic links out of a Zarr directory are not
// followed, whatever WithOutsideSymlinks says. Remote names are unaffected:
// WithLocalOnly refuses them. root must stay open while the file is; the
// caller closes it.
func WithRoot(root *os.Root) Option {
	return func(o *options) error {
		if root == nil {
			return fmt.Errorf("h5: WithRoot(nil)")
		}
		o.root = root
		o.sourceOpts = append(o.sourceOpts, source.WithRoot(root))
		return nil
	}
}

// WithLocalOnly refuses remote names (http(s), s3, and addresses such as
// dandi:// that a locator resolves over the network) with ErrOutside before
// any request, wherever they appear: the name given to Open, a LINDI ref, an
// external link. Then a file cannot make its reader fetch a URL, one on the
// reader's own network included.
func WithLocalOnly() Option {
	return func(o *options) error {
		o.localOnly = true
		o.sourceOpts = append(o.sourceOpts, source.WithLocalOnly())
		return nil
	}
}

// confined checks name against WithRoot and WithLocalOnly before anything
// opens it: a name with a scheme other than file: is remote, and a local
// one must be a regular file or directory inside the root, symbolic links
// followed only while they stay in it.
func (o *options) confined(name string) error {
	scheme, hasScheme := source.Scheme(name)
	if hasScheme && scheme != "file" {
		if o.localOnly {
			return fmt.Errorf("%w: remote names are turned off", ErrOutside)
		}
		return nil
	}
	if o.root == nil {
		return nil
	}
	path := name
	if hasScheme {
		u, err := url.Parse(name)
		if err != nil || u.Opaque != "" || u.Host != "" && u.Host != "localhost" {
			return fmt.Errorf("%w: not a local file URL", ErrOutside)
		}
		path = filepath.FromSlash(u.Path)
	}
	return statIn(o.root, path)
}

// statIn checks that path lies in root's tree and is a regular file or a
// directory; a missing one is left to the open, which reports it.
func statIn(root *os.Root, path string) error {
	dir, err := filepath.Abs(root.Name())
	if err != nil {
		return fmt.Errorf("%w: %v", ErrOutside, err)
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrOutside, err)
	}
	rel, err := filepath.Rel(dir, abs)
	if err != nil || !filepath.IsLocal(rel) && rel != "." {
		return ErrOutside
	}
	st, err := root.Stat(rel)
	switch {
	case err == nil && (st.Mode().IsRegular() || st.IsDir()):
		return nil
	case err != nil && os.IsNotExist(err):
		return fmt.Errorf("%w", fs.ErrNotExist)
	}
	return ErrOutside
}
