package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/internal/atomicfile"
	"github.com/lindigo/lindi/io/source"
	"github.com/lindigo/lindi/selection"
	"github.com/lindigo/lindi/zarrmeta"
)

func cmdCat(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("cat", flag.ContinueOnError)
	out := fs.String("o", "", "write to this file instead of stdout (- is stdout); it appears only once complete")
	format := fs.String("f", "", "output format: npy, csv, json or text (default: from -o's extension, else text)")
	stats := fs.Bool("stats", false, "print I/O statistics to stderr")
	maxBytes := fs.Int64("max-bytes", 0, "largest result to read, in bytes (default: half of the memory available)")
	maxWhole := fs.Int64("max-whole", 0, "largest file to take whole from a server that ignores Range, in bytes (default 1 MiB)")
	field := fs.String("field", "", "read only this field of a compound dataset")
	cache := fs.String("cache", "", "keep fetched byte ranges in this directory for later runs (default $LINDI_CACHE_DIR)")
	ctx, pos, err := parseReadArgs(ctx, fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 2 || len(pos) > 3 {
		return usagef("cat takes FILE DATASET[@ATTR] [SELECTION]")
	}
	if *out == "-" {
		*out = ""
	}
	fmtName, err := outputFormat(*format, *out)
	if err != nil {
		return err
	}
	sel := selection.Selection{}
	if len(pos) == 3 {
		if sel, err = selection.Parse(pos[2]); err != nil {
			return usagef("selection %q: %v", pos[2], err)
		}
	}
	// One read in a process that then exits: a cache of fetched ranges
	// would only copy every byte once more.
	opts := []h5.Option{h5.WithCacheBytes(0)}
	if *maxBytes != 0 {
		if *maxBytes < 0 {
			return usagef("--max-bytes must be positive")
		}
		opts = append(opts, h5.WithMaxReadBytes(*maxBytes))
	}
	if *cache != "" {
		opts = append(opts, h5.WithDiskCache(*cache, 0))
	}
	if *maxWhole != 0 {
		if *maxWhole < 0 {
			return usagef("--max-whole must be positive")
		}
		opts = append(opts, h5.WithSourceOptions(source.WithMaxWhole(*maxWhole)))
	}
	if at := strings.LastIndexByte(pos[1], '@'); at >= 0 {
		obj, attr := pos[1][:at], pos[1][at+1:]
		if len(pos) == 3 || *field != "" || fmtName == "npy" {
			return usagef("an attribute (%s) is written as text, CSV or JSON, with no selection and no --field", pos[1])
		}
		return catAttr(ctx, pos[0], obj, attr, fmtName, *out, stdout, opts)
	}
	bar := newProgress(stderr, pos[1])
	if bar != nil {
		opts = append(opts, h5.WithProgress(bar.update))
	}
	f, err := openFile(ctx, pos[0], opts...)
	if err != nil {
		return err
	}
	defer f.Close()
	d, err := f.Dataset(ctx, pos[1])
	if err != nil {
		return err
	}
	if d.Null() {
		return writeFile(*out, stdout, func(w io.Writer) error { return writeNull(w, fmtName, d) })
	}
	if r, ok := streamable(d, sel); ok && fmtName == "npy" && *field == "" {
		readUnderLimit(r.Len(), d.DType().Size)
		shape := r.Shape()
		// Numbers to .npy: the file is written while the chunks decode.
		err := writeFile(*out, stdout, func(w io.Writer) error { return streamNPY(ctx, w, d, sel, shape) })
		if bar != nil {
			bar.finish()
		}
		if err == nil && *stats {
			printStats(stderr, f)
		}
		return err
	}
	var a *h5.Array
	if *field != "" {
		// Only the field reaches the result: the other fields are not kept.
		a, err = d.ReadField(ctx, *field, sel)
	} else {
		a, err = d.Read(ctx, sel)
	}
	if bar != nil {
		bar.finish()
	}
	if err != nil {
		return err
	}
	if *stats {
		printStats(stderr, f)
	}
	return writeOutput(a, fmtName, *out, stdout)
}

// catAttr writes one attribute of the object at path (the root when empty).
func catAttr(ctx context.Context, name, path, attr, format, out string, stdout io.Writer, opts []h5.Option) error {
	f, err := openFile(ctx, name, opts...)
	if err != nil {
		return err
	}
	defer f.Close()
	if path == "" {
		path = "/"
	}
	obj, err := f.Get(ctx, path)
	if err != nil {
		return err
	}
	v, err := obj.Attrs().Get(attr)
	if err != nil {
		return err
	}
	v = attrForm(v)
	return writeFile(out, stdout, func(w io.Writer) error {
		if format == "json" {
			b, err := json.Marshal(jsonValue(v))
			if err != nil {
				return err
			}
			_, err = w.Write(append(b, '\n'))
			return err
		}
		_, err := io.WriteString(w, formatValue(v)+"\n")
		return err
	})
}

// outputFormat picks the format from -f, else from -o's extension, else
// text. A -f that contradicts the extension (-f csv -o x.npy) is refused.
func outputFormat(format, out string) (string, error) {
	ext := strings.ToLower(filepath.Ext(out))
	byExt := map[string]string{".npy": "npy", ".csv": "csv", ".json": "json", ".txt": "text"}[ext]
	switch format {
	case "npy", "csv", "json", "text":
		if byExt != "" && byExt != format {
			return "", usagef("-f %s contradicts -o %s, whose extension says %s: drop -f or change the name", format, out, byExt)
		}
		return format, nil
	case "":
	default:
		return "", usagef("unknown format %q (want npy, csv, json or text)", format)
	}
	if byExt != "" {
		return byExt, nil
	}
	return "text", nil
}

func writeOutput(a *h5.Array, format, out string, stdout io.Writer) error {
	return writeFile(out, stdout, func(w io.Writer) error {
		switch format {
		case "npy":
			return writeNPY(w, a)
		case "csv":
			return writeCSV(w, a)
		case "json":
			return writeJSON(w, a)
		}
		return writeText(w, a)
	})
}

// writeFile runs write on a buffered stdout, or on a temporary file beside
// out renamed to out once complete (atomicfile.Replace: mode 0666 less the
// umask for a new out): a failure leaves no file behind. An out
// that exists and is not a regular file (/dev/null, a named pipe, a terminal)
// is written in place: renaming over it would replace the device.
func writeFile(out string, stdout io.Writer, write func(io.Writer) error) (err error) {
	if out == "" {
		return writeBuffered(stdout, write)
	}
	if fi, err := os.Stat(out); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		f, err := os.OpenFile(out, os.O_WRONLY, 0)
		if err != nil {
			return outputError(out, err)
		}
		if err := writeBuffered(f, write); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return outputError(out, err)
		}
		return nil
	}
	err = atomicfile.Replace(out, write, nil)
	// An error of the temporary file, or of its rename, is one of out; others
	// (reading the source) are returned as they are.
	var pe *fs.PathError
	var le *os.LinkError
	if errors.As(err, &le) || errors.As(err, &pe) && strings.HasPrefix(filepath.Base(pe.Path), "."+filepath.Base(out)+".tmp-") {
		return outputError(out, err)
	}
	return err
}

// writeBuffered runs write on w through a buffer and flushes it.
func writeBuffered(w io.Writer, write func(io.Writer) error) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	if err := write(bw); err != nil {
		return err
	}
	return bw.Flush()
}

// outputError reports a failure to write the output file out, naming out
// rather than the temporary file it is written through.
func outputError(out string, err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	switch {
	case errors.As(err, &pe):
		err = pe.Err
	case errors.As(err, &le):
		err = le.Err
	}
	return fmt.Errorf("write %s: %w", out, err)
}

func printStats(w io.Writer, f *h5.File) {
	for _, s := range f.Stats() {
		fmt.Fprintf(w, "%s: %d requests, %d bytes, %d retries, %d cache hits, %v in requests\n",
			s.Name, s.Requests, s.Bytes, s.Retries, s.CacheHits, s.Time)
	}
	printHosts(w)
}

// writeJSON writes the array as nested JSON lists (a bare value for a
// scalar), streaming: brackets open and close as the C-order index rolls
// over the axes.
func writeJSON(w io.Writer, a *h5.Array) error {
	if a.Len() == 0 {
		nested, _ := nest(nil, a.Shape)
		return json.NewEncoder(w).Encode(nested)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	spans := make([]int, len(a.Shape)) // spans[d]: elements per index of axis d-1
	span := 1
	for d := len(a.Shape) - 1; d >= 0; d-- {
		span *= a.Shape[d]
		spans[d] = span
	}
	err := eachElement(a, func(i int, v any) error {
		buf.Reset()
		rolled := 0 // axes whose index starts over at element i
		for _, s := range spans {
			if i%s == 0 {
				rolled++
			}
		}
		if i > 0 {
			buf.WriteString(strings.Repeat("]", rolled) + ",")
		}
		buf.WriteString(strings.Repeat("[", rolled))
		if err := enc.Encode(jsonValue(v)); err != nil {
			return err
		}
		buf.Truncate(buf.Len() - 1) // Encode's newline
		_, err := w.Write(jsonEscape(buf.Bytes()))
		return err
	})
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, strings.Repeat("]", len(a.Shape))+"\n")
	return err
}

// nest folds C-order elements into nested lists of the given shape.
func nest(els []any, shape []int) (any, []any) {
	if len(shape) == 0 {
		return els[0], els[1:]
	}
	out := make([]any, shape[0])
	for i := range out {
		out[i], els = nest(els, shape[1:])
	}
	return out, els
}

// writeCSV writes one row per index of the leading axes and one column per
// index of the last axis (a 0-d or 1-d array is one column); a compound
// array is a header of its field names and one row per element.
func writeCSV(w io.Writer, a *h5.Array) error {
	if a.DType.Kind == zarrmeta.KindStruct {
		return writeRecordsCSV(w, a)
	}
	cols := 1
	if len(a.Shape) >= 2 {
		cols = a.Shape[len(a.Shape)-1]
	}
	return eachElement(a, func(i int, v any) error {
		s := formatValue(v)
		if str, ok := v.(string); ok {
			s = csvQuote(str)
		}
		sep := ","
		if (i+1)%cols == 0 {
			sep = "\n"
		}
		_, err := io.WriteString(w, s+sep)
		return err
	})
}

// writeRecordsCSV writes a compound array: a header, then a row per element.
func writeRecordsCSV(w io.Writer, a *h5.Array) error {
	names := fieldNames(a.DType)
	for i, n := range names {
		names[i] = csvQuote(n)
	}
	if _, err := io.WriteString(w, strings.Join(names, ",")+"\n"); err != nil {
		return err
	}
	return eachElement(a, func(i int, v any) error {
		r, ok := v.(record)
		if !ok {
			return fmt.Errorf("element %d is %T, not a compound row", i, v)
		}
		cells := make([]string, len(r.vals))
		for k, x := range r.vals {
			cells[k] = formatValue(x)
			if str, ok := x.(string); ok {
				cells[k] = csvQuote(str)
			}
		}
		_, err := io.WriteString(w, strings.Join(cells, ",")+"\n")
		return err
	})
}

func csvQuote(s string) string {
	if !strings.ContainsAny(s, ",\"\n\r") {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// writeText renders the array for people: its shape and dtype, then one line
// per row of the last axis, with blank lines between the blocks of higher axes.
func writeText(w io.Writer, a *h5.Array) error {
	fmt.Fprintf(w, "# shape %s, dtype %s\n", zarrmeta.Tuple(a.Shape), printable(a.DType.String()))
	cols, block := 1, 0
	if len(a.Shape) >= 1 {
		cols = max(a.Shape[len(a.Shape)-1], 1)
	}
	if len(a.Shape) >= 3 {
		block = cols * a.Shape[len(a.Shape)-2]
	}
	if len(a.Shape) == 1 {
		cols = 1 // a vector prints one element per line
	}
	return eachElement(a, func(i int, v any) error {
		if block > 0 && i > 0 && i%block == 0 {
			io.WriteString(w, "\n")
		}
		sep := " "
		if (i+1)%cols == 0 {
			sep = "\n"
		}
		_, err := io.WriteString(w, formatValue(v)+sep)
		return err
	})
}

// blockLen is how many elements the text formats convert at a time: the
// memory of cat is the array plus one block, whatever the array's size.
const blockLen = 4096

// eachElement calls fn with the index and value (see elements) of every
// element of a, in C order, converting them a block at a time.
func eachElement(a *h5.Array, fn func(i int, v any) error) error {
	n := a.Len()
	for lo := 0; lo < n; lo += blockLen {
		hi := min(lo+blockLen, n)
		els, err := elementsOf(a, lo, hi)
		if err != nil {
			return err
		}
		for k, v := range els {
			if err := fn(lo+k, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// elementsOf returns elements lo to hi of a.
func elementsOf(a *h5.Array, lo, hi int) ([]any, error) {
	if a.Objects != nil {
		if a.DType.Kind != zarrmeta.KindStruct {
			return a.Objects[lo:hi], nil
		}
		els := make([]any, hi-lo)
		for i, v := range a.Objects[lo:hi] {
			els[i] = asRecord(v, a.DType)
		}
		return els, nil
	}
	size := a.DType.Size
	return elements(&h5.Array{DType: a.DType, Shape: []int{hi - lo}, Data: a.Data[lo*size : hi*size]})
}
