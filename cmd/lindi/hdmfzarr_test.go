package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const zarrFixtures = "../../testdata/nwbzarr"

var hdmfStores = []string{"ecephys", "ecephys_jsoncodec", "ecephys_exported", "ophys_behavior", "ophys_behavior_exported"}

// TestHDMFZarrCLI: "lindi nwb", "lindi ls -r" and "lindi table" of every
// table show the same for each hdmf-zarr store as for its HDF5 twin (but
// for the file's name and format on nwb's first line, and the storage
// columns of ls), and every table pynwb lists is shown with its columns
// and row count.
func TestHDMFZarrCLI(t *testing.T) {
	for _, name := range hdmfStores {
		t.Run(name, func(t *testing.T) {
			zarr, h5 := filepath.Join(zarrFixtures, name+".nwb.zarr"), filepath.Join(zarrFixtures, name+".nwb")
			run := func(args ...string) string {
				t.Helper()
				code, stdout, stderr := lindi(args...)
				if code != 0 || stderr != "" {
					t.Fatalf("lindi %s: exit %d: %s", strings.Join(args, " "), code, stderr)
				}
				return stdout
			}
			zn, hn := run("nwb", zarr), run("nwb", h5)
			zl, hl := strings.SplitN(zn, "\n", 2), strings.SplitN(hn, "\n", 2)
			if !strings.Contains(zl[0], "(Zarr v2)") || !strings.Contains(hl[0], "(HDF5)") || len(zl) < 2 || len(hl) < 2 {
				t.Fatalf("first lines %q, %q", zl[0], hl[0])
			}
			// The name column is as wide as the file name: compare the fields.
			if fields(zl[1]) != fields(hl[1]) {
				t.Errorf("lindi nwb differs:\n%s\nHDF5:\n%s", zn, hn)
			}
			if lsFields(run("ls", "-r", zarr)) != lsFields(run("ls", "-r", h5)) {
				t.Errorf("lindi ls -r differs")
			}
			dump := pynwbDump(t, name)
			tables := 0
			for _, o := range dump.Objects {
				if o.Table == nil {
					continue
				}
				tables++
				path := strings.TrimPrefix(o.Path, "root")
				zt, ht := run("table", zarr, path), run("table", h5, path)
				if zt != ht {
					t.Errorf("lindi table %s differs:\n%s\nHDF5:\n%s", path, zt, ht)
				}
				if zc, hc := run("table", "-f", "csv", zarr, path), run("table", "-f", "csv", h5, path); zc != hc {
					t.Errorf("lindi table -f csv %s differs:\n%s\nHDF5:\n%s", path, zc, hc)
				}
				var cols map[string][]any
				if err := json.Unmarshal([]byte(zt), &cols); err != nil {
					t.Fatalf("%s: %v", path, err)
				}
				if len(cols["id"]) != o.Table.NRows {
					t.Errorf("%s: %d rows, pynwb %d", path, len(cols["id"]), o.Table.NRows)
				}
				for _, c := range o.Table.Colnames {
					if len(cols[c]) != o.Table.NRows {
						t.Errorf("%s: column %s has %d cells, pynwb %d rows", path, c, len(cols[c]), o.Table.NRows)
					}
				}
			}
			if tables == 0 {
				t.Error("no tables in the pynwb dump")
			}
		})
	}
}

func fields(s string) string { return strings.Join(strings.Fields(s), " ") }

// lsFields keeps the path, kind and shape or target of each ls line: the
// layout and codec columns differ between the forms by design.
func lsFields(s string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		f := strings.Fields(line)
		if len(f) > 4 {
			f = f[:4]
		}
		out = append(out, strings.Join(f, " "))
	}
	return strings.Join(out, "\n")
}

type dumpFile struct {
	Objects []struct {
		Path  string
		Table *struct {
			Colnames []string
			NRows    int `json:"n_rows"`
		}
	}
}

func pynwbDump(t *testing.T, name string) dumpFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(zarrFixtures, name+".pynwb.json"))
	if err != nil {
		t.Fatal(err)
	}
	var d dumpFile
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	return d
}
