package nwb_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/nwb"
)

// moved writes a copy of tables.nwb.lindi.json with each group of moves
// (old path → new path, no leading slash) moved there: its keys renamed and
// every reference to it rewritten, so that tables and regions must be found
// where they are, not where NWB puts them by default.
func moved(t *testing.T, moves map[string]string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "nwb", "tables.nwb.lindi.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	refs := doc["refs"].(map[string]any)
	out := map[string]any{}
	for k, v := range refs {
		for from, to := range moves {
			if strings.HasPrefix(k, from+"/") {
				k = to + strings.TrimPrefix(k, from)
			}
		}
		out[k] = v
	}
	for _, to := range moves {
		for dir := filepath.Dir(to); dir != "."; dir = filepath.Dir(dir) {
			out[dir+"/.zgroup"] = map[string]any{"zarr_format": 2}
		}
	}
	doc["refs"] = out
	b, err = json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for from, to := range moves {
		s = strings.ReplaceAll(s, `"path":"/`+from+`"`, `"path":"/`+to+`"`)
		s = strings.ReplaceAll(s, `"path":"/`+from+`/`, `"path":"/`+to+`/`)
	}
	p := filepath.Join(t.TempDir(), "moved.nwb.lindi.json")
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestTypedTablesElsewhere opens Units, electrodes and TimeIntervals tables
// that are not where NWB puts them by default, by path and from a Table.
func TestTypedTablesElsewhere(t *testing.T) {
	f := open(t, moved(t, map[string]string{
		"units":                                  "processing/ecephys/units",
		"general/extracellular_ephys/electrodes": "processing/ecephys/electrodes",
		"intervals/trials":                       "processing/behavior/trials",
	}))
	if _, err := f.Units(ctx); !errors.Is(err, h5.ErrNotFound) {
		t.Fatalf("f.Units of a file without /units: %v, want ErrNotFound", err)
	}
	u, err := nwb.UnitsAt(ctx, f, "/processing/ecephys/units")
	if err != nil {
		t.Fatal(err)
	}
	tab, err := f.Table(ctx, "processing/ecephys/units")
	if err != nil {
		t.Fatal(err)
	}
	for _, units := range []*nwb.Units{u, nwb.NewUnits(tab)} {
		spikes, err := units.SpikeTimes(ctx, 1)
		if err != nil || len(spikes) != 25 {
			t.Errorf("unit 1: %d spikes, %v; want 25", len(spikes), err)
		}
		el, err := units.Electrodes(ctx, 0)
		if err != nil || !slices.Equal(el, []int{6, 8, 11}) {
			t.Errorf("unit 0's electrodes %v, %v; want [6 8 11]", el, err)
		}
	}
	e, err := nwb.ElectrodesAt(ctx, f, "processing/ecephys/electrodes")
	if err != nil {
		t.Fatal(err)
	}
	locs, err := e.Locations(ctx)
	if err != nil || len(locs) != 13 || locs[2] != "DG" {
		t.Errorf("locations %v, %v", locs, err)
	}
	if got := nwb.NewElectrodes(e.Table); got.Path() != "/processing/ecephys/electrodes" {
		t.Errorf("NewElectrodes path %s", got.Path())
	}
	iv, err := nwb.IntervalsAt(ctx, f, "processing/behavior/trials")
	if err != nil {
		t.Fatal(err)
	}
	start, _, err := iv.Times(ctx)
	if err != nil || len(start) != 6 {
		t.Errorf("trial start times %v, %v", start, err)
	}
	if _, err := nwb.NewIntervals(u.Table); !errors.Is(err, nwb.ErrNoColumn) {
		t.Errorf("NewIntervals of a units table: %v, want ErrNoColumn", err)
	}
	if _, err := nwb.IntervalsAt(ctx, f, "processing/ecephys/units"); !errors.Is(err, nwb.ErrNoColumn) {
		t.Errorf("IntervalsAt a units table: %v, want ErrNoColumn", err)
	}
	if _, err := nwb.UnitsAt(ctx, f, "processing"); !errors.Is(err, nwb.ErrNotTable) {
		t.Errorf("UnitsAt a group that is no table: %v, want ErrNotTable", err)
	}
	if _, err := nwb.ElectrodesAt(ctx, f, "general/extracellular_ephys/electrodes"); !errors.Is(err, h5.ErrNotFound) {
		t.Errorf("ElectrodesAt a path that moved: %v, want ErrNotFound", err)
	}
}
