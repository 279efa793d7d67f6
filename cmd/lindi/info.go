package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"strings"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/zarrmeta"
)

func cmdInfo(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("info", flag.ContinueOnError)
	ctx, pos, err := parseReadArgs(ctx, fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 1 || len(pos) > 2 {
		return usagef("info takes FILE [PATH]")
	}
	path := "/"
	if len(pos) == 2 {
		path = pos[1]
	}
	f, err := openFile(ctx, pos[0])
	if err != nil {
		return err
	}
	defer f.Close()
	link, err := linkTo(ctx, f, path)
	if err != nil {
		return err
	}
	obj, err := f.Get(ctx, path)
	if err != nil && link == nil {
		return err
	}
	info := &objectInfo{Type: "link", Attrs: map[string]any{}}
	if err == nil {
		if info, err = describe(ctx, obj); err != nil {
			return err
		}
	} else {
		info.Error = printable(err.Error()) // a dangling link: say where it points and why it does not lead there
	}
	if link != nil {
		info.Path, info.Link = printable("/"+strings.Trim(path, "/")), link // the link's path; Link says where it leads
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(info); err != nil {
		return err
	}
	_, err = stdout.Write(jsonEscape(buf.Bytes()))
	return err
}

// objectInfo is what lindi info prints.
type objectInfo struct {
	Path      string           `json:"path"`
	Link      *linkInfo        `json:"link,omitempty"`
	Error     string           `json:"error,omitempty"`
	Type      string           `json:"type"`
	Members   []string         `json:"members,omitempty"`
	Shape     any              `json:"shape,omitempty"`
	DType     string           `json:"dtype,omitempty"`
	NamedType string           `json:"named_type,omitempty"` // the committed datatype a dataset's elements are
	Enum      map[string]int64 `json:"enum,omitempty"`       // an enum's names and values, as h5py.check_enum_dtype
	String    *stringInfo      `json:"string,omitempty"`
	Reference string           `json:"reference,omitempty"`
	Layout    string           `json:"layout,omitempty"`
	Chunks    []int            `json:"chunks,omitempty"`
	FillValue any              `json:"fill_value,omitempty"`
	Codecs    []string         `json:"codecs,omitempty"`
	// Size is the logical size (nbytes) and Stored the sum of the stored
	// chunks, as ls -lh prints sizes ("?": unknown without a request per
	// chunk); NBytes and StoredBytes are the same in bytes.
	Size        string         `json:"size,omitempty"`
	Stored      string         `json:"stored,omitempty"`
	NBytes      *int64         `json:"nbytes,omitempty"`
	StoredBytes *int64         `json:"stored_bytes,omitempty"`
	Attrs       map[string]any `json:"attrs"`
}

func describe(ctx context.Context, obj h5.Object) (*objectInfo, error) {
	info := &objectInfo{Path: printable(obj.Path()), Attrs: map[string]any{}}
	attrs := obj.Attrs()
	for _, name := range attrs.Names() {
		v, err := attrs.Get(name)
		if err != nil {
			v = err // shown as <error: …>
		}
		info.Attrs[printable(name)] = jsonValue(attrForm(v))
	}
	switch o := obj.(type) {
	case *h5.Group:
		if err := o.Listed(); err != nil {
			return nil, err
		}
		info.Type = "group"
		info.Members = printables(o.Members())
	case *h5.Datatype:
		info.Type, info.DType, info.Enum = "datatype", printable(o.DType().String()), printableKeys(o.Enum())
		if err := o.Err(); err != nil {
			info.Error = printable(err.Error())
		}
	case *h5.Dataset:
		info.Type = "dataset"
		// An empty shape (a scalar) is still printed: the interface is not nil.
		info.Shape, info.DType, info.Chunks, info.Codecs = o.Shape(), printable(o.DType().String()), o.Chunks(), printables(o.Codecs())
		info.Layout, info.NamedType, info.Enum = o.Layout().String(), printable(o.NamedType()), printableKeys(o.Enum())
		fill, err := fillValue(o)
		if err != nil {
			return nil, err
		}
		info.FillValue = fill
		if o.Err() == nil {
			if err := elementKind(ctx, o, info); err != nil {
				return nil, err
			}
			if err := sizeInfo(ctx, o, info); err != nil {
				return nil, err
			}
		}
	}
	return info, nil
}

// sizeInfo fills in a dataset's sizes.
func sizeInfo(ctx context.Context, d *h5.Dataset, info *objectInfo) error {
	n, known, err := d.StoredSize(ctx)
	if err != nil {
		return err
	}
	nb := d.NBytes()
	info.Size, info.Stored, info.NBytes = humanSize(nb), "?", &nb
	if known {
		info.Stored, info.StoredBytes = humanSize(n), &n
	}
	return nil
}

// stringInfo is h5py's string_info: a null length for variable-length strings.
type stringInfo struct {
	Encoding string `json:"encoding"`
	Length   *int   `json:"length"`
}

// elementKind says whether a dataset holds strings or references, which
// share the dtype |O.
func elementKind(ctx context.Context, d *h5.Dataset, info *objectInfo) error {
	si, ok, err := d.StringInfo(ctx)
	if err != nil {
		return err
	}
	if ok {
		info.String = &stringInfo{Encoding: si.Encoding}
		if si.Length > 0 {
			info.String.Length = &si.Length
		}
	}
	k, err := d.RefKind(ctx)
	if k != h5.NoRef {
		info.Reference = k.String()
	}
	return err
}

// printableKeys makes every name of an enum printable; nil stays nil.
func printableKeys(m map[string]int64) map[string]int64 {
	if m == nil {
		return nil
	}
	out := make(map[string]int64, len(m))
	for k, v := range m {
		out[printable(k)] = v
	}
	return out
}

// printables makes every name of a list printable.
func printables(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = printable(n)
	}
	return out
}

// fillValue decodes a dataset's fill value for display; nil when it has none.
func fillValue(d *h5.Dataset) (any, error) {
	fv := d.Fill()
	if fv.Null {
		return nil, nil
	}
	dt := d.DType()
	if fv.Bytes == nil || dt.Kind == zarrmeta.KindObject {
		return jsonValue(fv.Object), nil
	}
	b := append([]byte(nil), fv.Bytes...)
	if err := dt.SwapToNative(b); err != nil {
		return nil, err
	}
	els, err := elements(&h5.Array{DType: dt.Native(), Shape: []int{}, Data: b})
	if err != nil || len(els) != 1 {
		return nil, err
	}
	return jsonValue(els[0]), nil
}

// linkInfo says that the path named is a soft or external link, and where it
// points.
type linkInfo struct {
	Type   string `json:"type"`
	Target string `json:"target"`
	File   string `json:"file,omitempty"`
}

// linkTo describes the link a path ends in when it is soft or external; nil
// for a hard link (and for the root).
func linkTo(ctx context.Context, f *h5.File, path string) (*linkInfo, error) {
	p := strings.Trim(path, "/")
	if p == "" {
		return nil, nil
	}
	dir, name := "/", p
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		dir, name = p[:i], p[i+1:]
	}
	g, err := f.Group(ctx, dir)
	if err != nil {
		return nil, err
	}
	l, ok := g.Link(name)
	if !ok || l.Kind == h5.HardLink {
		return nil, nil
	}
	return &linkInfo{Type: l.Kind.String(), Target: l.Target, File: l.File}, nil
}
