package index

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/lindigo/lindi/hdf5"
	"github.com/lindigo/lindi/internal/atomicfile"
	"github.com/lindigo/lindi/io/source"
	"github.com/lindigo/lindi/store"
)

// remotePage is the metadata page size for a remote source (as the HDF5
// driver uses for h5.Open).
const remotePage = 256 << 10

// WriteFile indexes the HDF5 file src (a local path or an http(s) URL) and
// writes its LINDI JSON to out, atomically (atomicfile.WriteFile): to a
// temporary file beside out, synced and renamed over it only when the whole
// document was written, so that a failure leaves no half-written JSON. A
// new out has mode 0666 less the umask, a replaced one keeps its mode. The refs name a URL as given and a
// local src by its absolute path, which Python lindi reads too; RelativeRefs
// names a src in out's directory "./NAME" instead. WithURL overrides either.
// When out already holds the same document but for its creationDate, it is
// left as it is: rerunning an index leaves identical files.
// In a program that imports package dandi, a DANDI asset's address
// (dandi://…) is indexed from its blob, whose download URL the refs name.
func WriteFile(ctx context.Context, src, out string, opts ...Option) error {
	o, err := newOptions(opts)
	if err != nil {
		return err
	}
	// A DANDI address is read at its download URL, never from a
	// precomputed index: this is what makes one.
	loc, err := source.Locate(ctx, src, source.WithOriginal())
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	src = loc.URL
	s, err := source.Open(ctx, src, append(loc.Options, o.source...)...)
	if err != nil {
		return fmt.Errorf("index: %w", err)
	}
	if c, ok := s.(interface{ Close() error }); ok {
		defer c.Close()
	}
	var hopts []hdf5.Option
	if store.IsURL(src) {
		// A remote file: large metadata pages turn the chains of dependent
		// reads (a group's header, B-tree, heap, the members' headers)
		// that HDF5 writers allocate near one another into single requests.
		hopts = append(hopts, hdf5.WithPageSize(remotePage))
	}
	f, err := hdf5.Open(ctx, s, hopts...)
	if err != nil {
		return fmt.Errorf("index: %s: %w", src, err)
	}
	url, err := refName(src, out, o.relative)
	if err != nil {
		return err
	}
	doc, err := Build(ctx, f, append([]Option{WithURL(url)}, opts...)...)
	if err != nil {
		return err
	}
	if unchanged(out, doc) {
		return nil
	}
	return writeAtomic(out, doc)
}

// creationDate matches generationMetadata's creationDate, the first member of
// the document (keys are sorted) indented by four spaces.
var creationDate = regexp.MustCompile(`(?m)^    "creationDate": "[^"\n]*"`)

// unchanged reports whether out already holds doc but for its creation date,
// so that a rerun of an index leaves the file (and its modification time) as
// it was.
func unchanged(out string, doc []byte) bool {
	old, err := os.ReadFile(out)
	if err != nil || len(old) != len(doc) {
		return false
	}
	a, b := creationDate.FindIndex(old), creationDate.FindIndex(doc)
	if a == nil || b == nil || a[0] != b[0] || a[1] != b[1] || bytes.Index(doc, []byte("\n  \"refs\"")) < b[0] {
		return false
	}
	return bytes.Equal(old[:a[0]], doc[:b[0]]) && bytes.Equal(old[a[1]:], doc[b[1]:])
}

// refName is how the refs name src when the JSON is written to out: "./NAME"
// only when relative is set and src lies in out's directory.
func refName(src, out string, relative bool) (string, error) {
	if store.IsURL(src) {
		return src, nil
	}
	abs, err := filepath.Abs(src)
	if err != nil {
		return "", fmt.Errorf("index: %w", err)
	}
	if !relative {
		return abs, nil
	}
	outAbs, err := filepath.Abs(out)
	if err != nil {
		return "", fmt.Errorf("index: %w", err)
	}
	if filepath.Dir(abs) == filepath.Dir(outAbs) {
		return "./" + filepath.Base(abs), nil
	}
	return abs, nil
}

// DefaultOutput is where WriteFile's output goes when none is named:
// NAME.lindi.json beside a local file, or in the working directory for a
// URL (named after its last path segment).
func DefaultOutput(src string) string {
	if scheme, _ := source.Scheme(src); store.IsURL(src) || scheme == "dandi" {
		base := src
		if i := strings.IndexAny(base, "?#"); i >= 0 {
			base = base[:i]
		}
		base = base[strings.LastIndexByte(base, '/')+1:]
		if base == "" {
			base = "index"
		}
		return base + ".lindi.json"
	}
	return src + ".lindi.json"
}

func writeAtomic(out string, data []byte) error {
	if err := atomicfile.WriteFile(out, data); err != nil {
		return fmt.Errorf("index: write %s: %w", out, err)
	}
	return nil
}
