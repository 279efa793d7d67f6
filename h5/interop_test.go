package h5

import (
	"context"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/lindigo/lindi/selection"
	"github.com/lindigo/lindi/zarrmeta"
)

// interopDir, when set, makes TestInteropWrite write its files there, for
// testdata/interop/run.sh to compare with what h5py reads from the same
// content (make_ref.py) through Python lindi. go test never runs Python.
var interopDir = flag.String("interop", "", "write the interop files into this directory")

// interopCodecs are the codecs of the interop datasets, one each.
var interopCodecs = map[string]string{
	"blosc_lz4":   `{"blocksize":0,"clevel":5,"cname":"lz4","id":"blosc","shuffle":1}`,
	"blosc_lz4hc": `{"blocksize":0,"clevel":5,"cname":"lz4hc","id":"blosc","shuffle":1}`,
	"blosc_zstd":  `{"blocksize":0,"clevel":3,"cname":"zstd","id":"blosc","shuffle":1}`,
	"blosc_zlib":  `{"blocksize":0,"clevel":4,"cname":"zlib","id":"blosc","shuffle":0}`,
	"zlib":        `{"id":"zlib","level":4}`,
	"gzip":        `{"id":"gzip","level":4}`,
	"zstd":        `{"id":"zstd","level":3}`,
	"lz4":         `{"acceleration":1,"id":"lz4"}`,
	"none":        `null`,
}

// writeInterop writes the interop content into a new file name; lindiSafe
// leaves out the datasets Python lindi 0.4.5 cannot decode: zstd and lz4,
// whose chunks it zero-pads to their raw size before decoding, inline or not
// (zarr_members.py checks those with numcodecs instead).
func writeInterop(ctx context.Context, name string, lindiSafe bool) error {
	f, err := Create(ctx, name)
	if err != nil {
		return err
	}
	root := f.Root()
	g, err := root.CreateGroup(ctx, "g")
	if err != nil {
		return err
	}
	x := make([]int16, 50*7)
	for i := range x {
		x[i] = int16(i*13 - 900)
	}
	d, err := CreateDatasetFrom(ctx, g, "x", x, []int{50, 7}, &DatasetSpec{Chunks: []int{16, 7}})
	if err != nil {
		return err
	}
	part := make([]int16, 4*4)
	for i := range part {
		part[i] = int16(-1 - i)
	}
	if err := Write(ctx, d, mustParse("10:20:3, ::2"), part); err != nil {
		return err
	}
	for name, v := range map[string]any{
		"s": "hello", "i": 3, "fl": 30000.0, "nan": math.NaN(), "inf": math.Inf(-1), "b": true,
		"arr": []int{1, 2, 3}, "farr": []float64{1.5, 2.5}, "strlist": []string{"a", "b"},
		"m2": [][]int{{1, 2}, {3, 4}}, "ref": Reference{Path: "/g/x"},
	} {
		if err := root.SetAttr(ctx, name, v); err != nil {
			return err
		}
	}
	if err := g.SetAttr(ctx, "description", "a group"); err != nil {
		return err
	}
	if err := d.SetAttr(ctx, "unit", "mV"); err != nil {
		return err
	}
	if err := d.SetAttr(ctx, "conversion", 1.0); err != nil {
		return err
	}
	n := 3000 // big enough that most chunks are members of a tar
	ramp := make([]float64, n)
	for i := range ramp {
		ramp[i] = interopValue(i)
	}
	for codec, config := range interopCodecs {
		if lindiSafe && (codec == "zstd" || codec == "lz4") {
			continue
		}
		if _, err := CreateDatasetFrom(ctx, g, "codec_"+codec, ramp, nil, &DatasetSpec{Chunks: []int{700}, Codec: json.RawMessage(config)}); err != nil {
			return err
		}
	}
	if _, err := CreateDatasetFrom(ctx, g, "f4", []float32{1.5, -2, float32(math.Inf(1)), 3.25}, nil, nil); err != nil {
		return err
	}
	if _, err := CreateDatasetFrom(ctx, g, "u1", []uint8{0, 1, 255}, nil, nil); err != nil {
		return err
	}
	if _, err := CreateDatasetFrom(ctx, g, "u8", []uint64{0, math.MaxUint64}, nil, nil); err != nil {
		return err
	}
	if _, err := CreateDatasetFrom(ctx, g, "i8", []int64{math.MinInt64, 5}, nil, nil); err != nil {
		return err
	}
	if _, err := CreateDatasetFrom(ctx, g, "bool", []bool{true, false, true}, nil, nil); err != nil {
		return err
	}
	if _, err := CreateDatasetFrom(ctx, root, "scalar", []float64{2.5}, []int{}, nil); err != nil {
		return err
	}
	if _, err := CreateDatasetFrom(ctx, root, "strs", []string{"a", "é", "", "a longer string"}, nil, nil); err != nil {
		return err
	}
	if _, err := CreateDatasetFrom(ctx, root, "fixed", []string{"ab", "cdefg"}, nil, &DatasetSpec{DType: mustDType(`"|S5"`)}); err != nil {
		return err
	}
	if _, err := CreateDatasetFrom(ctx, root, "refs", []Reference{{Path: "/g/x"}, {Path: "/g"}}, nil, nil); err != nil {
		return err
	}
	if _, err := root.CreateDataset(ctx, "unwritten", DatasetSpec{Shape: []int{5}, DType: DTypeOf[float64](), Fill: 7.5}); err != nil {
		return err
	}
	ct, err := Compound([]string{"idx_start", "count", "timeseries"}, []zarrmeta.DType{DTypeOf[int32](), DTypeOf[int32](), ReferenceDType})
	if err != nil {
		return err
	}
	rows, err := root.CreateDataset(ctx, "compound", DatasetSpec{Shape: []int{3}, DType: ct})
	if err != nil {
		return err
	}
	if err := WriteRows(ctx, rows, nil, [][]any{{0, 5, Reference{Path: "/g/x"}}, {5, 2, Reference{Path: "/g/x"}}, {7, 1, Reference{Path: "/g"}}}); err != nil {
		return err
	}
	if err := root.SoftLink(ctx, "link", "/g/x"); err != nil {
		return err
	}
	return f.Close()
}

func TestInteropWrite(t *testing.T) {
	if *interopDir == "" {
		t.Skip("-interop DIR writes the files for testdata/interop/run.sh")
	}
	ctx := context.Background()
	for _, name := range []string{"ours.lindi.json", "ours.lindi.tar", "ours.lindi.d"} {
		for _, safe := range []bool{true, false} {
			p := filepath.Join(*interopDir, name)
			if !safe {
				p = filepath.Join(*interopDir, "all_"+name)
			}
			os.RemoveAll(p)
			if err := writeInterop(ctx, p, safe); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// TestInteropReadBack reads the interop content back through our reader,
// for each container.
func TestInteropReadBack(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"x.lindi.json", "x.lindi.tar", "x.lindi.d"} {
		p := filepath.Join(t.TempDir(), name)
		if err := writeInterop(ctx, p, false); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		f, err := Open(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		d, err := f.Dataset(ctx, "g/codec_zstd")
		if err != nil {
			t.Fatal(err)
		}
		got, err := Read[float64](ctx, d, nil)
		if err != nil || len(got.Data) != 3000 || got.Data[100] != interopValue(100) {
			t.Errorf("%s: codec_zstd: %v", name, err)
		}
		for codec := range interopCodecs {
			d, err := f.Dataset(ctx, "g/codec_"+codec)
			if err != nil {
				t.Fatal(err)
			}
			c, err := Read[float64](ctx, d, nil)
			if err != nil || len(c.Data) != 3000 {
				t.Fatalf("%s: %s: %v", name, codec, err)
			}
			for i, v := range c.Data {
				if v != interopValue(i) {
					t.Fatalf("%s: %s[%d] = %v", name, codec, i, v)
				}
			}
		}
		if v, err := f.Root().Attrs().Get("fl"); err != nil || v != 30000.0 {
			t.Errorf("fl = %#v, %v; want the float 30000", v, err)
		}
		if v, err := f.Root().Attrs().Get("nan"); err != nil || !isNaN(v) {
			t.Errorf("nan = %#v, %v; want the float NaN", v, err)
		}
		c, err := f.Dataset(ctx, "compound")
		if err != nil {
			t.Fatal(err)
		}
		a, err := c.Read(ctx, nil)
		if err != nil || len(a.Objects) != 3 {
			t.Fatalf("compound: %v, %v", a, err)
		}
		if row, ok := a.Objects[2].([]any); !ok || row[1] != int64(1) || row[2] != (Reference{Path: "/g"}) {
			t.Errorf("compound row 2 = %#v", a.Objects[2])
		}
		u, err := f.Dataset(ctx, "unwritten")
		if err != nil {
			t.Fatal(err)
		}
		if v, err := Read[float64](ctx, u, nil); err != nil || v.Data[4] != 7.5 {
			t.Errorf("unwritten = %v, %v", v, err)
		}
		f.Close()
	}
}

func mustParse(s string) selection.Selection {
	sel, err := selection.Parse(s)
	if err != nil {
		panic(err)
	}
	return sel
}

func mustDType(s string) zarrmeta.DType {
	dt, err := zarrmeta.ParseDType(json.RawMessage(s))
	if err != nil {
		panic(err)
	}
	return dt
}

// interopValue is element i of the interop codec datasets: exact in binary,
// so that Python computes the same (a sine would differ in the last bit
// between libm and Go).
func interopValue(i int) float64 { return float64(i*37%1001-500) + 0.25 }

func isNaN(v any) bool {
	f, ok := v.(float64)
	return ok && math.IsNaN(f)
}
