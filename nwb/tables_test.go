package nwb_test

import (
	"encoding/base64"
	"encoding/binary"
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

// TestSeriesElectrodes resolves an ElectricalSeries' electrodes region
// against its table: by default, moved elsewhere, and from the conformance
// fixture, whose region has no neurodata_type.
func TestSeriesElectrodes(t *testing.T) {
	for _, c := range []struct {
		name, file, table string
		rows              []int
		ids               []int64
		locations         []any
	}{
		{"tables.nwb", filepath.Join("..", "testdata", "nwb", "tables.nwb"), "/general/extracellular_ephys/electrodes",
			[]int{0, 2, 4, 6}, []int64{100, 102, 104, 106}, []any{"CA1", "DG", "CA3", "CA1"}},
		{"moved", moved(t, map[string]string{"general/extracellular_ephys/electrodes": "processing/ecephys/electrodes"}), "/processing/ecephys/electrodes",
			[]int{0, 2, 4, 6}, []int64{100, 102, 104, 106}, []any{"CA1", "DG", "CA3", "CA1"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := open(t, c.file)
			ts, err := f.TimeSeries(ctx, "acquisition/ElectricalSeries")
			if err != nil {
				t.Fatal(err)
			}
			rows, table, err := ts.Electrodes(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(rows, c.rows) || table.Path() != c.table {
				t.Fatalf("rows %v of %s; want %v of %s", rows, table.Path(), c.rows, c.table)
			}
			sel, err := table.Select(ctx, rows)
			if err != nil {
				t.Fatal(err)
			}
			for i, r := range sel {
				loc, _ := r.Get("location")
				if r.ID != c.ids[i] || loc != c.locations[i] {
					t.Errorf("channel %d: id %d at %v; want %d at %v", i, r.ID, loc, c.ids[i], c.locations[i])
				}
			}
		})
	}
	f := open(t, filepath.Join("..", "testdata", "conformance", "fixture.h5"))
	ts, err := f.TimeSeries(ctx, "acquisition/ElectricalSeries")
	if err != nil {
		t.Fatal(err)
	}
	rows, table, err := ts.Electrodes(ctx)
	if err != nil || len(rows) != 24 || rows[23] != 23 || table.Len() != 24 {
		t.Fatalf("conformance fixture: %v, %v", rows, err)
	}
	locs, err := table.Locations(ctx)
	if err != nil || len(locs) != 24 {
		t.Errorf("locations %v, %v", locs, err)
	}
}

// TestSeriesElectrodesErrors: a series without electrodes, and a region
// that points past its table or does not match the channels.
func TestSeriesElectrodesErrors(t *testing.T) {
	f := open(t, withRegion(t, nil))
	ts, err := f.TimeSeries(ctx, "acquisition/ElectricalSeries")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := ts.Electrodes(ctx); !errors.Is(err, h5.ErrNotFound) {
		t.Errorf("a series without electrodes: %v, want ErrNotFound", err)
	}
	for _, c := range []struct {
		name   string
		region []int64
		is     error
	}{
		{"past the table", []int64{0, 1, 2, 13}, nwb.ErrIndex},
		{"negative", []int64{0, -1, 2, 3}, nwb.ErrIndex},
		{"too few", []int64{0, 1, 2}, nwb.ErrIndex},
		{"last row", []int64{0, 1, 2, 12}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := open(t, withRegion(t, c.region))
			ts, err := f.TimeSeries(ctx, "acquisition/ElectricalSeries")
			if err != nil {
				t.Fatal(err)
			}
			_, _, err = ts.Electrodes(ctx)
			if c.is == nil && err != nil {
				t.Errorf("got %v", err)
			}
			if c.is != nil && (!errors.Is(err, c.is) || !strings.Contains(err.Error(), "/acquisition/ElectricalSeries/electrodes")) {
				t.Errorf("got %v, want %v naming the region", err, c.is)
			}
		})
	}
}

// withRegion writes a copy of tables.nwb.lindi.json whose ElectricalSeries'
// electrodes region holds region (the electrodes table has 13 rows), or has
// no electrodes at all when region is nil.
func withRegion(t *testing.T, region []int64) string {
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
	const key = "acquisition/ElectricalSeries/electrodes/"
	if region == nil {
		for k := range refs {
			if strings.HasPrefix(k, key) {
				delete(refs, k)
			}
		}
	} else {
		za := refs[key+".zarray"].(map[string]any)
		za["compressor"], za["dtype"], za["shape"], za["chunks"] = nil, "<i8", []int{len(region)}, []int{len(region)}
		raw := make([]byte, 8*len(region))
		for i, x := range region {
			binary.LittleEndian.PutUint64(raw[8*i:], uint64(x))
		}
		refs[key+"0"] = "base64:" + base64.StdEncoding.EncodeToString(raw)
	}
	if b, err = json.Marshal(doc); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "region.nwb.lindi.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
