package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
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
	ctx, args, err := parseReadArgs(ctx, fs, args)
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
	all, err := f.AllTimeSeries(ctx)
	if err != nil {
		return err
	}
	series := map[string]nwb.SeriesSummary{}
	for _, ts := range all {
		series[ts.Path] = ts
	}
	w := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	// The title is no column: the session block is as wide as its names.
	fmt.Fprintf(w, "%s  NWB %s (%s)\n", printable(args[0]), printable(f.Version()), f.H5().Format())
	printSession(w, s)
	fmt.Fprintln(w)
	for _, o := range objs {
		line, err := describeObject(ctx, f, o, series)
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
		fmt.Fprintf(w, "appended\t%s\t%s (%d before)\n", printable(strings.TrimPrefix(g.Path, "/")), count(g.Rows-g.Before, "row"), g.Before)
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

// describeObject summarises a time series (one of series) or a table in
// one line; other objects give "".
func describeObject(ctx context.Context, f *nwb.File, o nwb.Object, series map[string]nwb.SeriesSummary) (string, error) {
	if ts, ok := series[o.Path]; ok {
		return describeSeries(ts), nil
	}
	if !o.Group {
		return "", nil
	}
	g, err := f.H5().Group(ctx, o.Path)
	if err != nil {
		return "", err
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
func describeSeries(ts nwb.SeriesSummary) string {
	shape := strings.Trim(strings.Join(strings.Fields(fmt.Sprint(ts.Shape)), " × "), "[]")
	parts := []string{shape + " " + printable(ts.DType.String())}
	if ts.Unit != "" {
		parts = append(parts, printable(ts.Unit))
	}
	if ts.Rate > 0 {
		parts = append(parts, fmt.Sprintf("%g Hz", ts.Rate))
	} else {
		parts = append(parts, "timestamps")
	}
	first, last := span(ts.Start, ts.End)
	parts = append(parts, fmt.Sprintf("%s–%s s (%.6g s)", first, last, ts.Duration))
	return strings.Join(parts, "\t")
}

// span formats the ends of a time span with six significant digits, or as
// many more as tell them apart (123.6–123.6005, not 123.6–123.6).
func span(first, last float64) (string, string) {
	for digits := 6; ; digits++ {
		a := strconv.FormatFloat(first, 'g', digits, 64)
		b := strconv.FormatFloat(last, 'g', digits, 64)
		if a != b || first == last || digits == 17 {
			return a, b
		}
	}
}

// describeTable gives rows, columns and, for intervals, the time span.
func describeTable(ctx context.Context, t *nwb.Table) (string, error) {
	line := fmt.Sprintf("%s\tcolumns: %s", count(t.Len(), "row"), printable(strings.Join(t.Columns(), ", ")))
	if t.Has("spike_times") {
		c, _ := t.Column("spike_times")
		if c.Depth() == 1 {
			line += "; " + count(c.Data().Size(), "spike")
		}
	}
	return line, nil
}

// count gives n and the noun, plural unless n is 1: "1 row", "3 rows".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
