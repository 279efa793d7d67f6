package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/lindigo/lindi/index"
)

// cmdIndex writes the LINDI JSON of an HDF5 file, or of the share of a
// list of files that one task of a job array takes (--shard I/N).
func cmdIndex(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("index", flag.ContinueOnError)
	out := fs.String("o", "", "output file (default FILE.lindi.json); one FILE only")
	dir := fs.String("out-dir", "", "write each output in `DIR`, named after its source (NAME.lindi.json)")
	all := fs.Bool("all-chunks", false, "list every chunk instead of linking datasets of more than 1000 chunks to the HDF5 file")
	relative := fs.Bool("relative-refs", false, "name a local FILE in OUT's directory ./FILE (Python lindi cannot read such refs) instead of by its absolute path")
	shard := fs.String("shard", "", "index only the `I/N`-th share of the sources: those at positions I, I+N, I+2N, … of the list (0 ≤ I < N)")
	list := fs.String("list", "", "read the sources from `FILE`, one a line (blank lines and lines starting with # skipped), after those named")
	manifest := fs.String("manifest", "", "write one JSON line per source of the share to `FILE`: {\"source\", \"output\", \"error\"}")
	jobs := fs.Int("jobs", 4, "sources indexed at once")
	ctx, pos, err := parseReadArgs(ctx, fs, args)
	if err != nil {
		return err
	}
	if *list != "" {
		more, err := readSourceList(*list)
		if err != nil {
			return err
		}
		pos = append(pos, more...)
	}
	multi := *shard != "" || *list != "" || *manifest != "" || *dir != ""
	switch {
	case len(pos) == 0:
		return usagef("index takes FILE_OR_URL")
	case len(pos) > 1 && !multi:
		return usagef("index takes one FILE_OR_URL (or --shard, --list, --manifest, --out-dir for several)")
	case multi && *out != "":
		return usagef("-o names the output of one source; with several use --out-dir")
	case *jobs < 1:
		return usagef("--jobs %d: must be at least 1", *jobs)
	}
	opts := []index.Option{index.WithSourceOptions(append(sourceConcurrency(ctx), throttleOption(ctx)...)...)}
	if *all {
		opts = append(opts, index.AllChunks())
	}
	if *relative {
		opts = append(opts, index.RelativeRefs())
	}
	if !multi {
		if *out == "" {
			*out = index.DefaultOutput(pos[0])
		}
		if err := index.WriteFile(ctx, pos[0], *out, opts...); err != nil {
			return err
		}
		_, err = fmt.Fprintln(stdout, *out)
		return err
	}
	i, n, err := parseShard(*shard)
	if err != nil {
		return err
	}
	outs, err := indexOutputs(pos, *dir)
	if err != nil {
		return err
	}
	var share []int
	for k := i; k < len(pos); k += n {
		share = append(share, k)
	}
	entries := indexShare(ctx, pos, outs, share, *jobs, opts)
	return reportShare(entries, *manifest, stdout)
}

// indexShare indexes the sources at the positions of share, jobs at a time;
// one failing does not stop the others.
func indexShare(ctx context.Context, srcs, outs []string, share []int, jobs int, opts []index.Option) []index.ManifestEntry {
	entries := make([]index.ManifestEntry, len(share))
	var g errgroup.Group
	g.SetLimit(jobs)
	for j, k := range share {
		g.Go(func() error {
			entries[j] = index.ManifestEntry{Source: srcs[k], Output: outs[k]}
			if err := index.WriteFile(ctx, srcs[k], outs[k], opts...); err != nil {
				msg := printable(err.Error())
				entries[j].Error = &msg
			}
			return nil
		})
	}
	g.Wait()
	return entries
}

// reportShare writes the manifest (atomically) and the outputs written, and
// fails when any source failed.
func reportShare(entries []index.ManifestEntry, manifest string, stdout io.Writer) error {
	failed := 0
	for _, e := range entries {
		if e.Error != nil {
			failed++
			continue
		}
		if _, err := fmt.Fprintln(stdout, e.Output); err != nil {
			return err
		}
	}
	if manifest != "" {
		if err := index.WriteManifest(manifest, entries); err != nil {
			return err
		}
	}
	if failed > 0 {
		first := ""
		for _, e := range entries {
			if e.Error != nil {
				first = *e.Error
				break
			}
		}
		return fmt.Errorf("index: %d of %d sources failed; the first: %s", failed, len(entries), first)
	}
	return nil
}

// parseShard reads "I/N"; "" is the whole list, 0/1.
func parseShard(s string) (i, n int, err error) {
	if s == "" {
		return 0, 1, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return 0, 0, usagef("--shard %q: want I/N with 0 ≤ I < N, such as 3/16", s)
	}
	return i, n, nil
}

// readSourceList reads a list file: a source a line.
func readSourceList(name string) ([]string, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var srcs []string
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line != "" && !strings.HasPrefix(line, "#") {
			srcs = append(srcs, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("--list %s: %w", name, err)
	}
	return srcs, nil
}

// indexOutputs names every source's output, in dir or beside it, and refuses a
// list in which two sources would write the same file: every task of a job
// array checks the whole list, so all refuse it alike.
func indexOutputs(srcs []string, dir string) ([]string, error) {
	outs := make([]string, len(srcs))
	seen := map[string]string{}
	for k, s := range srcs {
		o := index.DefaultOutput(s)
		if dir != "" {
			o = filepath.Join(dir, filepath.Base(o))
		}
		if prev, dup := seen[o]; dup {
			return nil, usagef("%s and %s would both write %s", prev, s, o)
		}
		seen[o], outs[k] = s, o
	}
	return outs, nil
}
