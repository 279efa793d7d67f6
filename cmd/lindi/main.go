// Command lindi lists and reads datasets of LINDI JSON files, Zarr v2 stores
// and HDF5 files, local or remote, and writes and amends LINDI files.
//
//	lindi ls [-r] [-a] [-l] [--keep-going] FILE [PATH]
//	lindi ls [--shard I/N] DANDISET[/FOLDER/] [GLOB]
//	lindi info FILE [PATH]
//	lindi cat [-o OUT] [-f npy|csv|json|text] [--field NAME] [--stats] [--concurrency N] [--max-bytes N] [--max-whole N] [--cache DIR] FILE DATASET[@ATTR] [SELECTION]
//	lindi table [-f json|csv] FILE PATH
//	lindi nwb FILE
//	lindi index [-o OUT] [--all-chunks] [--relative-refs] FILE_OR_URL
//	lindi index [--shard I/N] [--manifest FILE] [--list FILE] [--out-dir DIR] [--jobs N] FILE_OR_URL...
//	lindi cp [--force] SRC DST
//	lindi put [--force] [--chunks 1000,24] [--codec CODEC] FILE PATH DATA.npy
//	lindi attr [--delete] FILE PATH NAME [VALUE]
//	lindi rm FILE PATH
//	lindi compact FILE
//	lindi plot [-o OUT.png] [--stack] FILE DATASET [SELECTION]
//	lindi serve [--ip 127.0.0.1] [--port 8888] [--max-bytes N] [--allow-origin O] [--allow-host H] [--allow-remote] (--basedir DIR | FILE_OR_URL…)
//	lindi --version
//
// FILE is a local path, an http(s) URL or a DANDI asset's address
// (dandi://dandi/000409@draft/sub-01/x.nwb); "lindi ls" of a dandiset or
// folder (dandi://dandi/000409, …/sub-01/) lists its assets. SELECTION is numpy syntax without
// the brackets: "0:100, 5", "::-1", "[1, 4, 9], :", "..." (the default).
//
// Remote waits are bounded by LINDI_TIMEOUT (a Go duration, default 20s):
// connecting, an answer's headers and each gap in a body; a request, with
// its retries, lasts at most six times as long.
//
// Every command that reads takes --concurrency N|auto: the byte-range
// requests in flight per host (default $LINDI_CONCURRENCY, else auto).
//
// lindi exits 0 on success, 1 when something fails (with one line on stderr
// naming what), and 2 on a usage error.
package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/lindigo/lindi/internal/atomicfile"
	"github.com/lindigo/lindi/io/fetch"
	"github.com/lindigo/lindi/io/source"
)

func main() {
	tuneGC()
	// Writes to a closed stdout then fail with EPIPE, which run treats as
	// the end of the output, instead of killing the process.
	signal.Ignore(syscall.SIGPIPE)
	ctx, cancel := context.WithCancel(context.Background())
	stop := onSignal(cancel)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// stopGrace is how long a command stopped by a signal has to return (its
// writers discard what they staged) before the process exits anyway.
const stopGrace = 3 * time.Second

// onSignal makes SIGINT and SIGTERM stop the command: the first cancels its
// context, and the command, returning, discards what it wrote; if it has
// not returned within stopGrace, or at a second signal, the temporaries
// and staged outputs of the process are removed (atomicfile.RemoveOwn) and
// it exits with status 1. The returned function stops listening.
func onSignal(cancel context.CancelFunc) (stop func()) {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
		case <-done:
			return
		}
		cancel()
		select {
		case <-sigs:
		case <-time.After(stopGrace):
		case <-done:
			return
		}
		atomicfile.RemoveOwn()
		os.Exit(1)
	}()
	return func() {
		signal.Stop(sigs)
		close(done)
	}
}

// usageError is a mistake in the command line: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

const usage = `usage:
  lindi ls [-r] [-a] [-l] [--keep-going] FILE [PATH]
                                   list a group's members (-r: the whole tree, -a: with attributes,
                                   -l: each dataset's size and stored size first, as ls -lh); an
                                   object that cannot be read fails it (--keep-going: named, skipped, exit 1)
  lindi ls [--shard I/N] DANDISET[/FOLDER/] [GLOB]
                                   list a dandiset's assets: path, size, asset ID ('sub-*/*.nwb'),
                                   after "#" lines naming its versions (--shard: one share of them)
  lindi info FILE [PATH]           metadata and attributes of an object (default /), as JSON
  lindi cat [-o OUT] [-f npy|csv|json|text] [--field NAME] [--stats] [--concurrency N] [--max-bytes N] [--max-whole N] [--cache DIR] FILE DATASET[@ATTR] [SELECTION]
                                   read a selection of a dataset (default: all of it), or an attribute
  lindi table [-f json|csv] FILE PATH
                                   a DynamicTable of an NWB file: JSON (a member per column) or CSV
  lindi nwb FILE                   a summary of an NWB file: session, subject, data, tables
  lindi index [-o OUT] [--all-chunks] [--relative-refs] FILE_OR_URL
                                   write the LINDI JSON of an HDF5/NWB file (default FILE.lindi.json)
  lindi index [--shard I/N] [--manifest FILE] [--list FILE] [--out-dir DIR] [--jobs N] FILE_OR_URL...
                                   index the I-th of N shares of the sources (a task of a job array), one JSON line each in FILE
  lindi cp [--force] SRC DST       make DST (.lindi.json, .lindi.tar or .lindi.d) from any readable SRC, by reference
                                   (--force: replace DST if it exists)
  lindi put [--force] [--chunks 1000,24] [--codec CODEC] FILE PATH DATA.npy
                                   write a dataset from a .npy file (replacing one at PATH; FILE is
                                   created if missing; --force: make FILE anew)
  lindi attr FILE PATH NAME VALUE  set an attribute; VALUE is JSON ('"mV"', 30000.0, [1, 2])
  lindi attr --delete FILE PATH NAME
                                   delete an attribute
  lindi rm FILE PATH               delete a group, dataset or link
  lindi compact FILE               reclaim the space of rewritten and deleted chunks (.lindi.tar, .lindi.d)
  lindi plot [-o OUT.png] [--stack] FILE DATASET [SELECTION]
                                   draw a 1-D or 2-D selection as lines or an image (NWB series against time)
  lindi serve [--ip 127.0.0.1] [--port 8888] [--max-bytes N] [--allow-origin O] [--allow-host H] [--allow-remote] (--basedir DIR | FILE_OR_URL…)
                                   serve files over h5grove's API, with the h5web viewer at /
  lindi --version                  the module version and git revision lindi was built from
  lindi CMD -h, lindi help CMD     the usage and flags of a command

Every command that reads takes --concurrency N|auto: the byte-range requests in flight per host
(default $LINDI_CONCURRENCY, else auto: adapted to what each server takes).
`

// run executes one command line and returns the exit status. It never lets a
// panic escape: a bug is reported as one line, like any other failure.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "lindi: internal error: %s\n", printable(fmt.Sprint(r)))
			code = 1
		}
	}()
	ctx = withWarnings(ctx, stderr)
	ctx = withThrottleNotes(ctx, stderr)
	out := &stagedOutput{w: stdout}
	defer out.discard()
	err := dispatch(ctx, args, out, stderr)
	if err == nil || errors.As(err, new(*partialError)) {
		if cerr := out.commit(); cerr != nil {
			err = cerr
		}
	}
	var ue *usageError
	var help *helpRequest
	switch {
	case err == nil, errors.Is(err, syscall.EPIPE):
		// A closed pipe (lindi cat … | head) is the reader's choice, not a failure.
		return 0
	case errors.As(err, &help):
		fmt.Fprint(stdout, help.text)
		return 0
	case errors.As(err, &ue):
		name := ""
		if len(args) > 0 {
			name = args[0]
		}
		fmt.Fprintf(stderr, "lindi: %v\n%s", err, commandUsage(ctx, name))
		return 2
	}
	msg := err.Error()
	if errors.Is(err, source.ErrWhole) {
		msg += " (lindi cat --max-whole BYTES allows it)"
	}
	fmt.Fprintf(stderr, "lindi: %s\n", printable(msg))
	return 1
}

func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usagef("no command")
	}
	switch args[0] {
	case "ls":
		return cmdLs(ctx, args[1:], stdout, stderr)
	case "info":
		return cmdInfo(ctx, args[1:], stdout)
	case "cat":
		return cmdCat(ctx, args[1:], stdout, stderr)
	case "table":
		return cmdTable(ctx, args[1:], stdout)
	case "nwb":
		return cmdNWB(ctx, args[1:], stdout)
	case "index":
		return cmdIndex(ctx, args[1:], stdout)
	case "cp":
		return cmdCp(ctx, args[1:])
	case "put":
		return cmdPut(ctx, args[1:])
	case "attr":
		return cmdAttr(ctx, args[1:])
	case "rm":
		return cmdRm(ctx, args[1:])
	case "compact":
		return cmdCompact(ctx, args[1:])
	case "serve":
		return cmdServe(ctx, args[1:], stderr)
	case "plot":
		return cmdPlot(ctx, args[1:])
	case "help", "-h", "--help":
		if len(args) > 1 {
			return &helpRequest{text: commandUsage(ctx, args[1])}
		}
		fmt.Fprint(stdout, usage)
		return nil
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, "lindi", version())
		return nil
	}
	return usagef("unknown command %q", args[0])
}

// stageMemory is how much of a command's output stagedOutput keeps in
// memory before it spills to a temporary file.
const stageMemory = 64 << 20

// partialError is the failure of a command that still wrote what it could
// (lindi ls --keep-going): its output is kept, and it exits 1.
type partialError struct{ err error }

func (e *partialError) Error() string { return e.err.Error() }
func (e *partialError) Unwrap() error { return e.err }

// stagedOutput holds a command's standard output until the command has
// succeeded, so that a failure writes none of it: a half-written JSON
// document or table is worse than none. Past stageMemory bytes it spills to
// a temporary file (a large "lindi cat" to a pipe); -o writes a file
// directly instead.
type stagedOutput struct {
	w     io.Writer
	buf   bytes.Buffer
	spill *os.File
}

func (s *stagedOutput) Write(p []byte) (int, error) {
	if s.spill == nil && s.buf.Len()+len(p) > stageMemory {
		f, err := os.CreateTemp("", "lindi-stdout-*")
		if err != nil {
			return 0, fmt.Errorf("staging the output: %w", err)
		}
		s.spill = f
		if _, err := s.buf.WriteTo(f); err != nil {
			return 0, fmt.Errorf("staging the output: %w", err)
		}
	}
	if s.spill != nil {
		n, err := s.spill.Write(p)
		if err != nil {
			err = fmt.Errorf("staging the output: %w", err)
		}
		return n, err
	}
	return s.buf.Write(p)
}

// commit writes what was staged to the real output.
func (s *stagedOutput) commit() error {
	if s.spill == nil {
		_, err := s.buf.WriteTo(s.w)
		return err
	}
	if _, err := s.spill.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("staging the output: %w", err)
	}
	_, err := io.Copy(s.w, s.spill)
	return err
}

// discard drops what was staged (after commit, only the temporary file).
func (s *stagedOutput) discard() {
	s.buf.Reset()
	if s.spill != nil {
		s.spill.Close()
		os.Remove(s.spill.Name())
		s.spill = nil
	}
}

// version says what lindi was built from (see versionText).
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(no build information) " + runtime.Version()
	}
	return versionText(bi)
}

// versionText is the module version of a build, the git revision and commit
// time it was built from (with "modified" when the tree had uncommitted
// changes), and the Go version and platform. go build records the revision
// in a git checkout; a build with -buildvcs=false or from a git worktree
// (whose .git is a file) records none, and versionText says so.
func versionText(bi *debug.BuildInfo) string {
	vcs := map[string]string{}
	for _, s := range bi.Settings {
		vcs[s.Key] = s.Value
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	if rev := vcs["vcs.revision"]; rev != "" {
		v += ", " + vcs["vcs"] + " " + rev
		var notes []string
		if t := vcs["vcs.time"]; t != "" {
			notes = append(notes, t)
		}
		if vcs["vcs.modified"] == "true" {
			notes = append(notes, "modified")
		}
		if len(notes) > 0 {
			v += " (" + strings.Join(notes, ", ") + ")"
		}
	} else if v == "(devel)" {
		v += ", no VCS revision recorded (built with -buildvcs=false, or outside a git checkout, or in a git worktree)"
	}
	platform := vcs["GOOS"] + "/" + vcs["GOARCH"]
	if platform == "/" {
		platform = runtime.GOOS + "/" + runtime.GOARCH
	}
	return v + ", " + bi.GoVersion + " " + platform
}

// commandUsage is the usage of the command called name, as "lindi NAME -h"
// prints it (its line of the general usage and its flags), or the general
// usage when there is no such command.
func commandUsage(ctx context.Context, name string) string {
	var help *helpRequest
	if name != "help" && name != "-h" && name != "--help" &&
		errors.As(dispatch(ctx, []string{name, "-h"}, io.Discard, io.Discard), &help) {
		return help.text
	}
	return usage
}

// helpRequest is "-h" given to a command: its usage goes to standard
// output, with exit status 0.
type helpRequest struct{ text string }

func (h *helpRequest) Error() string { return "help requested" }

// tuneGC spaces out garbage collections in a process that reads and exits:
// at the default pace a small read collected two or three times, 5-10% of
// its time. Unless GOGC or GOMEMLIMIT says otherwise, the heap may grow to
// five times what is live between collections (GOGC=400); readUnderLimit
// goes further for the read itself.
func tuneGC() {
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		debug.SetGCPercent(400)
	}
}

// readUnderLimit turns the collector off for a read of elements of size
// bytes each, with a memory limit as the safety net: what the runtime holds
// now, twice the read (its output, and its fetched and scratch buffers) and
// the fetcher's bytes-in-flight budget. The collector runs only if the read allocates
// past that, and then finds garbage to reclaim: the limit is above what can
// be live. GOGC or GOMEMLIMIT in the environment leave it alone.
func readUnderLimit(elements, size int) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" || size > 0 && elements > math.MaxInt64/4/size {
		return // an impossible read fails its size check later
	}
	n := int64(elements) * int64(size)
	debug.SetMemoryLimit(heldMemory() + 2*n + fetch.DefaultBudget + 64<<20)
	debug.SetGCPercent(-1)
}

// heldMemory returns about what the process holds: its resident set where
// /proc says it (a little more than what the runtime holds, as it counts
// the program's own pages), else the runtime's Sys. runtime.ReadMemStats
// stops the world, 1.3-1.6 ms at the start of every lindi cat here, and
// runtime/metrics costs 0.7 ms to set up.
func heldMemory() int64 {
	if b, err := os.ReadFile("/proc/self/statm"); err == nil {
		var size, resident int64
		if _, err := fmt.Sscan(string(b), &size, &resident); err == nil && resident > 0 {
			return resident * int64(os.Getpagesize())
		}
	}
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return int64(m.Sys)
}
