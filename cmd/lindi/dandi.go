package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
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
// in bytes and asset ID, tab-separated; glob ("" for all) filters the
// paths, and shard i of n (0 of 1 for all) keeps a share of them. Lines
// starting with "#" come first and name the dandiset's versions with their
// dates, the one listed marked, as dandi-cli's ls shows them.
func lsDandi(ctx context.Context, address, glob string, i, n int, stdout io.Writer) error {
	if err := lsVersions(ctx, address, stdout); err != nil {
		return err
	}
	opts := []dandi.Option{dandi.WithShard(i, n)}
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

// lsVersions writes one "#" line per version of address's dandiset:
// "# version draft, modified 2023-01-01 12:00 UTC, 6 assets, listed". A
// version the address names that the dandiset does not have fails,
// naming it.
func lsVersions(ctx context.Context, address string, w io.Writer) error {
	a, err := dandi.ParseAddress(address)
	if err != nil {
		return err
	}
	vs, err := dandi.Versions(ctx, address)
	if err != nil {
		return err
	}
	var b strings.Builder
	found := false
	for _, v := range vs {
		when, t := "published", v.Created
		if v.Version == dandi.DefaultVersion {
			when, t = "modified", v.Modified
		}
		fmt.Fprintf(&b, "# version %s, %s %s, %d %s", printable(v.Version), when, t.UTC().Format("2006-01-02 15:04 MST"), v.AssetCount, plural(v.AssetCount, "asset"))
		if v.Version == a.Version {
			found = true
			b.WriteString(", listed")
		}
		b.WriteByte('\n')
	}
	if !found {
		return fmt.Errorf("%w: dandiset %s on %s has no version %s", dandi.ErrNotFound, a.Dandiset, a.Instance, a.Version)
	}
	_, err = io.WriteString(w, b.String())
	return err
}

func plural(n int64, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
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
	sopts := throttleOption(ctx)
	if warn, _ := ctx.Value(warnKey{}).(func(string)); warn != nil {
		sopts = append(sopts, source.WithWarn(warn))
	}
	opts := concurrencyOptions(ctx)
	if len(sopts) > 0 {
		opts = append(opts, h5.WithSourceOptions(sopts...))
	}
	return opts
}
