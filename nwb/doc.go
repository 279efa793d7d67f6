// Package nwb reads Neurodata Without Borders files the way pynwb and hdmf
// see them, on top of package h5: time series with their timestamps and
// physical units, DynamicTables with ragged (VectorIndex), region
// (DynamicTableRegion), reference, compound and string columns, and the
// tables every NWB file has (units, electrodes, trials).
//
//	f, err := nwb.Open(ctx, "sub-01.nwb.lindi.json") // anything h5.Open takes
//	units, err := f.Units(ctx)
//	spikes, err := units.SpikeTimes(ctx, 0)          // []float64, unit 0's spike times
//
// The tables NWB puts at fixed paths have File methods (Units, Electrodes,
// Trials); a typed table anywhere else opens with UnitsAt, ElectrodesAt or
// IntervalsAt and a path, and NewUnits, NewElectrodes or NewIntervals give
// the typed view of a Table already open. Rows and Select decode table rows
// into a slice of the caller's struct type, by field tags.
//
// Amend makes an amendment: a .lindi.tar or .lindi.d that refers to any
// NWB source's chunks and takes new objects, written through h5's write
// API (chunked, compressed, encoded on every core) with what the NWB schema
// asks of them (namespace, neurodata_type, a fresh object_id, the required
// attributes and dtypes), so that pynwb reads them beside the source's:
//
//	a, err := nwb.Amend(ctx, "sub-01.nwb", "sub-01.lindi.tar")
//	mod, err := a.Processing(ctx, "behavior", "running speed")
//	_, err = mod.AddTimeSeries(ctx, "speed", nwb.SeriesSpec{Data: nwb.NewData(v), Unit: "m/s", Rate: 30})
//	err = a.Close() // commits, atomically
//
// Containers take TimeSeries, ElectricalSeries, DynamicTables (plain,
// ragged, doubly ragged, region and reference columns), TimeIntervals and
// Units; AddUnits and AddTrials append rows to the file's tables when they
// exist; AddNamespace caches an extension's specification. Each addition
// is checked whole before anything is written (ErrSpec), so that a refused
// one leaves the amendment as it was.
//
// Every read goes through h5, so it fetches and decodes only the chunks it
// touches, concurrently, from any source h5 opens. A File and the tables and
// series it returns are safe for concurrent use.
//
// Errors name the object they concern once and wrap the sentinels below
// (ErrNotNWB, ErrNotTable, ErrNoColumn, ErrIndex, ErrNotTimeSeries, ErrRange)
// or those of package h5 (h5.ErrNotFound, h5.ErrType, …); test them with
// errors.Is. A message has one package prefix: "nwb: " when this package
// found the fault (a sentinel leads, as in "nwb: bad index: /units/…"), or
// h5's own error unchanged when a read failed there, since h5 already names
// the dataset.
// Malformed input, such as an index whose offsets run backwards or past its
// target, is an error, never a panic or a silently short row.
package nwb
