// Command lindi-bench measures lindi's reads and writes: remote reads against
// a simulated network (an in-process HTTP server with latency and limited
// bandwidth), writes against the disk's sequential write, each beside its
// floor. It is kept out of the lindi command, so that the shipped binary
// carries no test server, generator or subprocess runner. Run it from the
// repository:
//
//	go run ./cmd/lindi-bench [reads] [-latency D] [-bandwidth MB/s] [-concurrency N]
//	go run ./cmd/lindi-bench write [-mb N] [-dir DIR]
//	go run ./cmd/lindi-bench put [-mb N] [-dir DIR] [-lindi PATH]
//	go run ./cmd/lindi-bench blocks [-rows N] [-ahead N] [-runs N] FILE SERIES
//	go run ./cmd/lindi-bench zarr3 [-latency D] [-bandwidth MB/s] [-concurrency N] [-write DIR] [-zarrita DIR]
//	go run ./cmd/lindi-bench zarrshadow [-latency D] [-bandwidth MB/s]
//
// Flags come before a command's arguments. lindi-bench exits 0 on success,
// 1 when something fails, and 2 on a usage error.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

const usage = `usage:
  lindi-bench [reads] [flags]       parallel remote reads (LINDI JSON, HDF5) against a simulated network
  lindi-bench write [flags]         writing a noisy int16 dataset into a .lindi.tar, against the disk
  lindi-bench put [flags]           the whole lindi put process of a .npy into an empty .lindi.tar
  lindi-bench blocks [flags] FILE SERIES
                                    per-channel mean and SD of an NWB series, read block by block
  lindi-bench zarr3 [flags]         reads of a sharded Zarr v3 array (and zarrita.js's)
  lindi-bench zarrshadow [flags]    a 2-million-chunk zarrshadow reference store with a chunk index
  lindi-bench help [CMD]            this list, or a command's flags (also lindi-bench CMD -h)
`

// commands are the measurements, by name; lindi-bench with no command
// measures reads.
var commands = map[string]func(ctx context.Context, args []string, stdout io.Writer) error{
	"reads":      cmdReads,
	"write":      cmdWrite,
	"put":        cmdPut,
	"blocks":     cmdBlocks,
	"zarr3":      cmdZarr3,
	"zarrshadow": cmdZarrshadow,
}

// commandArgs are the arguments a command takes after its flags.
var commandArgs = map[string]string{"blocks": " FILE SERIES"}

// run executes one command line and returns the exit status. A measurement
// reports as it goes, on stdout.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	err := dispatch(ctx, args, stdout)
	var ue *usageError
	var help *helpRequest
	switch {
	case err == nil:
		return 0
	case errors.As(err, &help):
		fmt.Fprint(stdout, help.text)
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "lindi-bench: %v\n%s", err, usage)
		return 2
	}
	fmt.Fprintf(stderr, "lindi-bench: %v\n", err)
	return 1
}

func dispatch(ctx context.Context, args []string, stdout io.Writer) error {
	name := "reads"
	switch {
	case len(args) > 0 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help"):
		fmt.Fprint(stdout, usage)
		return nil
	case len(args) > 0 && !strings.HasPrefix(args[0], "-"):
		name, args = args[0], args[1:]
	}
	if name == "help" {
		if len(args) == 0 {
			fmt.Fprint(stdout, usage)
			return nil
		}
		if _, ok := commands[args[0]]; !ok {
			return usagef("no command %q", args[0])
		}
		return dispatch(ctx, []string{args[0], "-h"}, stdout)
	}
	cmd, ok := commands[name]
	if !ok {
		return usagef("unknown command %q", name)
	}
	return cmd(ctx, args, stdout)
}

// usageError is a mistake in the command line: exit status 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// helpRequest is "-h" given to a command: its flags go to standard output,
// with exit status 0.
type helpRequest struct{ text string }

func (h *helpRequest) Error() string { return "help requested" }

// parseFlags parses a command's flags, which come before its arguments, and
// returns the arguments.
func parseFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		var b strings.Builder
		fmt.Fprintf(&b, "usage: lindi-bench %s [flags]%s\n", fs.Name(), commandArgs[fs.Name()])
		fs.SetOutput(&b)
		fs.PrintDefaults()
		return nil, &helpRequest{text: b.String()}
	}
	if err != nil {
		return nil, usagef("%v", err)
	}
	return fs.Args(), nil
}
