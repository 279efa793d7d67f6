package h5grove

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

type dataCase struct {
	ID, Dataset, Selection, DType, Expected string
	Files                                   []string
	Shape                                   []int
}

func loadCases(t *testing.T, dir string) []dataCase {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "cases.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c struct{ Cases []dataCase }
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c.Cases
}

// TestDataCases reads every conformance case whose selection h5grove's
// syntax can say (integers and slices) from every form of its file (HDF5,
// LINDI JSON, tar and directory, Zarr v2, Zarr v3) and compares the answer
// with the values numpy wrote, in each format in turn.
func TestDataCases(t *testing.T) {
	formats := []string{"npy", "json", "bin", "csv"}
	n := 0
	for _, dir := range []string{conformance, "../testdata/zarr3"} {
		ts := serve(t, Dir(dir))
		for _, c := range loadCases(t, dir) {
			if strings.ContainsAny(c.Selection, "[N") || (strings.Contains(c.Selection, "...") && c.Selection != "...") || strings.ContainsAny(c.DType[1:2], "USOV") {
				continue
			}
			raw, err := os.ReadFile(filepath.Join(dir, c.Expected))
			if err != nil {
				t.Fatal(err)
			}
			want, err := readNpy(raw)
			if err != nil {
				t.Fatalf("%s: %v", c.Expected, err)
			}
			for _, file := range c.Files {
				format := formats[n%len(formats)]
				n++
				if format == "csv" && (len(c.Shape) == 0 || len(c.Shape) > 2) {
					format = "json"
				}
				args := []string{"file", file, "path", c.Dataset, "format", format}
				if c.Selection != "..." && c.Selection != "()" {
					args = append(args, "selection", c.Selection)
				}
				if format == "bin" {
					args = append(args, "dtype", "safe")
				}
				a := get(t, ts, "/data", args...)
				what := fmt.Sprintf("%s %s[%s] as %s", file, c.Dataset, c.Selection, format)
				if a.status != 200 {
					t.Errorf("%s: status %d: %s", what, a.status, a.body)
					continue
				}
				got, err := decodeAnswer(format, want.descr, a.body)
				if err != nil {
					t.Errorf("%s: %v", what, err)
					continue
				}
				exp := want.values
				if format == "json" {
					exp = nullsForNonFinite(exp) // JSON has no infinities: h5grove writes null
					if strings.HasSuffix(want.descr, "f4") {
						// JSON holds a float32 as its shortest decimal, as orjson does.
						got = asFloat32(got)
					}
				}
				if !sameNumbers(got, exp) {
					t.Errorf("%s: got %d values %.6v…, want %d %.6v…", what, len(got), head(got), len(want.values), head(want.values))
				}
			}
		}
	}
	if n < 500 {
		t.Errorf("only %d reads compared", n)
	}
}

// asFloat32 rounds each value to the float32 it reads as.
func asFloat32(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, f := range v {
		out[i] = float64(float32(f))
	}
	return out
}

func head(v []float64) []float64 { return v[:min(len(v), 6)] }

// decodeAnswer reads the numbers of a /data answer in format.
func decodeAnswer(format, descr string, body []byte) ([]float64, error) {
	switch format {
	case "npy":
		n, err := readNpy(body)
		if err != nil {
			return nil, err
		}
		return n.values, nil
	case "json":
		var v any
		if err := json.Unmarshal(body, &v); err != nil {
			return nil, err
		}
		return flatNumbers(v, nil), nil
	case "bin":
		safe := "<" + descr[1:]
		if descr[1:] == "f2" {
			safe = "<f4"
		}
		if len(body) == 0 {
			return []float64{}, nil
		}
		return decodeNumbers(safe, body)
	}
	var out []float64
	for _, line := range strings.Split(strings.TrimSuffix(string(body), "\n"), "\n") {
		if line == "" {
			continue
		}
		for _, f := range strings.Split(line, ",") {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
	}
	return out, nil
}

// TestDataValues compares /data's JSON with h5py's values of strings,
// compounds, booleans, scalars, big-endian and 64-bit data.
func TestDataValues(t *testing.T) {
	e := loadExpected(t)
	for _, file := range []string{"fixture.h5", "fixture.lindi.json", "fixture.lindi.tar", "fixture.lindi.d"} {
		ts := serve(t, Dir(conformance))
		for _, c := range e["data"].([]any) {
			c := c.(map[string]any)
			args := []string{"file", file, "path", c["path"].(string)}
			if sel, ok := c["selection"].(string); ok {
				args = append(args, "selection", sel)
			}
			got := get(t, ts, "/data", args...).ok(t, file+" "+c["path"].(string))
			if !equalJSON(got, c["value"]) {
				t.Errorf("%s %s[%v]: got %v, want %v", file, c["path"], c["selection"], got, c["value"])
			}
		}
	}
}

// equalJSON compares decoded JSON values, numbers to a relative 1e-6.
func equalJSON(a, b any) bool {
	switch a := a.(type) {
	case []any:
		bl, ok := b.([]any)
		if !ok || len(a) != len(bl) {
			return false
		}
		for i := range a {
			if !equalJSON(a[i], bl[i]) {
				return false
			}
		}
		return true
	case float64:
		bf, ok := b.(float64)
		return ok && math.Abs(a-bf) <= 1e-6*math.Max(math.Abs(a), math.Abs(bf))
	}
	return fmt.Sprint(a) == fmt.Sprint(b)
}

// TestStats compares /stats with numpy's on selections of the fixture, in
// its HDF5 and LINDI forms.
func TestStats(t *testing.T) {
	e := loadExpected(t)
	ts := serve(t, Dir(conformance))
	for _, file := range []string{"fixture.h5", "fixture.lindi.json", "fixture.lindi.d"} {
		for _, c := range e["stats"].([]any) {
			c := c.(map[string]any)
			args := []string{"file", file, "path", c["path"].(string)}
			if sel, ok := c["selection"].(string); ok {
				args = append(args, "selection", sel)
			}
			got := get(t, ts, "/stats", args...).ok(t, file+" "+c["path"].(string))
			want := c["stats"].(map[string]any)
			for k, w := range want {
				g := got.(map[string]any)[k]
				// numpy sums float32 data in float32: its mean and std
				// differ from a float64 sum in the 6th digit.
				if !closeTo(g, w, 1e-5) {
					t.Errorf("%s %s[%v] %s: got %v, want %v", file, c["path"], c["selection"], k, g, w)
				}
			}
		}
	}
}

func closeTo(a, b any, rel float64) bool {
	af, aok := a.(float64)
	bf, bok := b.(float64)
	if !aok || !bok {
		return a == nil && b == nil
	}
	return math.Abs(af-bf) <= rel*math.Max(1e-12, math.Max(math.Abs(af), math.Abs(bf)))
}

func nullsForNonFinite(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = x
		if math.IsInf(x, 0) {
			out[i] = math.NaN()
		}
	}
	return out
}

// TestContentLength: every /data answer carries its length, as h5grove's
// do, and HEAD gives the same for the formats that know it first.
func TestContentLength(t *testing.T) {
	ts := serve(t, Dir(conformance))
	for _, format := range []string{"json", "bin", "npy", "csv", "tiff"} {
		for _, file := range []string{"fixture.h5", "fixture.lindi.json"} {
			q := "/data?file=" + file + "&path=/misc/f4_2d_edge&format=" + format
			a := do(t, "GET", ts.URL, q)
			if a.status != 200 || a.header.Get("Content-Length") != fmt.Sprint(len(a.body)) {
				t.Errorf("%s: %d, Content-Length %q for %d bytes", q, a.status, a.header.Get("Content-Length"), len(a.body))
			}
			if h := do(t, "HEAD", ts.URL, q).header.Get("Content-Length"); format != "json" && format != "csv" && h != fmt.Sprint(len(a.body)) {
				t.Errorf("HEAD %s: Content-Length %q, GET sent %d bytes", q, h, len(a.body))
			}
		}
	}
}
