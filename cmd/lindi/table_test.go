package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
					want, err := os.ReadFile(filepath.Join(nwbFixtures, "expected", name+"."+format))
					if err != nil {
						t.Fatal(err)
					}
					code, stdout, stderr := lindi("table", "-f", format, filepath.Join(nwbFixtures, file), path)
					if code != 0 {
						t.Fatalf("exit %d: %s", code, stderr)
					}
					if stdout != string(want) {
						t.Errorf("output differs from expected/%s.%s:\n got %s\nwant %s", name, format, stdout, want)
					}
				})
			}
		}
	}
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

// TestPyFloat checks the float spelling against values Python's repr gives.
func TestPyFloat(t *testing.T) {
	for x, want := range map[float64]string{
		1: "1.0", -0.5: "-0.5", 1e-5: "1e-05", 0.0001: "0.0001", 1e16: "1e+16",
		123456789012345.0: "123456789012345.0", 1.5e300: "1.5e+300", 2.0 / 3: "0.6666666666666666", 5e-324: "5e-324",
	} {
		if got := pyFloat(x); got != want {
			t.Errorf("pyFloat(%v) = %s, want %s", x, got, want)
		}
	}
}
