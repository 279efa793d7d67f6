package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/zarrmeta"
)

func cmdLs(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("ls", flag.ContinueOnError)
	recursive := fs.Bool("r", false, "list the whole tree below PATH")
	withAttrs := fs.Bool("a", false, "list attributes too")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 1 || len(pos) > 2 {
		return usagef("ls takes FILE [PATH]")
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
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	defer tw.Flush()
	fmt.Fprintln(tw, lsLine(obj.Path(), h5.Link{Kind: h5.HardLink}, obj))
	if *withAttrs {
		lsAttrs(tw, obj)
	}
	g, ok := obj.(*h5.Group)
	if !ok {
		return nil
	}
	return g.Walk(ctx, func(p string, l h5.Link, o h5.Object, err error) error {
		fmt.Fprintln(tw, lsLine(p, l, o))
		if l.Kind == h5.HardLink && *withAttrs {
			lsAttrs(tw, o)
		}
		if !*recursive {
			return h5.SkipGroup
		}
		return nil
	})
}

// lsAttrs lists an object's attributes below it, one a line.
func lsAttrs(w io.Writer, o h5.Object) {
	attrs := o.Attrs()
	for _, name := range attrs.Names() {
		v, err := attrs.Get(name)
		if err != nil {
			v = err // shown as <error: …>
		}
		fmt.Fprintf(w, "    @%s = %s\n", printable(name), formatValue(v))
	}
}

// lsLine describes one link: path, kind, and for datasets shape, dtype,
// chunks and codecs. Everything read from the file is made printable.
func lsLine(path string, l h5.Link, o h5.Object) string {
	path = printable(path)
	switch l.Kind {
	case h5.SoftLink:
		return fmt.Sprintf("%s\tsoft link\t→ %s", path, printable(l.Target))
	case h5.ExternalLink:
		return fmt.Sprintf("%s\texternal link\t→ %s:%s", path, printable(l.File), printable(l.Target))
	}
	d, ok := o.(*h5.Dataset)
	if !ok {
		return fmt.Sprintf("%s\tgroup", path)
	}
	if err := d.Err(); err != nil {
		return fmt.Sprintf("%s\tdataset\t%s\tunreadable: %s", path, zarrmeta.Tuple(d.Shape()), printable(err.Error()))
	}
	codecs := strings.Join(d.Codecs(), ",")
	if codecs == "" {
		codecs = "raw"
	}
	layout := d.Layout().String() // contiguous, compact: h5py's chunks=None
	if d.Layout() == h5.Chunked {
		layout = "chunks " + zarrmeta.Tuple(d.Chunks())
	}
	return fmt.Sprintf("%s\tdataset\t%s\t%s\t%s\t%s", path, zarrmeta.Tuple(d.Shape()), printable(d.DType().String()), layout, printable(codecs))
}
