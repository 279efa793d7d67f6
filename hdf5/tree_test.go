package hdf5

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/lindigo/lindi/hdf5/internal/layout"
)

// entry is one object of a tree, as LINDI JSON or the HDF5 reader sees it.
type entry struct {
	kind   string // "group", "dataset", "soft"
	target string // soft link target
	shape  []uint64
	scalar bool
	dtype  string
	cdtype string   // LINDI's _COMPOUND_DTYPE as a numpy descr
	chunks []uint64 // chunk shape, when the LINDI array is not inlined
	// filters are the codec configurations, when not inlined.
	filters []any
	inlined bool
	attrs   map[string]any
	fill    float64
}

// lindiTree reads the expected tree from fixture.lindi.json.
func lindiTree(t *testing.T) map[string]*entry {
	t.Helper()
	var doc struct {
		Refs map[string]json.RawMessage `json:"refs"`
	}
	if err := json.Unmarshal(readFixture(t, "fixture.lindi.json"), &doc); err != nil {
		t.Fatal(err)
	}
	tree := make(map[string]*entry)
	get := func(p string) *entry {
		if tree[p] == nil {
			tree[p] = &entry{attrs: map[string]any{}}
		}
		return tree[p]
	}
	for key, raw := range doc.Refs {
		dir, base := "/", key
		if i := strings.LastIndex(key, "/"); i >= 0 {
			dir, base = "/"+key[:i], key[i+1:]
		}
		switch base {
		case ".zgroup":
			e := get(dir)
			if e.kind == "" {
				e.kind = "group"
			}
		case ".zarray":
			var za struct {
				Shape      []uint64        `json:"shape"`
				Chunks     []uint64        `json:"chunks"`
				Dtype      string          `json:"dtype"`
				Compressor json.RawMessage `json:"compressor"`
				Fill       any             `json:"fill_value"`
				Filters    []any           `json:"filters"`
			}
			if err := json.Unmarshal(raw, &za); err != nil {
				t.Fatal(key, err)
			}
			e := get(dir)
			e.kind, e.shape, e.dtype = "dataset", za.Shape, za.Dtype
			if string(za.Compressor) == "null" {
				e.chunks, e.filters = za.Chunks, za.Filters
			} else {
				e.inlined = true
			}
			if v, ok := za.Fill.(float64); ok {
				e.fill = v
			}
		case ".zattrs":
			var attrs map[string]any
			if err := json.Unmarshal(raw, &attrs); err != nil {
				t.Fatal(key, err)
			}
			e := get(dir)
			for k, v := range attrs {
				switch k {
				case "_SOFT_LINK":
					e.kind, e.target = "soft", v.(map[string]any)["path"].(string)
				case "_SCALAR":
					e.scalar = true
				case "_COMPOUND_DTYPE":
					e.cdtype = compoundDescr(t, v)
				case "_EXTERNAL_ARRAY_LINK":
				default:
					e.attrs[k] = v
				}
			}
		}
	}
	for p, e := range tree {
		if e.kind == "soft" {
			e.attrs = map[string]any{}
		}
		if e.scalar {
			e.shape = []uint64{}
		}
		if e.cdtype != "" {
			e.dtype = e.cdtype
		}
		if e.kind == "" {
			t.Fatalf("LINDI entry %s has attributes but no .zgroup/.zarray", p)
		}
	}
	return tree
}

// compoundDescr turns LINDI's _COMPOUND_DTYPE into a numpy descr list.
func compoundDescr(t *testing.T, v any) string {
	t.Helper()
	names := map[string]string{"int32": "<i4", "int64": "<i8", "float32": "<f4", "float64": "<f8", "uint8": "|u1"}
	var list [][]string
	for _, f := range v.([]any) {
		pair := f.([]any)
		list = append(list, []string{pair[0].(string), names[pair[1].(string)]})
	}
	b, err := json.Marshal(list)
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(b), `\u003c`, "<")
}

// hdf5Tree walks the file from the root.
func hdf5Tree(t *testing.T, f *File) map[string]*entry {
	t.Helper()
	ctx := context.Background()
	tree := make(map[string]*entry)
	var walk func(g *Group)
	walk = func(g *Group) {
		tree[g.Path()] = &entry{kind: "group", attrs: attrMap(t, g)}
		links, err := g.Members(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if !sort.SliceIsSorted(links, func(i, j int) bool { return links[i].Name < links[j].Name }) {
			t.Errorf("members of %s are not sorted", g.Path())
		}
		for _, l := range links {
			p := joinPath(g.Path(), l.Name)
			if l.Type == LinkSoft {
				tree[p] = &entry{kind: "soft", target: l.Target, attrs: map[string]any{}}
				continue
			}
			obj, err := g.Lookup(ctx, l.Name)
			if err != nil {
				t.Fatal(err)
			}
			switch o := obj.(type) {
			case *Group:
				walk(o)
			case *Dataset:
				tree[p] = datasetEntry(t, o)
			default:
				t.Fatalf("%s: unexpected %T", p, obj)
			}
		}
	}
	walk(f.Root())
	return tree
}

func datasetEntry(t *testing.T, ds *Dataset) *entry {
	t.Helper()
	e := &entry{kind: "dataset", shape: ds.Shape(), scalar: ds.Space().Kind == SpaceScalar, attrs: attrMap(t, ds)}
	descr, err := ds.Datatype().NumpyDescr()
	if err != nil {
		t.Fatalf("%s: %v", ds.Path(), err)
	}
	e.dtype = descr
	switch ds.layout.Class {
	case layout.Chunked:
		e.chunks = ds.Chunks()
	case layout.Contiguous:
		e.chunks = ds.Shape()
	}
	for _, flt := range ds.filters {
		b, err := flt.Codec(int(ds.Datatype().Size))
		if err != nil {
			t.Fatalf("%s: %v", ds.Path(), err)
		}
		var cfg any
		if err := json.Unmarshal(b, &cfg); err != nil {
			t.Fatal(err)
		}
		e.filters = append(e.filters, cfg)
	}
	if fv := ds.Fill(); fv.Defined && ds.Datatype().Class <= ClassFloat {
		v, err := ds.f.decodeElements(context.Background(), ds.Datatype(), fv.Value, 1)
		if err != nil {
			t.Fatalf("%s fill: %v", ds.Path(), err)
		}
		e.fill = toFloat(first(v))
	}
	return e
}

func attrMap(t *testing.T, obj Object) map[string]any {
	t.Helper()
	attrs, err := obj.Attrs(context.Background())
	if err != nil {
		t.Fatalf("%s: %v", obj.Path(), err)
	}
	m := make(map[string]any)
	for _, a := range attrs {
		if a.Err != nil {
			t.Fatalf("%s: %v", obj.Path(), a.Err)
		}
		m[a.Name] = a.Value
	}
	return m
}

func toFloat(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case uint64:
		return float64(x)
	case float64:
		return x
	}
	return -1e300
}

// sameValue compares a decoded attribute with its LINDI JSON value.
func sameValue(got, want any) bool {
	switch w := want.(type) {
	case float64:
		return toFloat(got) == w
	case string, bool:
		return got == want
	case map[string]any:
		ref, ok := got.(ObjectRef)
		r, _ := w["_REFERENCE"].(map[string]any)
		return ok && r != nil && ref.Path == r["path"]
	case []any:
		g := reflect.ValueOf(got)
		if g.Kind() != reflect.Slice || g.Len() != len(w) {
			return false
		}
		for i := range w {
			if !sameValue(g.Index(i).Interface(), w[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// sameDtype says whether the reader's numpy descr matches LINDI's, which
// writes object dtype for vlen strings and references and <U for scalar
// vlen strings.
func sameDtype(got, want string) bool {
	if got == want {
		return true
	}
	return got == "|O" && strings.HasPrefix(want, "<U")
}

func TestTreeMatchesLindi(t *testing.T) {
	want := lindiTree(t)
	for _, name := range []string{"fixture.h5", "fixture-latest.h5"} {
		t.Run(name, func(t *testing.T) {
			f := openBytes(t, name, readFixture(t, name))
			got := hdf5Tree(t, f)
			compareTrees(t, got, want)
		})
	}
}

func compareTrees(t *testing.T, got, want map[string]*entry) {
	t.Helper()
	var paths []string
	for p := range want {
		paths = append(paths, p)
	}
	for p := range got {
		if want[p] == nil {
			t.Errorf("%s: in the HDF5 file, not in LINDI", p)
		}
	}
	slices.Sort(paths)
	for _, p := range paths {
		w, g := want[p], got[p]
		if g == nil {
			t.Errorf("%s: missing", p)
			continue
		}
		if g.kind != w.kind || g.target != w.target {
			t.Errorf("%s: got %s %q, want %s %q", p, g.kind, g.target, w.kind, w.target)
			continue
		}
		if w.kind == "dataset" {
			compareDataset(t, p, g, w)
		}
		if len(g.attrs) != len(w.attrs) {
			t.Errorf("%s: attributes %v, want %v", p, g.attrs, w.attrs)
		}
		for k, wv := range w.attrs {
			if gv, ok := g.attrs[k]; !ok || !sameValue(gv, wv) {
				t.Errorf("%s: attribute %s = %#v, want %#v", p, k, gv, wv)
			}
		}
	}
}

func compareDataset(t *testing.T, p string, g, w *entry) {
	t.Helper()
	if !slices.Equal(g.shape, w.shape) || g.scalar != w.scalar {
		t.Errorf("%s: shape %v (scalar %v), want %v (scalar %v)", p, g.shape, g.scalar, w.shape, w.scalar)
	}
	if !sameDtype(g.dtype, w.dtype) {
		t.Errorf("%s: dtype %s, want %s", p, g.dtype, w.dtype)
	}
	empty := slices.Contains(w.shape, 0)
	if w.chunks != nil && !empty && !slices.Equal(g.chunks, w.chunks) {
		t.Errorf("%s: chunks %v, want %v", p, g.chunks, w.chunks)
	}
	if !w.inlined && !reflect.DeepEqual(g.filters, w.filters) {
		t.Errorf("%s: filters %v, want %v", p, g.filters, w.filters)
	}
	if g.fill != w.fill {
		t.Errorf("%s: fill %v, want %v", p, g.fill, w.fill)
	}
}

func TestLookup(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"fixture.h5", "fixture-latest.h5"} {
		f := openBytes(t, name, readFixture(t, name))
		tests := []struct {
			path string
			want string // "kind path", or an error substring
		}{
			{"/", "group /"},
			{"misc", "group /misc"},
			{"/misc/u8", "dataset /misc/u8"},
			{"misc//u8/", "dataset /misc/u8"},
			{"misc/soft_link_to_data", "dataset /misc/soft_link_to_data"},
			{"acquisition/ElectricalSeries/electrode_group_link", "group /acquisition/ElectricalSeries/electrode_group_link"},
			{"acquisition/ElectricalSeries/electrode_group_link/../x", "object not found"},
			{"misc/nothing", "object not found"},
			{"misc/u8/x", "not a group"},
		}
		for _, tc := range tests {
			t.Run(name+tc.path, func(t *testing.T) {
				obj, err := f.Lookup(ctx, tc.path)
				got := ""
				if err != nil {
					got = err.Error()
				} else {
					got = fmt.Sprintf("%s %s", obj.Kind(), obj.Path())
				}
				if !strings.Contains(got, tc.want) {
					t.Errorf("Lookup(%q) = %q, want %q", tc.path, got, tc.want)
				}
			})
		}
	}
}
