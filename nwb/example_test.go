package nwb_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/lindigo/lindi/nwb"
)

func ExampleUnits_SpikeTrains() {
	ctx := context.Background()
	f, err := nwb.Open(ctx, "../testdata/nwb/tables.nwb")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	units, err := f.Units(ctx)
	if err != nil {
		log.Fatal(err)
	}
	trains, err := units.SpikeTrains(ctx, 0, 2)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d units; unit 0: %d spikes from %.2f s; unit 1: %d spikes\n", units.Len(), len(trains[0]), trains[0][0], len(trains[1]))
	// Output: 8 units; unit 0: 18 spikes from 8.16 s; unit 1: 25 spikes
}

func ExampleTable_Rows() {
	ctx := context.Background()
	f, err := nwb.Open(ctx, "../testdata/nwb/tables.nwb.lindi.json")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	trials, err := f.Table(ctx, "intervals/trials")
	if err != nil {
		log.Fatal(err)
	}
	rows, err := trials.Rows(ctx, 0, 2)
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range rows {
		tags, _ := r.Get("tags")
		fmt.Println(r.ID, tags)
	}
	// Output:
	// 100 [nogo rewarded]
	// 101 []
}

func ExampleTimeSeries_Window() {
	ctx := context.Background()
	f, err := nwb.Open(ctx, "../testdata/nwb/tables.nwb")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	ts, err := f.TimeSeries(ctx, "acquisition/ElectricalSeries")
	if err != nil {
		log.Fatal(err)
	}
	start, stop, err := ts.Window(ctx, 0.501, 0.502) // seconds
	if err != nil {
		log.Fatal(err)
	}
	data, err := ts.ReadPhysical(ctx, start, stop)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(start, stop, data.Shape)
	// Output: 30 60 [30 4]
}

func ExampleColumn_Resolve() {
	ctx := context.Background()
	f, err := nwb.Open(ctx, "../testdata/nwb/tables.nwb")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	units, err := f.Units(ctx)
	if err != nil {
		log.Fatal(err)
	}
	electrodes, err := units.Column("electrodes") // a ragged DynamicTableRegion
	if err != nil {
		log.Fatal(err)
	}
	rows, err := electrodes.Resolve(ctx, 0) // unit 0's rows of the electrodes table
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range rows {
		loc, _ := r.Get("location")
		fmt.Println(r.Index, r.ID, loc)
	}
	// Output:
	// 6 106 CA1
	// 8 108 DG
	// 11 111 DG
}

// A Units table need not be at /units: UnitsAt opens one at any path (a
// processing module's, say), and NewUnits reads a Table already open.
func ExampleUnitsAt() {
	ctx := context.Background()
	f, err := nwb.Open(ctx, "../testdata/nwb/tables.nwb")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	units, err := nwb.UnitsAt(ctx, f, "/units") // "/processing/ecephys/units", …
	if err != nil {
		log.Fatal(err)
	}
	spikes, err := units.SpikeTimes(ctx, 1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %d units; unit 1 has %d spikes\n", units.Path(), units.Len(), len(spikes))
	// Output: /units: 8 units; unit 1 has 25 spikes
}

// NewIntervals reads an open Table as a TimeIntervals table, checking that
// it has the start_time and stop_time columns.
func ExampleNewIntervals() {
	ctx := context.Background()
	f, err := nwb.Open(ctx, "../testdata/nwb/tables.nwb")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	t, err := f.Table(ctx, "intervals/trials")
	if err != nil {
		log.Fatal(err)
	}
	trials, err := nwb.NewIntervals(t)
	if err != nil {
		log.Fatal(err)
	}
	start, stop, err := trials.Times(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("trial 0: %.1f s to %.1f s\n", start[0], stop[0])
	units, err := f.Table(ctx, "units")
	if err != nil {
		log.Fatal(err)
	}
	_, err = nwb.NewIntervals(units)
	fmt.Println(err)
	// Output:
	// trial 0: 9.8 s to 11.3 s
	// nwb: no such column: "start_time": /units is not a TimeIntervals table
}

// An ElectricalSeries' electrodes region gives, per channel, a row of the
// electrodes table; Select reads those rows.
func ExampleTimeSeries_Electrodes() {
	ctx := context.Background()
	f, err := nwb.Open(ctx, "../testdata/nwb/tables.nwb")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	ts, err := f.TimeSeries(ctx, "acquisition/ElectricalSeries")
	if err != nil {
		log.Fatal(err)
	}
	rows, table, err := ts.Electrodes(ctx)
	if err != nil {
		log.Fatal(err)
	}
	electrodes, err := table.Select(ctx, rows)
	if err != nil {
		log.Fatal(err)
	}
	for channel, e := range electrodes {
		loc, _ := e.Get("location")
		fmt.Println(channel, e.Index, e.ID, loc)
	}
	// Output:
	// 0 0 100 CA1
	// 1 2 102 DG
	// 2 4 104 CA3
	// 3 6 106 CA1
}

// Rows decodes table rows into structs by field tags: the row id, a ragged
// column into a slice per row, a region into row positions.
func ExampleRows() {
	ctx := context.Background()
	f, err := nwb.Open(ctx, "../testdata/nwb/tables.nwb")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	type Unit struct {
		ID         int64     `nwb:"id"`
		Spikes     []float64 `nwb:"spike_times"`
		Electrodes []int     `nwb:"electrodes"` // rows of the electrodes table
	}
	units, err := f.Units(ctx)
	if err != nil {
		log.Fatal(err)
	}
	rows, err := nwb.Rows[Unit](ctx, units.Table, 0, 2)
	if err != nil {
		log.Fatal(err)
	}
	for _, u := range rows {
		fmt.Printf("unit %d: %d spikes, electrodes %v\n", u.ID, len(u.Spikes), u.Electrodes)
	}
	// Output:
	// unit 100: 18 spikes, electrodes [6 8 11]
	// unit 101: 25 spikes, electrodes [9 11]
}

// Select decodes chosen rows, such as an ElectricalSeries' electrodes, into
// structs; a compound or reference column goes into a struct or a string.
func ExampleSelect() {
	ctx := context.Background()
	f, err := nwb.Open(ctx, "../testdata/nwb/tables.nwb")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	ts, err := f.TimeSeries(ctx, "acquisition/ElectricalSeries")
	if err != nil {
		log.Fatal(err)
	}
	rows, table, err := ts.Electrodes(ctx)
	if err != nil {
		log.Fatal(err)
	}
	type Electrode struct {
		Location string `nwb:"location"`
		Group    string `nwb:"group"` // an object reference, as its target's path
	}
	electrodes, err := nwb.Select[Electrode](ctx, table.Table, rows)
	if err != nil {
		log.Fatal(err)
	}
	for channel, e := range electrodes {
		fmt.Println(channel, e.Location, e.Group)
	}
	// Output:
	// 0 CA1 /general/extracellular_ephys/shank0
	// 1 DG /general/extracellular_ephys/shank2
	// 2 CA3 /general/extracellular_ephys/shank1
	// 3 CA1 /general/extracellular_ephys/shank0
}

// Example_amend is docs/nwb.md's amendment example: a window of an
// ElectricalSeries, filtered, added as a new ElectricalSeries in
// processing/ecephys of a .lindi.tar that refers to the source's chunks.
func Example_amend() {
	dir, err := os.MkdirTemp("", "amend")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "amended.lindi.tar")
	// From here, the page's lines.
	ctx := context.Background()
	a, err := nwb.Amend(ctx, "testdata/amend/source.nwb", out) // any NWB source; out holds only what is new
	if err != nil {
		log.Fatal(err)
	}
	ts, err := a.TimeSeries(ctx, "acquisition/ElectricalSeries")
	if err != nil {
		log.Fatal(err)
	}
	lo, hi, err := ts.Window(ctx, 0.6, 0.7) // the samples from 0.6 s to 0.7 s
	if err != nil {
		log.Fatal(err)
	}
	v, err := ts.ReadPhysical(ctx, lo, hi) // volts, samples × channels
	if err != nil {
		log.Fatal(err)
	}
	nc := v.Shape[1]
	for i := len(v.Data) - 1; i >= nc; i-- {
		v.Data[i] -= v.Data[i-nc]
	} // first difference: a high-pass
	electrodes, _, err := ts.Electrodes(ctx)
	if err != nil {
		log.Fatal(err)
	}
	rate, _ := ts.Rate()
	mod, err := a.Processing(ctx, "ecephys", "filtered recordings")
	if err != nil {
		log.Fatal(err)
	}
	_, err = mod.AddElectricalSeries(ctx, "highpass", nwb.ElectricalSeriesSpec{Electrodes: electrodes,
		SeriesSpec: nwb.SeriesSpec{Data: nwb.NewData(v.Data, v.Shape...), Rate: rate, StartingTime: 0.6}})
	if err != nil {
		log.Fatal(err)
	}
	if err := a.Close(); err != nil {
		log.Fatal(err)
	} // commits, atomically
	// The page's lines end here.
	f, err := nwb.Open(ctx, out)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	hp, err := f.TimeSeries(ctx, "processing/ecephys/highpass")
	if err != nil {
		log.Fatal(err)
	}
	w, err := hp.ReadPhysical(ctx, 1, 2)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %v %s, %.1f mV from sample 0 to 1 on channel 0\n", hp.Type(), hp.Data().Shape(), hp.Unit(), w.Data[0]*1000)
	// Output: ElectricalSeries: [100 4] volts, -0.1 mV from sample 0 to 1 on channel 0
}

func ExampleTimeSeries_PhysicalBlocks() {
	ctx := context.Background()
	f, err := nwb.Open(ctx, "../testdata/nwb/tables.nwb")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	ts, err := f.TimeSeries(ctx, "acquisition/ElectricalSeries")
	if err != nil {
		log.Fatal(err)
	}
	// The mean of every channel in Unit, in blocks of 40 samples, the next
	// two blocks read while this one is summed: memory for three blocks.
	channels := ts.Data().Shape()[1]
	sum := make([]float64, channels)
	for b, err := range ts.PhysicalBlocks(ctx, 40, 2) {
		if err != nil {
			log.Fatal(err)
		}
		for i, v := range b.Data.Data {
			sum[i%channels] += v
		}
	}
	fmt.Printf("%d samples, channel 0 mean %.4g (unit %q)\n", ts.Len(), sum[0]/float64(ts.Len()), ts.Unit())
	// Output: 1000 samples, channel 0 mean -0.708 (unit "")
}
