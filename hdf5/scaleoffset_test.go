package hdf5

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"os"
	"sort"
	"strconv"
	"testing"
)

// TestScaleOffset reads every dataset of testdata/corners/scaleoffset.h5
// (gen.py: the scale-offset filter on integers of every size, sign and
// byte order, floats with D-scale, fill values, chunks of equal values
// with and without one, values that need every bit, after deflate) through
// its Locator's pipelines, and compares the bytes with h5py's reading,
// every value exactly (64-bit integers included, which the JSON holds
// whole; floats are h5py's lossy decoding, which ours must equal).
func TestScaleOffset(t *testing.T) {
	ctx := context.Background()
	file, err := os.ReadFile("../testdata/corners/scaleoffset.h5")
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("../testdata/corners/scaleoffset.json")
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var want map[string]struct {
		Kind  string
		DType string
		Value any
	}
	if err := d.Decode(&want); err != nil {
		t.Fatal(err)
	}
	f := openBytes(t, "scaleoffset.h5", file)
	var paths []string
	for p, w := range want {
		if w.Kind == "dataset" {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	if len(paths) < 30 {
		t.Fatalf("%d datasets in scaleoffset.json", len(paths))
	}
	for _, p := range paths {
		t.Run(p[1:], func(t *testing.T) {
			ds, err := f.Dataset(ctx, p)
			if err != nil {
				t.Fatal(err)
			}
			if fs := ds.Filters(); len(fs) == 0 || fs[0].ID != 6 {
				t.Fatalf("filters %v, want scale-offset first", fs)
			}
			got, err := readLocated(ctx, ds, file)
			if err != nil {
				t.Fatal(err)
			}
			exp := encodeValues(t, want[p].DType, want[p].Value)
			if !bytes.Equal(got, exp) {
				t.Errorf("bytes differ from h5py's values:\n got %x\nwant %x", got, exp)
			}
		})
	}
}

// encodeValues writes h5py's values (nested lists of json.Number) as the
// bytes of numpy dtype descr.
func encodeValues(t *testing.T, descr string, v any) []byte {
	t.Helper()
	var order binary.ByteOrder = binary.LittleEndian
	if descr[0] == '>' {
		order = binary.BigEndian
	}
	size, err := strconv.Atoi(descr[2:])
	if err != nil {
		t.Fatal(err)
	}
	var out []byte
	var walk func(any)
	walk = func(v any) {
		if list, ok := v.([]any); ok {
			for _, x := range list {
				walk(x)
			}
			return
		}
		s := string(v.(json.Number))
		var bits uint64
		var err error
		switch descr[1] {
		case 'i':
			var i int64
			i, err = strconv.ParseInt(s, 10, 64)
			bits = uint64(i)
		case 'u':
			bits, err = strconv.ParseUint(s, 10, 64)
		case 'f':
			var x float64
			x, err = strconv.ParseFloat(s, 64)
			bits = math.Float64bits(x)
			if size == 4 {
				bits = uint64(math.Float32bits(float32(x)))
			}
		}
		if err != nil {
			t.Fatalf("value %s of %s: %v", s, descr, err)
		}
		b := make([]byte, 8)
		order.PutUint64(b, bits)
		if order == binary.BigEndian {
			out = append(out, b[8-size:]...)
		} else {
			out = append(out, b[:size]...)
		}
	}
	walk(v)
	return out
}
