package index_test

import (
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/index"
	"github.com/lindigo/lindi/zarrmeta"
)

// cornerFamilies are the fixtures of testdata/corners (gen.py): HDF5 corners
// h5py reads, each with h5py's reading beside it.
var cornerFamilies = []string{"null", "padded", "arrayfields", "committed", "opaque", "cattrs", "vlencompound", "tagged", "filters", "scaleoffset"}

// TestCorners reads every object and attribute of each family as h5py
// reads it, from the HDF5 file and from its index.
func TestCorners(t *testing.T) {
	for _, fam := range cornerFamilies {
		raw, err := os.ReadFile(filepath.Join("../testdata/corners", fam+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var want map[string]map[string]any
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		src := filepath.Join(dir, fam+".h5")
		data, err := os.ReadFile(filepath.Join("../testdata/corners", fam+".h5"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(src, data, 0o644); err != nil {
			t.Fatal(err)
		}
		out := index.DefaultOutput(src)
		if err := index.WriteFile(ctx, src, out); err != nil {
			t.Fatal(err)
		}
		for form, name := range map[string]string{"hdf5": src, "index": out} {
			t.Run(fam+"/"+form, func(t *testing.T) {
				f, err := h5.Open(ctx, name)
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				compareCorners(t, f, want, form == "index")
			})
		}
	}
}

func compareCorners(t *testing.T, f *h5.File, want map[string]map[string]any, indexed bool) {
	t.Helper()
	seen := map[string]bool{}
	err := f.Root().Walk(ctx, func(p string, _ h5.Link, o h5.Object, err error) error {
		if err != nil {
			t.Errorf("%s: %v", p, err)
		}
		seen[p] = true
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	seen["/"] = true
	for _, p := range sortedKeys(seen) {
		if want[p] == nil {
			t.Errorf("%s: listed, but h5py sees no such object", p)
		}
	}
	for _, p := range sortedKeys(want) {
		w := want[p]
		if !seen[p] {
			t.Errorf("%s: not listed", p)
			continue
		}
		o, err := f.Get(ctx, p)
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		checkAttrs(t, p, o.Attrs(), w["attrs"].(map[string]any), indexed)
		switch w["kind"] {
		case "group":
			if _, ok := o.(*h5.Group); !ok {
				t.Errorf("%s: %T, want a group", p, o)
			}
		case "datatype":
			d, ok := o.(*h5.Datatype)
			if !ok {
				t.Errorf("%s: %T, want a datatype", p, o)
				continue
			}
			checkDType(t, p, d.DType(), w["dtype"], false)
			checkEnum(t, p, d.Enum(), w["enum"])
		case "dataset":
			d, ok := o.(*h5.Dataset)
			if !ok {
				t.Errorf("%s: %T, want a dataset", p, o)
				continue
			}
			checkDataset(t, p, d, w, indexed)
		}
	}
}

func checkDataset(t *testing.T, p string, d *h5.Dataset, w map[string]any, indexed bool) {
	t.Helper()
	checkDType(t, p, d.DType(), w["dtype"], indexed)
	named := d.NamedType() != ""
	if named != (w["named"] == true) {
		t.Errorf("%s: NamedType %q, h5py's committed() %v", p, d.NamedType(), w["named"])
	}
	if !indexed {
		// The index keeps an enum's mapping only in its committed datatype.
		checkEnum(t, p, d.Enum(), w["enum"])
	}
	if w["shape"] == nil {
		if !d.Null() || d.Shape() != nil {
			t.Errorf("%s: Null %v shape %v, want a null dataspace", p, d.Null(), d.Shape())
		}
		a, err := d.Read(ctx, nil)
		if err != nil || a.Len() != 0 {
			t.Errorf("%s: read %v, %v: want no elements", p, a, err)
		}
		return
	}
	if got := fmt.Sprint(d.Shape()); got != fmt.Sprint(intsOf(w["shape"])) {
		t.Errorf("%s: shape %s, want %v", p, got, w["shape"])
	}
	a, err := d.Read(ctx, nil)
	if err != nil {
		t.Errorf("%s: %v", p, err)
		return
	}
	flat, err := arrayValues(a)
	if err != nil {
		t.Errorf("%s: %v", p, err)
		return
	}
	if err := sameCorner(flatten(w["value"], len(a.Shape)), flat); err != nil {
		t.Errorf("%s: values: %v", p, err)
	}
}

// flatten turns h5py's nested lists of an n-dimensional value into the C
// order list of its elements (a scalar into one element).
func flatten(v any, ndim int) []any {
	if ndim == 0 {
		return []any{v}
	}
	var out []any
	for _, x := range v.([]any) {
		out = append(out, flatten(x, ndim-1)...)
	}
	return out
}

func intsOf(v any) []int {
	var out []int
	for _, x := range v.([]any) {
		out = append(out, int(x.(float64)))
	}
	return out
}

// checkDType compares a dtype with gen.py's descr of h5py's: a typestr, or
// {names, formats, offsets, itemsize}. Through the index a compound is
// repacked (LINDI's _COMPOUND_DTYPE names no offsets): only its names and
// formats are compared then.
func checkDType(t *testing.T, p string, dt zarrmeta.DType, want any, repacked bool) {
	t.Helper()
	got := descrOf(dt)
	if m, ok := want.(map[string]any); ok && repacked {
		want = map[string]any{"names": m["names"], "formats": m["formats"]}
		if g, ok := got.(map[string]any); ok {
			delete(g, "offsets")
			delete(g, "itemsize")
		}
	}
	if err := sameCorner(want, got); err != nil {
		t.Errorf("%s: dtype %s: %v", p, dt, err)
	}
}

// descrOf writes a dtype as gen.py's descr does.
func descrOf(dt zarrmeta.DType) any {
	if dt.Kind != zarrmeta.KindStruct {
		return dt.String()
	}
	var names, formats, offsets []any
	for _, f := range dt.Fields {
		names = append(names, f.Name)
		var format any = descrOf(f.DType)
		if len(f.Shape) > 0 {
			shape := make([]any, len(f.Shape))
			for i, n := range f.Shape {
				shape[i] = float64(n)
			}
			format = []any{format, shape}
		}
		formats = append(formats, format)
		offsets = append(offsets, float64(f.Offset))
	}
	return map[string]any{"names": names, "formats": formats, "offsets": offsets, "itemsize": float64(dt.Size)}
}

// checkEnum compares an enum's mapping with h5py's check_enum_dtype (nil:
// not an enum).
func checkEnum(t *testing.T, p string, got map[string]int64, want any) {
	t.Helper()
	var g any
	if got != nil {
		m := map[string]any{}
		for k, v := range got {
			m[k] = v
		}
		g = m
	}
	if err := sameCorner(want, g); err != nil {
		t.Errorf("%s: enum: %v", p, err)
	}
}

func checkAttrs(t *testing.T, p string, attrs h5.Attrs, want map[string]any, indexed bool) {
	t.Helper()
	n := len(want)
	for _, name := range sortedKeys(want) {
		w := want[name].(map[string]any)
		v, err := attrs.Get(name)
		if err != nil {
			t.Errorf("%s@%s: %v", p, name, err)
			continue
		}
		if err := sameCorner(w["value"], attrValue(v, w["dtype"])); err != nil {
			t.Errorf("%s@%s: %v (%#v)", p, name, err, v)
		}
	}
	if got := len(attrs.Names()); got != n {
		t.Errorf("%s: %d attributes, want %d", p, got, n)
	}
}

// attrValue puts an attribute value into gen.py's form: a compound element
// (a map) as the list of its members in h5py's order, h5py's complex number
// (a compound of r and i) as [r, i], bytes as hex, a datetime64 or
// timedelta64 as its count when its unit is h5py's (else as it is, which
// compares unequal).
func attrValue(v any, dtype any) any {
	switch x := v.(type) {
	case h5.Datetime:
		if dtype == "<M8["+x.Unit+"]" {
			return x.Count
		}
		return x
	case h5.Timedelta:
		if dtype == "<m8["+x.Unit+"]" {
			return x.Count
		}
		return x
	case int64, uint64, float64:
		if ts, ok := dtype.(string); ok && len(ts) > 2 && strings.ContainsRune("Mm", rune(ts[1])) {
			return fmt.Sprintf("%v, a number where h5py has a %s", x, ts) // the type is lost
		}
	case map[string]any:
		names := []string{"r", "i"}
		if m, ok := dtype.(map[string]any); ok {
			names = names[:0]
			for _, n := range m["names"].([]any) {
				names = append(names, n.(string))
			}
		}
		out := make([]any, len(names))
		for i, n := range names {
			out[i] = attrValue(x[n], nil)
		}
		return out
	case []byte:
		return hex.EncodeToString(x)
	case h5.Reference:
		return x.Path
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() == reflect.Slice {
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = attrValue(rv.Index(i).Interface(), dtype)
		}
		return out
	}
	return v
}

// arrayValues decodes the elements of a read, in C order, into gen.py's form.
func arrayValues(a *h5.Array) ([]any, error) {
	n := a.Len()
	out := make([]any, n)
	for i := range n {
		var err error
		if a.Objects != nil {
			out[i] = objectValue(a.Objects[i], a.DType)
			continue
		}
		size := a.DType.Size
		if out[i], err = elementValue(a.Data[i*size:(i+1)*size], a.DType); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func objectValue(v any, dt zarrmeta.DType) any {
	switch x := v.(type) {
	case h5.Reference:
		return x.Path
	case []any:
		if dt.Kind == zarrmeta.KindStruct && len(x) == len(dt.Fields) {
			out := make([]any, len(x))
			for i, e := range x {
				out[i] = objectValue(e, dt.Fields[i].DType)
			}
			return out
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = objectValue(e, dt)
		}
		return out
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Slice {
		out := make([]any, rv.Len())
		for i := range out {
			out[i] = objectValue(rv.Index(i).Interface(), dt)
		}
		return out
	}
	return v
}

func elementValue(b []byte, dt zarrmeta.DType) (any, error) {
	ne := binary.NativeEndian
	switch {
	case dt.Kind == zarrmeta.KindStruct:
		row := make([]any, len(dt.Fields))
		for i, f := range dt.Fields {
			if len(f.Shape) == 0 {
				v, err := elementValue(b[f.Offset:f.Offset+f.DType.Size], f.DType)
				if err != nil {
					return nil, err
				}
				row[i] = v
				continue
			}
			list := make([]any, f.Count())
			for k := range list {
				at := f.Offset + k*f.DType.Size
				v, err := elementValue(b[at:at+f.DType.Size], f.DType)
				if err != nil {
					return nil, err
				}
				list[k] = v
			}
			row[i] = list
		}
		return row, nil
	case dt.Kind == zarrmeta.KindBool:
		return b[0] != 0, nil
	case dt.Kind == zarrmeta.KindBytes:
		return strings.TrimRight(string(b), "\x00"), nil
	case dt.Kind == zarrmeta.KindVoid:
		return hex.EncodeToString(b), nil
	case dt.Kind == zarrmeta.KindInt || dt.Kind == zarrmeta.KindDatetime || dt.Kind == zarrmeta.KindTimedelta:
		switch dt.Size {
		case 1:
			return float64(int8(b[0])), nil
		case 2:
			return float64(int16(ne.Uint16(b))), nil
		case 4:
			return float64(int32(ne.Uint32(b))), nil
		case 8:
			return int64(ne.Uint64(b)), nil
		}
	case dt.Kind == zarrmeta.KindUint:
		switch dt.Size {
		case 1:
			return float64(b[0]), nil
		case 2:
			return float64(ne.Uint16(b)), nil
		case 4:
			return float64(ne.Uint32(b)), nil
		case 8:
			return ne.Uint64(b), nil
		}
	case dt.Kind == zarrmeta.KindFloat && dt.Size == 4:
		return float64(math.Float32frombits(ne.Uint32(b))), nil
	case dt.Kind == zarrmeta.KindFloat && dt.Size == 8:
		return math.Float64frombits(ne.Uint64(b)), nil
	}
	return nil, fmt.Errorf("no test decoding of %s", dt)
}

// sameCorner compares a value of h5py's JSON with ours, numbers by value.
func sameCorner(want, got any) error {
	switch w := want.(type) {
	case float64:
		var g float64
		switch x := got.(type) {
		case float64:
			g = x
		case int64:
			g = float64(x)
		case uint64:
			g = float64(x)
		default:
			return fmt.Errorf("%#v, want %v", got, w)
		}
		if g != w {
			return fmt.Errorf("%v, want %v", g, w)
		}
		return nil
	case []any:
		rv := reflect.ValueOf(got)
		if rv.Kind() != reflect.Slice || rv.Len() != len(w) {
			return fmt.Errorf("%#v, want %v", got, w)
		}
		for i := range w {
			if err := sameCorner(w[i], rv.Index(i).Interface()); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
		}
		return nil
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok || len(g) != len(w) {
			return fmt.Errorf("%#v, want %v", got, w)
		}
		for k := range w {
			if err := sameCorner(w[k], g[k]); err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
		}
		return nil
	}
	if !reflect.DeepEqual(want, got) {
		return fmt.Errorf("%#v, want %#v", got, want)
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
