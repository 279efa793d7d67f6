package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/internal/npy"
	"github.com/lindigo/lindi/zarrmeta"
)

// The commands that write: each opens the file for writing, changes it,
// and commits once (atomically) on success; they print nothing.

// cmdCp makes DST, a new LINDI file, from any readable SRC, by reference.
func cmdCp(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("cp", flag.ContinueOnError)
	force := fs.Bool("force", false, "replace DST if it exists (committed atomically: a failure leaves the old DST)")
	ctx, pos, err := parseReadArgs(ctx, fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("cp takes SRC DST")
	}
	src, err := openFile(ctx, pos[0])
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := h5.CreateFrom(ctx, pos[1], src, createMode(*force)...)
	if err != nil {
		return existsHint(pos[1], err)
	}
	return dst.Close()
}

// createMode gives the options of a new file: replacing what exists with
// --force (h5py's mode "w"), failing otherwise (mode "x").
func createMode(force bool) []h5.Option {
	if force {
		return []h5.Option{h5.WithReplace()}
	}
	return nil
}

// existsHint says which flag replaces the file name when err says it
// exists.
func existsHint(name string, err error) error {
	if errors.Is(err, os.ErrExist) {
		return fmt.Errorf("%s: %w; --force replaces it", name, os.ErrExist)
	}
	return err
}

// amend opens FILE for writing, runs change, and commits; a failure
// commits nothing.
func amend(ctx context.Context, name string, change func(f *h5.File) error) error {
	f, err := openAmend(ctx, name)
	if err != nil {
		return err
	}
	if err := change(f); err != nil {
		f.Discard()
		return err
	}
	return f.Close()
}

// openAmend opens the existing file name for writing, saying how to amend
// a file that is not LINDI.
func openAmend(ctx context.Context, name string) (*h5.File, error) {
	f, err := h5.OpenWrite(ctx, name, openOptions(ctx)...)
	if err == nil || errors.Is(err, os.ErrNotExist) {
		return f, err
	}
	if r, rerr := h5.Open(ctx, name); rerr == nil {
		format := r.Format()
		r.Close()
		if !strings.HasPrefix(format, "LINDI") {
			return nil, fmt.Errorf("%s is a %s file, which is not written in place: make an amendable copy first (lindi cp %s X.lindi.tar)", name, format, name)
		}
	}
	return nil, err
}

// cmdPut writes a dataset from a .npy file, replacing one that exists. A
// missing FILE is created (h5py's mode "a"); --force makes FILE anew,
// replacing it (mode "w"). FILE is opened before the .npy is read, so
// that an output that cannot be written fails at once.
func cmdPut(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("put", flag.ContinueOnError)
	force := fs.Bool("force", false, "make FILE anew, replacing it if it exists (committed atomically: a failure leaves the old FILE)")
	chunks := fs.String("chunks", "", "chunk shape, as 1000,24 (default: lindi's, about 20 MiB along axis 0)")
	codec := fs.String("codec", "", `compressor: a numcodecs configuration as JSON, e.g. '{"id":"zlib","level":4}', or none (default: lindi's, Blosc LZ4 with shuffle)`)
	ctx, pos, err := parseReadArgs(ctx, fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 3 {
		return usagef("put takes FILE PATH DATA.npy")
	}
	spec := h5.DatasetSpec{}
	if *chunks != "" {
		if spec.Chunks, err = parseShape(*chunks); err != nil {
			return usagef("--chunks %q: %v", *chunks, err)
		}
	}
	switch *codec {
	case "":
	case "none":
		spec.Codec = h5.NoCodec
	default:
		if !json.Valid([]byte(*codec)) {
			return usagef("--codec %q is not JSON (or none)", *codec)
		}
		spec.Codec = json.RawMessage(*codec)
	}
	f, err := openPut(ctx, pos[0], *force)
	if err != nil {
		return err
	}
	// The mapping outlives Close: the commit may still read chunks of it.
	in, release, err := mapFile(pos[2])
	if err != nil {
		f.Discard()
		return err
	}
	defer release()
	if err := put(ctx, f, pos[1], pos[2], in, spec); err != nil {
		f.Discard()
		return err
	}
	return f.Close()
}

// openPut opens the output of put for writing: made anew with force,
// created when missing, amended otherwise.
func openPut(ctx context.Context, name string, force bool) (*h5.File, error) {
	if force {
		return h5.Create(ctx, name, append(openOptions(ctx), h5.WithReplace())...)
	}
	if _, err := os.Stat(name); errors.Is(err, os.ErrNotExist) {
		return h5.Create(ctx, name, openOptions(ctx)...)
	}
	f, err := openAmend(ctx, name)
	if errors.Is(err, h5.ErrFormat) { // a damaged LINDI file
		return nil, fmt.Errorf("%w (--force replaces it with a new file)", err)
	}
	return f, err
}

// put parses in, the contents of the .npy file npyName, and writes it as
// the dataset path of f, replacing one that exists.
func put(ctx context.Context, f *h5.File, path, npyName string, in []byte, spec h5.DatasetSpec) error {
	a, err := npy.Parse(in)
	if err != nil {
		return fmt.Errorf("%s: %w", npyName, err)
	}
	if a.Fortran {
		return fmt.Errorf("%s: an array in Fortran order: save it with numpy.ascontiguousarray", npyName)
	}
	arr, err := npyArray(a)
	if err != nil {
		return fmt.Errorf("%s: %w", npyName, err)
	}
	spec.Shape, spec.DType = arr.Shape, storedDType(arr.DType)
	path = "/" + strings.Trim(path, "/")
	if _, err := f.Get(ctx, path); err == nil {
		if err := f.Root().Delete(ctx, path); err != nil {
			return err
		}
	}
	d, err := f.Root().CreateDataset(ctx, path, spec)
	if err != nil {
		return err
	}
	return d.WriteArray(ctx, nil, arr)
}

// npyArray gives the contents of a .npy file as an h5.Array.
func npyArray(a *npy.Array) (*h5.Array, error) {
	descr, err := npy.DescrJSON(a.Descr)
	if err != nil {
		return nil, err
	}
	dt, err := zarrmeta.ParseDType(descr)
	if err != nil {
		return nil, err
	}
	return &h5.Array{DType: dt, Shape: a.Shape, Data: a.Data}, nil
}

// storedDType is the dtype put gives a dataset from a .npy of dtype dt:
// the same numbers in little-endian order, |S n kept, text as strings (|O).
func storedDType(dt zarrmeta.DType) zarrmeta.DType {
	switch dt.Kind {
	case zarrmeta.KindUnicode:
		return h5.ObjectDType
	case zarrmeta.KindInt, zarrmeta.KindUint, zarrmeta.KindFloat:
		if dt.Size > 1 {
			dt.Order = zarrmeta.LittleEndian
		}
	}
	return dt
}

func parseShape(s string) ([]int, error) {
	var out []int
	for _, p := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q is not a positive integer", p)
		}
		out = append(out, n)
	}
	return out, nil
}

// cmdAttr sets or deletes an attribute.
func cmdAttr(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("attr", flag.ContinueOnError)
	del := fs.Bool("delete", false, "delete the attribute instead of setting it")
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if *del && len(pos) != 3 || !*del && len(pos) != 4 {
		return usagef("attr takes FILE PATH NAME VALUE, or --delete FILE PATH NAME")
	}
	var value any
	if !*del {
		if value, err = attrValue(pos[3]); err != nil {
			return usagef("attr VALUE %q: %v", pos[3], err)
		}
	}
	return amend(ctx, pos[0], func(f *h5.File) error {
		obj, err := f.Get(ctx, pos[1])
		if err != nil {
			return err
		}
		type attrSetter interface {
			SetAttr(ctx context.Context, name string, v any) error
			DeleteAttr(ctx context.Context, name string) error
		}
		o, ok := obj.(attrSetter)
		if !ok {
			return fmt.Errorf("%s cannot take attributes", pos[1])
		}
		if *del {
			return o.DeleteAttr(ctx, pos[2])
		}
		return o.SetAttr(ctx, pos[2], value)
	})
}

// attrValue parses an attribute value given as JSON: a number with a
// fraction or an exponent is a float (30000.0), one without an integer;
// lists become typed slices.
func attrValue(s string) (any, error) {
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	if dec.More() {
		return nil, errors.New("more than one JSON value")
	}
	return typedValue(v)
}

func typedValue(v any) (any, error) {
	switch x := v.(type) {
	case json.Number:
		if strings.ContainsAny(string(x), ".eE") {
			return x.Float64()
		}
		if i, err := x.Int64(); err == nil {
			return i, nil
		}
		return strconv.ParseUint(string(x), 10, 64)
	case string, bool:
		return x, nil
	case nil:
		return nil, errors.New("null cannot be stored")
	case map[string]any:
		return nil, errors.New("an object cannot be stored (LINDI attributes are scalars and lists)")
	case []any:
		// A list is written as it is; the writer refuses a mixed one. Ints
		// among floats are floats, as numpy makes them.
		out := make([]any, len(x))
		floats := false
		for i, e := range x {
			t, err := typedValue(e)
			if err != nil {
				return nil, err
			}
			_, f := t.(float64)
			floats = floats || f
			out[i] = t
		}
		for i, e := range out {
			switch n := e.(type) {
			case int64:
				if floats {
					out[i] = float64(n)
				}
			case uint64:
				if floats {
					out[i] = float64(n)
				}
			}
		}
		return out, nil
	}
	return nil, fmt.Errorf("%T cannot be stored", v)
}

// cmdCompact reclaims the space of superseded members.
func cmdCompact(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("compact", flag.ContinueOnError)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("compact takes FILE")
	}
	return h5.CompactFile(ctx, pos[0])
}

// cmdRm deletes an object.
func cmdRm(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("rm", flag.ContinueOnError)
	pos, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("rm takes FILE PATH")
	}
	return amend(ctx, pos[0], func(f *h5.File) error {
		return f.Root().Delete(ctx, strings.TrimPrefix(pos[1], "/"))
	})
}
