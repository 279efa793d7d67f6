package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lindigo/lindi/zarrmeta"
)

const nwbFixtures = "../../testdata/nwb"

// TestTableExpected checks "lindi table" on every table of the NWB fixture,
// from the HDF5 file and from its LINDI JSON, against the output that
// testdata/nwb/expected/gen.py derives with h5py from hdmf's rules.
func TestTableExpected(t *testing.T) {
	tables := map[string]string{
		"electrodes": "general/extracellular_ephys/electrodes",
		"units":      "units",
		"trials":     "/intervals/trials",
	}
	for name, path := range tables {
		for _, file := range []string{"tables.nwb", "tables.nwb.lindi.json"} {
			for _, format := range []string{"json", "csv"} {
				t.Run(name+"/"+file+"/"+format, func(t *testing.T) {
					py, err := os.ReadFile(filepath.Join(nwbFixtures, "expected", name+"."+format))
					if err != nil {
						t.Fatal(err)
					}
					want := ourSpelling(t, format, py)
					code, stdout, stderr := lindi("table", "-f", format, filepath.Join(nwbFixtures, file), path)
					if code != 0 {
						t.Fatalf("exit %d: %s", code, stderr)
					}
					if stdout != want {
						t.Errorf("output differs from expected/%s.%s:\n got %s\nwant %s", name, format, stdout, want)
					}
				})
			}
		}
	}
}

// ourSpelling turns the output of Python's json and csv modules that gen.py
// writes into lindi's number spelling (docs/reading.md, "How numbers are printed"): in JSON the bare
// NaN, Infinity and -Infinity tokens, which are not JSON, become strings; in
// CSV a float cell is nan, inf or -inf as numpy prints it, and a cell of
// JSON spells them as JSON does.
func ourSpelling(t *testing.T, format string, py []byte) string {
	t.Helper()
	quote := func(b []byte) string {
		var out []byte
		last := 0
		for i, w := range zarrmeta.NonFinite(b) {
			out = append(append(append(out, b[last:i]...), '"'), w+`"`...)
			last = i + len(w)
		}
		return string(append(out, b[last:]...))
	}
	if format == "json" {
		return quote(py)
	}
	rows, err := csv.NewReader(bytes.NewReader(py)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	text := map[string]string{"NaN": "nan", "Infinity": "inf", "-Infinity": "-inf"}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	for _, row := range rows {
		for i, cell := range row {
			if s, ok := text[cell]; ok {
				row[i] = s
			} else if strings.HasPrefix(cell, "[") || strings.HasPrefix(cell, "{") {
				row[i] = quote([]byte(cell))
			}
		}
		if err := w.Write(row); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	return b.String()
}

// TestTableErrors checks that table and nwb fail with one line naming the problem.
func TestTableErrors(t *testing.T) {
	file := filepath.Join(nwbFixtures, "tables.nwb")
	for _, tc := range []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no path", []string{"table", file}, 2, "table takes FILE PATH"},
		{"bad format", []string{"table", "-f", "xml", file, "units"}, 2, "xml"},
		{"missing table", []string{"table", file, "intervals/epochs"}, 1, "intervals/epochs"},
		{"not a table", []string{"table", file, "acquisition/ElectricalSeries"}, 1, "not a DynamicTable"},
		{"not nwb", []string{"table", filepath.Join(fixtures, "fixture.zarr"), "units"}, 1, "not an NWB file"},
		{"nwb without file", []string{"nwb"}, 2, "nwb takes FILE"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := lindi(tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr: %s", code, tc.code, stderr)
			}
			first, _, _ := strings.Cut(stderr, "\n")
			if !strings.HasPrefix(first, "lindi: ") || !strings.Contains(first, tc.msg) {
				t.Errorf("stderr %q: want a line naming %q", stderr, tc.msg)
			}
		})
	}
}

// TestNumberSpelling checks each output format's spelling of numbers
// against what numpy's repr prints (text, CSV) and against valid JSON.
func TestNumberSpelling(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		v          any
		text, json string
	}{
		{30000.0, "30000.0", "30000.0"}, {1.02e6, "1020000.0", "1020000.0"}, {1e-05, "1e-05", "1e-05"},
		{1.5e20, "1.5e+20", "1.5e+20"}, {math.Copysign(0, -1), "-0.0", "-0.0"}, {1e16, "1e+16", "1e+16"},
		{nan, "nan", `"NaN"`}, {inf, "inf", `"Infinity"`}, {-inf, "-inf", `"-Infinity"`},
		{float32(0.1), "0.1", "0.1"}, {float32(30000), "30000.0", "30000.0"}, {float32(16777216), "16777216.0", "16777216.0"},
		{float32(3.4028235e38), "3.4028235e+38", "3.4028235e+38"},
		{complex(1, 2), "(1+2j)", `{"imag":2.0,"real":1.0}`}, {complex(0, -1.5), "-1.5j", `{"imag":-1.5,"real":0.0}`},
		{complex(math.Copysign(0, -1), 1), "(-0+1j)", `{"imag":1.0,"real":-0.0}`}, {complex(1.5, math.Copysign(0, -1)), "(1.5-0j)", `{"imag":-0.0,"real":1.5}`},
		{complex(nan, 1), "(nan+1j)", `{"imag":1.0,"real":"NaN"}`}, {complex(1, -inf), "(1-infj)", `{"imag":"-Infinity","real":1.0}`},
		{complex(1e20, 1e-5), "(1e+20+1e-05j)", `{"imag":1e-05,"real":1e+20}`}, {complex64(complex(0.1, 0.2)), "(0.1+0.2j)", `{"imag":0.2,"real":0.1}`},
		{map[string]any{"a": int64(1), "b": []any{true, nil, 2.0}}, `{"a":1,"b":[true,null,2.0]}`, `{"a":1,"b":[true,null,2.0]}`},
	} {
		if got := formatValue(c.v); got != c.text {
			t.Errorf("text of %v: %s, want %s", c.v, got, c.text)
		}
		b, err := json.Marshal(jsonValue(c.v))
		if err != nil || string(b) != c.json || !json.Valid(b) {
			t.Errorf("JSON of %v: %s (%v), want %s", c.v, b, err, c.json)
		}
		if f, ok := c.v.(float64); ok {
			if got, _ := cellText(f); got != c.text {
				t.Errorf("CSV cell of %v: %s, want %s", f, got, c.text)
			}
			if got, _ := appendPyJSON(nil, f); string(got) != c.json {
				t.Errorf("table JSON of %v: %s, want %s", f, got, c.json)
			}
		}
	}
}
