package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/lindigo/lindi/dandi"
	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/io/source"
)

// isDandiFolder reports whether name is a DANDI address of a dandiset or a
// folder, which ls lists asset by asset instead of opening.
func isDandiFolder(name string) bool {
	a, err := dandi.ParseAddress(name)
	return err == nil && a.IsFolder()
}

// lsDandi lists the assets of a dandiset or folder, one a line: path, size
// in bytes and asset ID, tab-separated; glob ("" for all) filters the paths.
func lsDandi(ctx context.Context, address, glob string, stdout io.Writer) error {
	var opts []dandi.Option
	if glob != "" {
		opts = append(opts, dandi.WithGlob(glob))
	}
	for a, err := range dandi.Assets(ctx, address, opts...) {
		if err != nil {
			return err
		}
		if _, err := fmt.Fprintf(stdout, "%s\t%s\t%s\n", printable(a.Path), strconv.FormatInt(a.Size, 10), a.ID); err != nil {
			return err
		}
	}
	return nil
}

type warnKey struct{}

// withWarnings makes the files the commands open report their warnings
// (a precomputed LINDI file refused) on w, one line each.
func withWarnings(ctx context.Context, w io.Writer) context.Context {
	var mu sync.Mutex
	warn := func(msg string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, "lindi: warning: %s\n", printable(msg))
	}
	return context.WithValue(ctx, warnKey{}, warn)
}

// openOptions are the options every command opens its files with.
func openOptions(ctx context.Context) []h5.Option {
	warn, _ := ctx.Value(warnKey{}).(func(string))
	if warn == nil {
		return nil
	}
	return []h5.Option{h5.WithSourceOptions(source.WithWarn(warn))}
}
