package nwb_test

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/nwb"
)

var ctx = context.Background()

var files = []string{"tables.nwb", "tables.nwb.lindi.json"}

func open(t *testing.T, path string) *nwb.File {
	t.Helper()
	f, err := nwb.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// expected loads a table written by testdata/nwb/expected/gen.py (h5py and
// hdmf's rules), with non-finite floats read as nil.
func expected(t *testing.T, name string) map[string][]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "testdata", "nwb", "expected", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	s := strings.NewReplacer("-Infinity", "null", "Infinity", "null", "NaN", "null").Replace(string(b))
	var out map[string][]any
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func floats(t *testing.T, v any) []float64 {
	t.Helper()
	var out []float64
	for _, x := range v.([]any) {
		out = append(out, x.(float64))
	}
	return out
}

func TestUnits(t *testing.T) {
	want := expected(t, "units")
	for _, name := range files {
		t.Run(name, func(t *testing.T) {
			f := open(t, filepath.Join("..", "testdata", "nwb", name))
			u, err := f.Units(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if u.Len() != 8 || !slices.Equal(u.Columns(), []string{"spike_times", "obs_intervals", "electrodes", "waveform_mean", "waveforms", "quality"}) {
				t.Fatalf("units: %d rows, columns %v", u.Len(), u.Columns())
			}
			trains, err := u.SpikeTrains(ctx, 0, u.Len())
			if err != nil {
				t.Fatal(err)
			}
			for i, tr := range trains {
				if w := floats(t, want["spike_times"][i]); !slices.Equal(tr, w) {
					t.Errorf("unit %d: spike times %v, want %v", i, tr, w)
				}
			}
			one, err := u.SpikeTimes(ctx, 5)
			if err != nil || !slices.Equal(one, trains[5]) {
				t.Errorf("SpikeTimes(5) = %v, %v; want %v", one, err, trains[5])
			}
			for i := range u.Len() {
				el, err := u.Electrodes(ctx, i)
				if err != nil {
					t.Fatal(err)
				}
				var w []int
				for _, x := range want["electrodes"][i].([]any) {
					w = append(w, int(x.(float64)))
				}
				if !slices.Equal(el, w) {
					t.Errorf("unit %d: electrodes %v, want %v", i, el, w)
				}
			}
			// A region resolves to the rows of the electrodes table.
			c, err := u.Column("electrodes")
			if err != nil {
				t.Fatal(err)
			}
			rows, err := c.Resolve(ctx, 1)
			if err != nil {
				t.Fatal(err)
			}
			ids := expected(t, "electrodes")["id"]
			if len(rows) != 2 || rows[0].ID != int64(ids[9].(float64)) || rows[1].ID != int64(ids[11].(float64)) {
				t.Errorf("unit 1's electrodes resolve to %+v, want rows 9 and 11", rows)
			}
			if loc, _ := rows[0].Get("location"); loc != "CA1" {
				t.Errorf("electrode 9 location %v, want CA1", loc)
			}
			// Doubly ragged: a row is a list of lists of waveform rows.
			wf, err := u.Column("waveforms")
			if err != nil || wf.Depth() != 2 {
				t.Fatalf("waveforms depth %v, %v", wf, err)
			}
			cells, err := wf.Cells(ctx, 4, 5)
			if err != nil {
				t.Fatal(err)
			}
			gotJSON, _ := json.Marshal(cells[0])
			wantJSON, _ := json.Marshal(want["waveforms"][4])
			if !jsonClose(t, gotJSON, wantJSON) {
				t.Errorf("waveforms row 4 = %s, want %s", gotJSON, wantJSON)
			}
			if _, err := nwb.Ragged[float64](ctx, wf, 0, 1); !errors.Is(err, h5.ErrType) {
				t.Errorf("Ragged on a doubly ragged column: %v, want ErrType", err)
			}
			q, err := u.Column("quality")
			if err != nil {
				t.Fatal(err)
			}
			qv, err := nwb.Values[float64](ctx, q, 0, 2)
			if err != nil || !math.IsNaN(qv.Data[0]) || qv.Data[1] != want["quality"][1].(float64) {
				t.Errorf("quality[:2] = %v, %v", qv, err)
			}
		})
	}
}

// jsonClose compares JSON texts of float32 data read as float64 (exact) and
// of the same values written by Python (also exact): they must be equal.
func jsonClose(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return string(xa) == string(ya)
}

func TestElectrodesAndTrials(t *testing.T) {
	ew, tw := expected(t, "electrodes"), expected(t, "trials")
	for _, name := range files {
		t.Run(name, func(t *testing.T) {
			f := open(t, filepath.Join("..", "testdata", "nwb", name))
			e, err := f.Electrodes(ctx)
			if err != nil {
				t.Fatal(err)
			}
			locs, err := e.Locations(ctx)
			if err != nil {
				t.Fatal(err)
			}
			groups, err := e.Groups(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for i := range e.Len() {
				if locs[i] != ew["location"][i] || groups[i].Path() != ew["group"][i] {
					t.Errorf("electrode %d: %s %s, want %v %v", i, locs[i], groups[i].Path(), ew["location"][i], ew["group"][i])
				}
			}
			if loc, _ := groups[2].Attrs().String("location"); loc != "DG" {
				t.Errorf("group of electrode 2 has location %q", loc)
			}
			tr, err := f.Trials(ctx)
			if err != nil {
				t.Fatal(err)
			}
			start, stop, err := tr.Times(ctx)
			if err != nil || !slices.Equal(start, floats(t, tw["start_time"])) || !slices.Equal(stop, floats(t, tw["stop_time"])) {
				t.Errorf("times %v %v, %v", start, stop, err)
			}
			for i := range tr.Len() {
				tags, err := tr.Tags(ctx, i)
				if err != nil {
					t.Fatal(err)
				}
				var w []string
				for _, x := range tw["tags"][i].([]any) {
					w = append(w, x.(string))
				}
				if !slices.Equal(tags, w) {
					t.Errorf("trial %d tags %q, want %q", i, tags, w)
				}
				refs, err := tr.Series(ctx, i)
				if err != nil {
					t.Fatal(err)
				}
				wr := tw["timeseries"][i].([]any)
				if len(refs) != len(wr) {
					t.Fatalf("trial %d: %d series refs, want %d", i, len(refs), len(wr))
				}
				for k, r := range refs {
					m := wr[k].(map[string]any)
					if r.Start != int(m["idx_start"].(float64)) || r.Count != int(m["count"].(float64)) || r.Path != m["timeseries"] {
						t.Errorf("trial %d ref %d = %+v, want %v", i, k, r, m)
					}
				}
			}
		})
	}
}

func TestObjects(t *testing.T) {
	for _, name := range files {
		f := open(t, filepath.Join("..", "testdata", "nwb", name))
		objs, err := f.Objects(ctx)
		if err != nil {
			t.Fatal(err)
		}
		found := map[string]nwb.Object{}
		for _, o := range objs {
			found[o.Path] = o
		}
		for path, typ := range map[string]string{
			"/acquisition/ElectricalSeries":                 "ElectricalSeries",
			"/units":                                        "Units",
			"/units/spike_times_index":                      "VectorIndex",
			"/intervals/trials/timeseries":                  "TimeSeriesReferenceVectorData",
			"/general/extracellular_ephys/shank1":           "ElectrodeGroup",
			"/general/extracellular_ephys/electrodes/group": "VectorData",
		} {
			if o, ok := found[path]; !ok || o.Type != typ || o.Name != path[strings.LastIndex(path, "/")+1:] {
				t.Errorf("%s: object %+v, want type %s", name, o, typ)
			}
		}
		if !found["/units"].Group || found["/units/spike_times"].Group || found["/units"].Namespace != "core" {
			t.Errorf("%s: units %+v, spike_times %+v", name, found["/units"], found["/units/spike_times"])
		}
	}
}

func TestTimeSeriesRate(t *testing.T) {
	for _, name := range files {
		f := open(t, filepath.Join("..", "testdata", "nwb", name))
		ts, err := f.TimeSeries(ctx, "acquisition/ElectricalSeries")
		if err != nil {
			t.Fatal(err)
		}
		rate, ok := ts.Rate()
		if !ok || rate != 30000 || ts.Len() != 1000 || ts.Type() != "ElectricalSeries" || ts.Conversion() != 1 {
			t.Fatalf("rate %v %v, len %d, type %s, conversion %v", rate, ok, ts.Len(), ts.Type(), ts.Conversion())
		}
		times, err := ts.Timestamps(ctx, 998, 1000)
		if err != nil || times[0] != 0.5+998.0/30000 || times[1] != 0.5+999.0/30000 {
			t.Errorf("timestamps %v, %v", times, err)
		}
		// Samples at 0.5 + i/30000: [0.501, 0.502) holds samples 30 to 59.
		start, stop, err := ts.Window(ctx, 0.501, 0.502)
		if err != nil || start != 30 || stop != 60 {
			t.Errorf("window [0.501, 0.502) = [%d, %d), %v; want [30, 60)", start, stop, err)
		}
		if s, e, err := ts.Window(ctx, 0, 0.4); err != nil || s != 0 || e != 0 {
			t.Errorf("window before the data = [%d, %d), %v", s, e, err)
		}
		if s, e, err := ts.Window(ctx, 0.4, 9); err != nil || s != 0 || e != 1000 {
			t.Errorf("window over all the data = [%d, %d), %v", s, e, err)
		}
		if _, _, err := ts.Window(ctx, 2, 1); !errors.Is(err, nwb.ErrRange) {
			t.Errorf("backwards window: %v, want ErrRange", err)
		}
		phys, err := ts.ReadPhysical(ctx, 0, 2)
		if err != nil || !slices.Equal(phys.Data, []float64{91, -8, -37, -4, 1, -36, 28, 57}) {
			t.Errorf("physical rows 0:2 = %v, %v", phys, err)
		}
	}
}

// TestTimeSeriesTimestamps checks a series with explicit timestamps and a
// conversion (the conformance fixture's ElectricalSeries) and that a window
// search reads a small part of the timestamps.
func TestTimeSeriesTimestamps(t *testing.T) {
	path := filepath.Join("..", "testdata", "conformance", "fixture.h5")
	f := open(t, path)
	ts, err := f.TimeSeries(ctx, "acquisition/ElectricalSeries")
	if err != nil {
		t.Fatal(err)
	}
	all, err := ts.Timestamps(ctx, 0, ts.Len())
	if err != nil {
		t.Fatal(err)
	}
	before := bytesRead(f)
	t0, t1 := all[1234]-1e-9, all[4321]
	start, stop, err := ts.Window(ctx, t0, t1)
	if err != nil || start != 1234 || stop != 4321 {
		t.Errorf("window = [%d, %d), %v; want [1234, 4321)", start, stop, err)
	}
	if n := bytesRead(f) - before; n >= int64(8*ts.Len()) {
		t.Errorf("a window search read %d bytes; the timestamps are %d", n, 8*ts.Len())
	}
	if _, ok := ts.Rate(); ok {
		t.Error("Rate reports a rate for a series with timestamps")
	}
	raw, err := h5.Read[float64](ctx, ts.Data(), nil)
	if err != nil {
		t.Fatal(err)
	}
	phys, err := ts.ReadPhysical(ctx, 10, 12)
	if err != nil || ts.Unit() != "volts" {
		t.Fatal(err, ts.Unit())
	}
	for i, v := range phys.Data {
		if want := raw.Data[10*24+i] * 1.95e-07; v != want {
			t.Errorf("physical element %d = %v, want %v", i, v, want)
		}
	}
}

func bytesRead(f *nwb.File) int64 {
	var n int64
	for _, s := range f.H5().Stats() {
		n += s.Stats.Bytes
	}
	return n
}

func TestNotNWB(t *testing.T) {
	_, err := nwb.Open(ctx, filepath.Join("..", "testdata", "conformance", "fixture.zarr"))
	if !errors.Is(err, nwb.ErrNotNWB) {
		t.Errorf("opening a Zarr store that is not NWB: %v, want ErrNotNWB", err)
	}
}

// hostile writes a LINDI JSON NWB file with a units table whose spike times
// index is idx, and whose colnames and id are given.
func hostile(t *testing.T, colnames []string, ids int, idx []uint64) string {
	t.Helper()
	u8 := func(v []uint64) string {
		b := make([]byte, 8*len(v))
		for i, x := range v {
			binary.LittleEndian.PutUint64(b[8*i:], x)
		}
		return "base64:" + base64.StdEncoding.EncodeToString(b)
	}
	arr := func(dtype string, n int) map[string]any {
		return map[string]any{"chunks": []int{max(n, 1)}, "compressor": nil, "dtype": dtype, "fill_value": 0, "filters": nil, "order": "C", "shape": []int{n}, "zarr_format": 2}
	}
	ref := func(p string) map[string]any {
		return map[string]any{"_REFERENCE": map[string]any{"object_id": nil, "path": p, "source": ".", "source_object_id": nil}}
	}
	idv := make([]uint64, ids)
	times := []uint64{1, 2, 3, 4, 5}
	refs := map[string]any{
		".zgroup": map[string]any{"zarr_format": 2}, ".zattrs": map[string]any{"neurodata_type": "NWBFile", "nwb_version": "2.7.0"},
		"units/.zgroup": map[string]any{"zarr_format": 2}, "units/.zattrs": map[string]any{"colnames": colnames, "neurodata_type": "Units"},
		"units/id/.zarray": arr("<u8", ids), "units/id/0": u8(idv),
		"units/spike_times/.zarray": arr("<u8", len(times)), "units/spike_times/0": u8(times),
		"units/spike_times_index/.zarray": arr("<u8", len(idx)), "units/spike_times_index/0": u8(idx),
		"units/spike_times_index/.zattrs": map[string]any{"neurodata_type": "VectorIndex", "target": ref("/units/spike_times")},
	}
	b, err := json.Marshal(map[string]any{"version": 1, "refs": refs})
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "hostile.nwb.lindi.json")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestHostileTables(t *testing.T) {
	for _, tc := range []struct {
		name     string
		colnames []string
		ids      int
		idx      []uint64
		openErr  error
		readErr  error
		row1Err  error // reading row 1 alone, which sees offsets 0 and 1 only
		msg      string
	}{
		{"good", []string{"spike_times"}, 3, []uint64{2, 2, 5}, nil, nil, nil, ""},
		{"backwards", []string{"spike_times"}, 3, []uint64{3, 2, 5}, nil, nwb.ErrIndex, nwb.ErrIndex, "spike_times_index"},
		{"past the data", []string{"spike_times"}, 3, []uint64{2, 4, 6}, nil, nwb.ErrIndex, nil, "spike_times_index"},
		{"huge offset", []string{"spike_times"}, 3, []uint64{2, 4, 1 << 63}, nil, nwb.ErrIndex, nil, "spike_times_index"},
		{"short index", []string{"spike_times"}, 4, []uint64{2, 4, 5}, nwb.ErrIndex, nil, nil, "spike_times_index"},
		{"missing column", []string{"spike_times", "quality"}, 3, []uint64{2, 4, 5}, nwb.ErrNoColumn, nil, nil, "quality"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := open(t, hostile(t, tc.colnames, tc.ids, tc.idx))
			u, err := f.Units(ctx)
			if !errors.Is(err, tc.openErr) || (err != nil && !strings.Contains(err.Error(), tc.msg)) {
				t.Fatalf("open: %v, want %v naming %q", err, tc.openErr, tc.msg)
			}
			if err != nil {
				return
			}
			trains, err := u.SpikeTrains(ctx, 0, u.Len())
			if !errors.Is(err, tc.readErr) || (err != nil && !strings.Contains(err.Error(), tc.msg)) {
				t.Fatalf("read: %v, want %v naming %q", err, tc.readErr, tc.msg)
			}
			if err == nil && (len(trains) != 3 || len(trains[1]) != 0 || !slices.Equal(trains[2], []float64{3, 4, 5})) {
				t.Errorf("spike trains %v", trains)
			}
			// Reading row 1 alone checks the offset before it too.
			c, err := u.Column("spike_times")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := c.Cells(ctx, 1, 2); !errors.Is(err, tc.row1Err) {
				t.Errorf("row 1: %v, want %v", err, tc.row1Err)
			}
			if _, err := u.Rows(ctx, 2, 9); !errors.Is(err, nwb.ErrRange) {
				t.Errorf("rows past the end: %v, want ErrRange", err)
			}
		})
	}
}
