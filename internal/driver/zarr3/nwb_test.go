package zarr3_test

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"sort"
	"testing"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/nwb"
	"github.com/lindigo/lindi/zarrmeta"
)

const nwbFixture = "../../../testdata/nwb/tables.nwb"

// toZarr3 writes the HDF5 file f as a Zarr v3 directory store in the unified
// convention, as hdmf-zarr 0.14 lays NWB out: a zarr.json per group and
// array (one chunk each, little-endian), soft links in _LINKS, references
// as _REFERENCE attribute values, object_reference string arrays and
// struct arrays with _REFERENCE_FIELDS, scalars as 0-d arrays.
func toZarr3(t *testing.T, f *h5.File, dir string) {
	t.Helper()
	links := map[string][]any{}
	groups := map[string]map[string]any{}
	write := func(p string, doc map[string]any) {
		b, err := json.Marshal(doc)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		file := filepath.Join(dir, filepath.FromSlash(p), "zarr.json")
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	groups["/"] = attrsJSON(t, f.Root().Attrs())
	err := f.Root().Walk(ctx, func(p string, l h5.Link, o h5.Object, err error) error {
		if err != nil {
			return err
		}
		if l.Kind == h5.SoftLink {
			parent := path.Dir(p)
			links[parent] = append(links[parent], map[string]any{"name": l.Name, "source": ".", "path": l.Target})
			return nil
		}
		switch o := o.(type) {
		case *h5.Group:
			groups[p] = attrsJSON(t, o.Attrs())
		case *h5.Dataset:
			writeArray(t, dir, p, o, write)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for p, attrs := range groups {
		if ls := links[p]; ls != nil {
			attrs["_LINKS"] = ls
		}
		write(p, map[string]any{"zarr_format": 3, "node_type": "group", "attributes": attrs})
	}
}

// attrsJSON converts attributes to the convention's JSON.
func attrsJSON(t *testing.T, a h5.Attrs) map[string]any {
	out := map[string]any{}
	for _, name := range a.Names() {
		v, err := a.Get(name)
		if err != nil {
			t.Fatalf("attribute %s: %v", name, err)
		}
		out[name] = refJSON(v)
	}
	return out
}

func refJSON(v any) any {
	switch v := v.(type) {
	case h5.Reference:
		return map[string]any{"_REFERENCE": map[string]any{"source": ".", "path": v.Path}}
	case []h5.Reference:
		out := make([]any, len(v))
		for i, r := range v {
			out[i] = refJSON(r)
		}
		return out
	}
	return v
}

// v3Names are the Zarr v3 names of numpy kinds and sizes.
func v3Name(dt zarrmeta.DType) string {
	switch dt.Kind {
	case zarrmeta.KindBool:
		return "bool"
	case zarrmeta.KindInt:
		return fmt.Sprintf("int%d", 8*dt.Size)
	case zarrmeta.KindUint:
		return fmt.Sprintf("uint%d", 8*dt.Size)
	case zarrmeta.KindFloat:
		return fmt.Sprintf("float%d", 8*dt.Size)
	}
	return ""
}

func writeArray(t *testing.T, dir, p string, d *h5.Dataset, write func(string, map[string]any)) {
	a, err := d.Read(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	attrs := attrsJSON(t, d.Attrs())
	chunks := make([]int, len(a.Shape))
	for i, n := range a.Shape {
		chunks[i] = max(n, 1)
	}
	doc := map[string]any{"zarr_format": 3, "node_type": "array", "shape": a.Shape,
		"chunk_grid":         map[string]any{"name": "regular", "configuration": map[string]any{"chunk_shape": chunks}},
		"chunk_key_encoding": map[string]any{"name": "default"}, "attributes": attrs}
	bytesLE := []any{map[string]any{"name": "bytes", "configuration": map[string]any{"endian": "little"}}}
	var chunk []byte
	dt := a.DType
	switch {
	case v3Name(dt) != "":
		doc["data_type"], doc["fill_value"], doc["codecs"] = v3Name(dt), 0, bytesLE
		if dt.Kind == zarrmeta.KindBool {
			doc["fill_value"] = false
		}
		chunk = a.Data // native order: little-endian on the machines this runs on
		if zarrmeta.NativeOrder != zarrmeta.LittleEndian {
			t.Skip("the converter writes native-order bytes as little-endian")
		}
	case dt.Kind == zarrmeta.KindStruct:
		writeStruct(t, a, doc)
		chunk = doc["_chunk"].([]byte)
		delete(doc, "_chunk")
	default:
		// Strings, or references as their target paths.
		strs := make([]string, len(a.Objects))
		for i, v := range a.Objects {
			switch v := v.(type) {
			case string:
				strs[i] = v
			case []byte:
				strs[i] = string(v)
			case h5.Reference:
				strs[i] = v.Path
				attrs["_DTYPE"] = "object_reference"
			default:
				t.Fatalf("%s: element %d is %T", p, i, v)
			}
		}
		doc["data_type"], doc["fill_value"], doc["codecs"] = "string", "", []any{"vlen-utf8"}
		chunk = []byte(vlenUTF8(strs...))
	}
	write(p, doc)
	key := "c"
	for range a.Shape {
		key += "/0"
	}
	file := filepath.Join(dir, filepath.FromSlash(p), filepath.FromSlash(key))
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, chunk, 0o644); err != nil {
		t.Fatal(err)
	}
}

// writeStruct lays out a compound dataset as a struct array: number fields
// as they are, reference fields as fixed_length_utf32 target paths listed
// in _REFERENCE_FIELDS.
func writeStruct(t *testing.T, a *h5.Array, doc map[string]any) {
	dt := a.DType
	rows := a.Objects
	if rows == nil {
		t.Fatalf("compound %s without rows", dt)
	}
	long := 1
	for _, r := range rows {
		for _, v := range r.([]any) {
			if ref, ok := v.(h5.Reference); ok {
				long = max(long, len([]rune(ref.Path)))
			}
		}
	}
	var fields, refFields []any
	fill := map[string]any{}
	for _, f := range dt.Fields {
		switch {
		case f.DType.Kind == zarrmeta.KindReference:
			fields = append(fields, map[string]any{"name": f.Name, "data_type": map[string]any{"name": "fixed_length_utf32", "configuration": map[string]any{"length_bytes": 4 * long}}})
			refFields = append(refFields, f.Name)
			fill[f.Name] = ""
		case v3Name(f.DType) != "":
			fields = append(fields, map[string]any{"name": f.Name, "data_type": v3Name(f.DType)})
			fill[f.Name] = 0
		default:
			t.Fatalf("compound field %s of %s", f.Name, f.DType)
		}
	}
	var chunk []byte
	for _, r := range rows {
		for i, v := range r.([]any) {
			f := dt.Fields[i]
			switch v := v.(type) {
			case h5.Reference:
				b := make([]byte, 4*long)
				for j, c := range []rune(v.Path) {
					binary.LittleEndian.PutUint32(b[4*j:], uint32(c))
				}
				chunk = append(chunk, b...)
			case int64:
				chunk = binary.LittleEndian.AppendUint64(chunk, uint64(v))[:len(chunk)+f.DType.Size]
			case float64:
				if f.DType.Size == 4 {
					chunk = binary.LittleEndian.AppendUint32(chunk, math.Float32bits(float32(v)))
				} else {
					chunk = binary.LittleEndian.AppendUint64(chunk, math.Float64bits(v))
				}
			default:
				t.Fatalf("compound field %s holds %T", f.Name, v)
			}
		}
	}
	doc["data_type"] = map[string]any{"name": "struct", "configuration": map[string]any{"fields": fields}}
	doc["fill_value"] = fill
	doc["codecs"] = []any{map[string]any{"name": "bytes", "configuration": map[string]any{"endian": "little"}}}
	doc["attributes"].(map[string]any)["_REFERENCE_FIELDS"] = refFields
	doc["_chunk"] = chunk
}

// TestNWB converts the NWB fixture to the Zarr v3 convention and reads both
// through package nwb: the same objects, tables (ragged, reference and
// compound reference columns) and time series.
func TestNWB(t *testing.T) {
	hf, err := nwb.Open(ctx, nwbFixture)
	if err != nil {
		t.Fatal(err)
	}
	defer hf.Close()
	dir := t.TempDir()
	toZarr3(t, hf.H5(), dir)
	t.Run("directory", func(t *testing.T) {
		zf, err := nwb.Open(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		defer zf.Close()
		if zf.H5().Format() != "Zarr v3" {
			t.Fatalf("format %s", zf.H5().Format())
		}
		checkNWB(t, hf, zf)
	})
	t.Run("reference document", func(t *testing.T) {
		// The same store as zarrshadow's one-file form: every zarr.json
		// and chunk inline in a kerchunk-style document.
		refs := map[string]any{}
		err := filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			key := filepath.ToSlash(rel)
			if path.Base(key) == "zarr.json" {
				refs[key] = string(b)
			} else {
				refs[key] = "base64:" + base64.StdEncoding.EncodeToString(b)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		doc, err := json.Marshal(map[string]any{"version": 1, "refs": refs})
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Join(t.TempDir(), "tables.zindi.json")
		if err := os.WriteFile(name, doc, 0o644); err != nil {
			t.Fatal(err)
		}
		zf, err := nwb.Open(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		defer zf.Close()
		checkNWB(t, hf, zf)
	})
}

// checkNWB compares what nwb reads from zf, tables.nwb in Zarr v3, with
// what it reads from hf, the HDF5 file.
func checkNWB(t *testing.T, hf, zf *nwb.File) {
	if hf.Version() != zf.Version() || hf.Version() == "" {
		t.Errorf("version %q, HDF5 %q", zf.Version(), hf.Version())
	}
	ho, err := hf.Objects(ctx)
	if err != nil {
		t.Fatal(err)
	}
	zo, err := zf.Objects(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sortObjects := func(o []nwb.Object) {
		sort.Slice(o, func(i, j int) bool { return o[i].Path < o[j].Path })
	}
	sortObjects(ho)
	sortObjects(zo)
	if !reflect.DeepEqual(ho, zo) || len(ho) < 5 {
		t.Errorf("objects\n%v\nHDF5\n%v", zo, ho)
	}
	for _, p := range []string{"units", "general/extracellular_ephys/electrodes", "intervals/trials"} {
		ht, err := hf.Table(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		zt, err := zf.Table(ctx, p)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		hr, err := ht.Rows(ctx, 0, ht.Len())
		if err != nil {
			t.Fatal(err)
		}
		zr, err := zt.Rows(ctx, 0, zt.Len())
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if fmt.Sprint(hr) != fmt.Sprint(zr) || len(hr) == 0 {
			t.Errorf("%s rows\n%v\nHDF5\n%v", p, zr, hr)
		}
	}
	hs, err := hf.TimeSeries(ctx, "acquisition/ElectricalSeries")
	if err != nil {
		t.Fatal(err)
	}
	zs, err := zf.TimeSeries(ctx, "acquisition/ElectricalSeries")
	if err != nil {
		t.Fatal(err)
	}
	hv, err := hs.ReadPhysical(ctx, 100, 300)
	if err != nil {
		t.Fatal(err)
	}
	zv, err := zs.ReadPhysical(ctx, 100, 300)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(hv, zv) {
		t.Errorf("physical values differ")
	}
	hw0, hw1, err := hs.Window(ctx, 0.01, 0.02)
	if err != nil {
		t.Fatal(err)
	}
	zw0, zw1, err := zs.Window(ctx, 0.01, 0.02)
	if err != nil || hw0 != zw0 || hw1 != zw1 {
		t.Errorf("window %d:%d (%v), HDF5 %d:%d", zw0, zw1, err, hw0, hw1)
	}
	he, _, err := hs.Electrodes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ze, _, err := zs.Electrodes(ctx)
	if err != nil || !reflect.DeepEqual(he, ze) {
		t.Errorf("electrodes %v (%v), HDF5 %v", ze, err, he)
	}
}
