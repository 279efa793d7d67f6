package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/lindigo/lindi/nwb"
)

// cmdNWB prints a summary of an NWB file: its session, subject and devices,
// then a line per time series and per table, in path order; for an
// amendment (nwb.Amend's), its source and what it added: the new objects
// and the source's tables it appended rows to.
func cmdNWB(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("nwb", flag.ContinueOnError)
	args, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(args) != 1 {
		return usagef("nwb takes FILE")
	}
	f, err := nwb.Open(ctx, args[0], openOptions(ctx)...)
	if err != nil {
		return err
	}
	defer f.Close()
	s, err := f.Session(ctx)
	if err != nil {
		return err
	}
	objs, err := f.Objects(ctx)
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintf(w, "%s\tNWB %s (%s)\n", printable(args[0]), printable(f.Version()), f.H5().Format())
	printSession(w, s)
	fmt.Fprintln(w)
	for _, o := range objs {
		line, err := describeObject(ctx, f, o)
		if err != nil {
			return err
		}
		if line != "" {
			fmt.Fprintf(w, "%s\t%s\t%s\n", printable(strings.TrimPrefix(o.Path, "/")), printable(o.Type), line)
		}
	}
	if err := printAdded(ctx, w, f); err != nil {
		return err
	}
	return w.Flush()
}

// printAdded prints, for an amendment, its source and what it added: the
// new objects (not the members of a new table or series, but those of a
// new ProcessingModule) and
// the source's tables with rows appended.
func printAdded(ctx context.Context, w io.Writer, f *nwb.File) error {
	ad, err := f.Added(ctx)
	if ad == nil {
		return err
	}
	fmt.Fprintf(w, "\namends\t%s\n", printable(ad.Source))
	if err != nil {
		// The source moved or is offline: say so, the rest is printed.
		fmt.Fprintf(w, "added\tunknown: %s\n", printable(err.Error()))
		return nil
	}
	if len(ad.Objects) == 0 && len(ad.Grown) == 0 {
		fmt.Fprintln(w, "added\tnothing")
	}
	var parts []string // added objects whose members are parts of them, not listed
	for _, o := range ad.Objects {
		if slices.ContainsFunc(parts, func(p string) bool { return strings.HasPrefix(o.Path, p+"/") }) {
			continue
		}
		if o.Type != "ProcessingModule" {
			parts = append(parts, o.Path)
		}
		fmt.Fprintf(w, "added\t%s\t%s\n", printable(strings.TrimPrefix(o.Path, "/")), printable(o.Type))
	}
	for _, g := range ad.Grown {
		fmt.Fprintf(w, "appended\t%s\t%d rows (%d before)\n", printable(strings.TrimPrefix(g.Path, "/")), g.Rows-g.Before, g.Before)
	}
	return nil
}

// printSession prints the fields of s that the file has.
func printSession(w io.Writer, s nwb.Session) {
	for _, kv := range [][2]string{
		{"session", s.Description},
		{"identifier", s.Identifier},
		{"start", s.StartTime},
		{"lab", s.Lab},
		{"institution", s.Institution},
		{"experimenter", strings.Join(s.Experimenters, ", ")},
		{"devices", strings.Join(s.Devices, ", ")},
	} {
		if kv[1] != "" {
			fmt.Fprintf(w, "%s\t%s\n", kv[0], printable(kv[1]))
		}
	}
	if len(s.Subject) > 0 {
		keys := make([]string, 0, len(s.Subject))
		for k := range s.Subject {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var parts []string
		for _, k := range keys {
			parts = append(parts, k+" "+s.Subject[k])
		}
		fmt.Fprintf(w, "subject\t%s\n", printable(strings.Join(parts, ", ")))
	}
}

// describeObject summarises a time series or a table in one line; other
// objects give "".
func describeObject(ctx context.Context, f *nwb.File, o nwb.Object) (string, error) {
	if !o.Group {
		return "", nil
	}
	g, err := f.H5().Group(ctx, o.Path)
	if err != nil {
		return "", err
	}
	if _, err := g.Dataset(ctx, "data"); err == nil {
		if ts, err := f.TimeSeries(ctx, o.Path); err == nil {
			return describeSeries(ctx, ts)
		}
	}
	if _, err := g.Dataset(ctx, "id"); err == nil {
		t, err := f.Table(ctx, o.Path)
		if err != nil {
			return "", err
		}
		return describeTable(ctx, t)
	}
	return "", nil
}

// describeSeries gives shape, dtype, unit, timing and duration.
func describeSeries(ctx context.Context, ts *nwb.TimeSeries) (string, error) {
	d := ts.Data()
	shape := strings.Trim(strings.Join(strings.Fields(fmt.Sprint(d.Shape())), " × "), "[]")
	parts := []string{shape + " " + printable(d.DType().String())}
	if u := ts.Unit(); u != "" {
		parts = append(parts, printable(u))
	}
	first, last := 0.0, 0.0
	if n := ts.Len(); n > 0 {
		a, err := ts.Timestamps(ctx, 0, 1)
		if err != nil {
			return "", err
		}
		b, err := ts.Timestamps(ctx, n-1, n)
		if err != nil {
			return "", err
		}
		first, last = a[0], b[0]
	}
	if rate, ok := ts.Rate(); ok {
		parts = append(parts, fmt.Sprintf("%g Hz", rate))
		last += 1 / rate // the last sample lasts one period
	} else {
		parts = append(parts, "timestamps")
	}
	parts = append(parts, fmt.Sprintf("%.6g–%.6g s (%.6g s)", first, last, last-first))
	return strings.Join(parts, "\t"), nil
}

// describeTable gives rows, columns and, for intervals, the time span.
func describeTable(ctx context.Context, t *nwb.Table) (string, error) {
	line := fmt.Sprintf("%d rows\tcolumns: %s", t.Len(), printable(strings.Join(t.Columns(), ", ")))
	if t.Has("spike_times") {
		c, _ := t.Column("spike_times")
		if c.Depth() == 1 {
			line += fmt.Sprintf("; %d spikes", c.Data().Size())
		}
	}
	return line, nil
}
