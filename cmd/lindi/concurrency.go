package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sync"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/io/fetch"
	"github.com/lindigo/lindi/io/source"
)

// concurrencyUsage is the help of --concurrency, on every command that reads.
const concurrencyUsage = "byte-range requests in flight per host: a number, or auto to adapt to what the server takes (default $" + source.ConcurrencyEnv + ", else auto)"

// concurrencyFlag adds --concurrency to a command's flags; withConcurrency
// applies its value after parsing.
func concurrencyFlag(fs *flag.FlagSet) *string {
	return fs.String("concurrency", "", concurrencyUsage)
}

type concurrencyKey struct{}

// withConcurrency checks the value of --concurrency ("" when not given:
// LINDI_CONCURRENCY's, which the library reads) and keeps it for the files
// the command opens (openOptions).
func withConcurrency(ctx context.Context, v string) (context.Context, error) {
	if v == "" {
		if _, err := source.ConcurrencyFromEnv(); err != nil {
			return nil, err
		}
		return ctx, nil
	}
	n, err := source.ParseConcurrency(v)
	if err != nil {
		return nil, usagef("--%v", err)
	}
	return context.WithValue(ctx, concurrencyKey{}, n), nil
}

// concurrencyOptions are the options the --concurrency of ctx stands for:
// none without the flag (the library reads LINDI_CONCURRENCY).
func concurrencyOptions(ctx context.Context) []h5.Option {
	n, ok := ctx.Value(concurrencyKey{}).(int)
	switch {
	case !ok:
		return nil
	case n > 0:
		return []h5.Option{h5.WithConcurrency(n)}
	}
	// auto, over a LINDI_CONCURRENCY that may fix it: reads keep the
	// default number in flight, and each host's limit adapts.
	return []h5.Option{h5.WithConcurrency(fetch.DefaultConcurrency), h5.WithSourceOptions(source.WithConcurrency(0))}
}

// sourceConcurrency is the source option of the --concurrency of ctx, for
// commands that open sources themselves (index); nil without the flag.
func sourceConcurrency(ctx context.Context) []source.Option {
	if n, ok := ctx.Value(concurrencyKey{}).(int); ok {
		return []source.Option{source.WithConcurrency(n)}
	}
	return nil
}

type throttleKey struct{}

// withThrottleNotes makes the files the commands open say on w, once per
// host, when a host throttles and its concurrency backs off.
func withThrottleNotes(ctx context.Context, w io.Writer) context.Context {
	var mu sync.Mutex
	told := map[string]bool{}
	note := func(th source.Throttle) {
		mu.Lock()
		defer mu.Unlock()
		if told[th.Host] {
			return
		}
		told[th.Host] = true
		fmt.Fprintf(w, "lindi: %s is throttling (%s): concurrency backed off to %d\n", printable(th.Host), printable(th.Why), th.Limit)
	}
	return context.WithValue(ctx, throttleKey{}, note)
}

// throttleOption is the source option that reports throttling hosts, when
// ctx has one.
func throttleOption(ctx context.Context) []source.Option {
	if note, ok := ctx.Value(throttleKey{}).(func(source.Throttle)); ok {
		return []source.Option{source.WithThrottleNotice(note)}
	}
	return nil
}

// printHosts prints, per host, the concurrency the reads settled on.
func printHosts(w io.Writer) {
	for _, h := range source.Hosts() {
		mode := "auto"
		if h.Fixed {
			mode = "fixed"
		}
		fmt.Fprintf(w, "%s: concurrency %d (%s; lowest %d, highest %d, %d back-offs), %d requests\n",
			printable(h.Host), h.Limit, mode, h.Lowest, h.Highest, h.Backoffs, h.Requests)
	}
}

// parseReadArgs is parseArgs for a command that reads: it adds
// --concurrency to fs and returns ctx carrying its value.
func parseReadArgs(ctx context.Context, fs *flag.FlagSet, args []string) (context.Context, []string, error) {
	v := concurrencyFlag(fs)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return ctx, nil, err
	}
	ctx, err = withConcurrency(ctx, *v)
	return ctx, pos, err
}
