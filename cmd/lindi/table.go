package main

import (
	"context"
	"encoding/csv"
	"flag"
	"io"
	"strconv"

	"github.com/lindigo/lindi/nwb"
)

// tableBlock is how many rows "lindi table -f csv" reads at a time.
const tableBlock = 4096

// cmdTable writes a DynamicTable as JSON (one member per column plus id) or
// CSV (one line per row).
func cmdTable(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("table", flag.ContinueOnError)
	format := fs.String("f", "json", "output format: json or csv")
	ctx, pos, err := parseReadArgs(ctx, fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("table takes FILE PATH")
	}
	if *format != "json" && *format != "csv" {
		return usagef("unknown table format %q (json or csv)", *format)
	}
	f, err := nwb.Open(ctx, pos[0], openOptions(ctx)...)
	if err != nil {
		return err
	}
	defer f.Close()
	t, err := f.Table(ctx, pos[1])
	if err != nil {
		return err
	}
	if *format == "csv" {
		return writeTableCSV(ctx, stdout, t)
	}
	return writeTableJSON(ctx, stdout, t)
}

// writeTableJSON writes {"id": [...], "<col>": [...], ...}, one column read
// at a time.
func writeTableJSON(ctx context.Context, w io.Writer, t *nwb.Table) error {
	ids, err := t.IDs(ctx, 0, t.Len())
	if err != nil {
		return err
	}
	b := []byte(`{"id":[`)
	for i, id := range ids {
		if i > 0 {
			b = append(b, ',')
		}
		b, _ = appendPyJSON(b, id)
	}
	b = append(b, ']')
	for _, name := range t.Columns() {
		c, err := t.Column(name)
		if err != nil {
			return err
		}
		cells, err := c.Cells(ctx, 0, t.Len())
		if err != nil {
			return err
		}
		b = append(b, ',')
		b = appendJSONString(b, name)
		b = append(b, ':')
		if b, err = appendPyJSON(b, cells); err != nil {
			return err
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
		b = b[:0]
	}
	_, err = w.Write(append(b, "}\n"...))
	return err
}

// writeTableCSV writes a header of id and the column names, then a line per
// row, reading blocks of rows.
func writeTableCSV(ctx context.Context, w io.Writer, t *nwb.Table) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(append([]string{"id"}, t.Columns()...)); err != nil {
		return err
	}
	for start := 0; start < t.Len(); start += tableBlock {
		rows, err := t.Rows(ctx, start, min(start+tableBlock, t.Len()))
		if err != nil {
			return err
		}
		for _, r := range rows {
			rec := []string{strconv.FormatInt(r.ID, 10)}
			for _, v := range r.Cells {
				s, err := cellText(v)
				if err != nil {
					return err
				}
				rec = append(rec, s)
			}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}
