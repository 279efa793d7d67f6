package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/zarrmeta"
)

func cmdLs(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("ls", flag.ContinueOnError)
	recursive := fs.Bool("r", false, "list the whole tree below PATH")
	withAttrs := fs.Bool("a", false, "list attributes too")
	keepGoing := fs.Bool("keep-going", false, "list what can be read when a group or object cannot be (each one is named on stderr and in the listing), and exit 1 at the end")
	long := fs.Bool("l", false, "long listing: each dataset's size and stored size (its chunks, encoded), as ls -lh prints sizes; ? when the stored size takes a request per chunk")
	shard := fs.String("shard", "", "list only the `I/N`-th share of a dandiset's assets, as dandi.WithShard splits them (0 ≤ I < N)")
	ctx, pos, err := parseReadArgs(ctx, fs, bundled(args, "alr"))
	if err != nil {
		return err
	}
	if len(pos) < 1 || len(pos) > 2 {
		return usagef("ls takes FILE [PATH]")
	}
	if isDandiFolder(pos[0]) {
		i, n, err := parseShard(*shard)
		if err != nil {
			return err
		}
		return lsDandi(ctx, pos[0], strings.Join(pos[1:], ""), i, n, stdout)
	}
	if *shard != "" {
		return usagef("--shard splits the listing of a dandiset or folder, not %s", pos[0])
	}
	path := "/"
	if len(pos) == 2 {
		path = pos[1]
	}
	f, err := openFile(ctx, pos[0])
	if err != nil {
		return err
	}
	defer f.Close()
	obj, err := f.Get(ctx, path)
	if err != nil {
		return err
	}
	var l listing
	if *long {
		l.pathCol = 2 // after the sizes
	}
	line := func(p string, link h5.Link, o h5.Object) ([]string, error) {
		cells := lsLine(p, link, o)
		if !*long {
			return cells, nil
		}
		return withSizes(ctx, cells, link, o)
	}
	cells, err := line(obj.Path(), h5.Link{Kind: h5.HardLink}, obj)
	if err != nil {
		return err
	}
	l.object(cells)
	if *withAttrs {
		l.attrs(obj)
	}
	failed := 0
	if g, ok := obj.(*h5.Group); ok {
		err = g.Walk(ctx, func(p string, link h5.Link, o h5.Object, werr error) error {
			// A soft link that leads nowhere is listed as a link; an object
			// that cannot be read fails the listing, or with --keep-going is
			// named and skipped.
			if werr != nil && link.Kind == h5.HardLink {
				if !*keepGoing {
					return werr
				}
				failed++
				fmt.Fprintf(stderr, "lindi: %s\n", printable(werr.Error()))
				l.object([]string{printable(p), "unreadable"})
				return h5.SkipGroup
			}
			cells, err := line(p, link, o)
			if err != nil {
				return err
			}
			l.object(cells)
			if link.Kind == h5.HardLink && *withAttrs {
				l.attrs(o)
			}
			if !*recursive {
				return h5.SkipGroup
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	if err := l.write(stdout); err != nil {
		return err
	}
	if failed > 0 {
		what := "1 object"
		if failed > 1 {
			what = fmt.Sprintf("%d objects", failed)
		}
		return &partialError{fmt.Errorf("ls: %s could not be read (named above)", what)}
	}
	return nil
}

// bundled splits bundled one-letter flags, as ls takes them: -lr is -l
// -r when every letter is one of letters.
func bundled(args []string, letters string) []string {
	out := make([]string, 0, len(args))
	for _, a := range args {
		if a == "--" {
			return append(out, args[len(out):]...)
		}
		if len(a) > 2 && a[0] == '-' && a[1] != '-' && strings.Trim(a[1:], letters) == "" {
			for _, c := range a[1:] {
				out = append(out, "-"+string(c))
			}
			continue
		}
		out = append(out, a)
	}
	return out
}

// withSizes puts a dataset's sizes (logical, stored) after its path and
// kind, as ls -l puts the size before the name; other lines get blanks.
func withSizes(ctx context.Context, cells []string, link h5.Link, o h5.Object) ([]string, error) {
	logical, stored := "", ""
	if d, ok := o.(*h5.Dataset); ok && link.Kind == h5.HardLink && d.Err() == nil {
		var err error
		if logical, stored, err = sizes(ctx, d); err != nil {
			return nil, err
		}
	}
	out := append([]string{logical, stored}, cells...)
	return out, nil
}

// maxAligned is the widest cell, after the path, that widens its column: a
// longer one (a compound's dtype) overflows on its own line instead of
// pushing that column right on every line.
const maxAligned = 40

// listing holds the lines of ls: the objects' lines, whose columns are
// aligned over the whole listing, and the attributes' lines below them.
type listing struct {
	rows    [][]string // an object's cells, or one attribute line
	attr    []bool     // whether rows[i] is an attribute line
	pathCol int        // the column of the paths, which maxAligned does not bound
}

func (l *listing) object(cells []string) {
	l.rows = append(l.rows, cells)
	l.attr = append(l.attr, false)
}

// attrs lists an object's attributes, one a line.
func (l *listing) attrs(o h5.Object) {
	attrs := o.Attrs()
	for _, name := range attrs.Names() {
		v, err := attrs.Get(name)
		if err != nil {
			v = err // shown as <error: …>
		}
		l.rows = append(l.rows, []string{fmt.Sprintf("    @%s = %s", printable(name), formatValue(attrForm(v)))})
		l.attr = append(l.attr, true)
	}
}

// write prints the listing, each column of the objects' lines as wide as its
// widest cell (see maxAligned) and two spaces apart.
func (l *listing) write(w io.Writer) error {
	var widths []int
	for i, cells := range l.rows {
		if l.attr[i] {
			continue
		}
		for c, cell := range cells[:len(cells)-1] { // the last cell is not padded
			n := utf8.RuneCountInString(cell)
			if c != l.pathCol && n > maxAligned {
				continue
			}
			for len(widths) <= c {
				widths = append(widths, 0)
			}
			widths[c] = max(widths[c], n)
		}
	}
	var b strings.Builder
	for _, cells := range l.rows {
		for c, cell := range cells {
			b.WriteString(cell)
			if c < len(cells)-1 {
				pad := 2
				if c < len(widths) {
					pad += max(widths[c]-utf8.RuneCountInString(cell), 0)
				}
				b.WriteString(strings.Repeat(" ", pad))
			}
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// lsLine describes one link in cells: path, kind, and for datasets shape,
// dtype, chunks and codecs. Everything read from the file is made printable.
func lsLine(path string, l h5.Link, o h5.Object) []string {
	path = printable(path)
	switch l.Kind {
	case h5.SoftLink:
		return []string{path, "soft link", "→ " + printable(l.Target)}
	case h5.ExternalLink:
		return []string{path, "external link", "→ " + printable(l.File) + ":" + printable(l.Target)}
	}
	if t, ok := o.(*h5.Datatype); ok {
		return datatypeLine(path, t)
	}
	d, ok := o.(*h5.Dataset)
	if !ok {
		return []string{path, "group"}
	}
	if err := d.Err(); err != nil {
		return []string{path, "dataset", shapeText(d), "unreadable: " + printable(err.Error())}
	}
	codecs := strings.Join(d.Codecs(), ",")
	if codecs == "" {
		codecs = "raw"
	}
	layout := d.Layout().String() // contiguous, compact: h5py's chunks=None
	if d.Layout() == h5.Chunked {
		layout = "chunks " + zarrmeta.Tuple(d.Chunks())
	}
	return []string{path, "dataset", shapeText(d), printable(d.DType().String()), layout, printable(codecs)}
}
