package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/lindigo/lindi/index"
)

// cmdIndex writes the LINDI JSON of an HDF5 file.
func cmdIndex(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("index", flag.ContinueOnError)
	out := fs.String("o", "", "output file (default FILE.lindi.json)")
	all := fs.Bool("all-chunks", false, "list every chunk instead of linking datasets of more than 1000 chunks to the HDF5 file")
	relative := fs.Bool("relative-refs", false, "name a local FILE in OUT's directory ./FILE (Python lindi cannot read such refs) instead of by its absolute path")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("index takes FILE_OR_URL")
	}
	if *out == "" {
		*out = index.DefaultOutput(pos[0])
	}
	var opts []index.Option
	if *all {
		opts = append(opts, index.AllChunks())
	}
	if *relative {
		opts = append(opts, index.RelativeRefs())
	}
	if err := index.WriteFile(ctx, pos[0], *out, opts...); err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, *out)
	return err
}
