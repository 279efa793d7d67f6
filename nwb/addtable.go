package nwb

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/selection"
	"github.com/lindigo/lindi/zarrmeta"
)

// ColumnSpec describes a column of a new table (VectorData): its elements,
// and for a ragged column the VectorIndex levels that group them into rows.
// NewColumn, NewRaggedColumn, NewRagged2Column, NewRegionColumn and
// NewRaggedRegionColumn make the usual ones.
type ColumnSpec struct {
	// Name is the column's name; its indexes are Name_index,
	// Name_index_index.
	Name string
	// Description is required by the schema.
	Description string
	// Data holds the elements, along axis 0.
	Data Data
	// Index holds, per level, the end offsets of each element of the
	// level above: Index[0] into Data's rows, Index[1] into Index[0]. A
	// column's rows are those of its last level (or of Data).
	Index [][]int
	// Table, when set, makes the column a DynamicTableRegion: Data's
	// integers are rows of the table at this path.
	Table string
	// Attrs are further attributes of the column's data (unit,
	// resolution, sampling_rate, …).
	Attrs map[string]any
	// seriesRefs marks the timeseries column of an intervals table
	// (core's TimeSeriesReferenceVectorData rather than VectorData).
	seriesRefs bool
}

// NewColumn is a plain column, one value per row.
func NewColumn[T h5.Value](name, description string, values []T) ColumnSpec {
	return ColumnSpec{Name: name, Description: description, Data: NewData(values)}
}

// NewRaggedColumn is a ragged column: a slice of values per row.
func NewRaggedColumn[T h5.Value](name, description string, rows [][]T) ColumnSpec {
	flat, ends := flatten(rows)
	return ColumnSpec{Name: name, Description: description, Data: NewData(flat), Index: [][]int{ends}}
}

// NewRagged2Column is a doubly ragged column: per row, a list of lists of
// values (each spike's waveforms of a unit, say).
func NewRagged2Column[T h5.Value](name, description string, rows [][][]T) ColumnSpec {
	var inner [][]T
	outer := make([]int, len(rows))
	for i, r := range rows {
		inner = append(inner, r...)
		outer[i] = len(inner)
	}
	flat, ends := flatten(inner)
	return ColumnSpec{Name: name, Description: description, Data: NewData(flat), Index: [][]int{ends, outer}}
}

// NewRegionColumn is a DynamicTableRegion column: per row, a row of the
// table at path table.
func NewRegionColumn(name, description, table string, rows []int) ColumnSpec {
	return ColumnSpec{Name: name, Description: description, Data: NewData(toInt64(rows)), Table: table}
}

// NewRaggedRegionColumn is a ragged DynamicTableRegion column: per row, rows
// of the table at path table (a unit's electrodes, say).
func NewRaggedRegionColumn(name, description, table string, rows [][]int) ColumnSpec {
	flat, ends := flatten(rows)
	return ColumnSpec{Name: name, Description: description, Data: NewData(toInt64(flat)), Index: [][]int{ends}, Table: table}
}

func toInt64(v []int) []int64 {
	out := make([]int64, len(v))
	for i, x := range v {
		out[i] = int64(x)
	}
	return out
}

// flatten concatenates rows and gives each row's end offset.
func flatten[T any](rows [][]T) ([]T, []int) {
	flat := []T{}
	ends := make([]int, len(rows))
	for i, r := range rows {
		flat = append(flat, r...)
		ends[i] = len(flat)
	}
	return flat, ends
}

// rows is the number of rows of the column.
func (c *ColumnSpec) rows() int {
	if n := len(c.Index); n > 0 {
		return len(c.Index[n-1])
	}
	return c.Data.Len()
}

// datasets are the names of the column's datasets, data first.
func (c *ColumnSpec) datasets() []string {
	names := []string{c.Name}
	for range c.Index {
		names = append(names, names[len(names)-1]+"_index")
	}
	return names
}

// TableSpec describes a new DynamicTable, or rows to append to one.
type TableSpec struct {
	// Description is required for a new table.
	Description string
	// IDs are the rows' ids; nil numbers them from 0 (from the table's
	// length when appending).
	IDs []int64
	// Columns, in colnames order.
	Columns []ColumnSpec
}

// reservedColumns are names hdmf gives DynamicTable fields, which a column
// of that name would hide in pynwb.
var reservedColumns = map[string]bool{"id": true, "name": true, "description": true, "colnames": true, "columns": true}

// checkColumns validates the columns of a table of n rows (n < 0: take
// it from the columns) in file f, and returns n.
func checkColumns(ctx context.Context, f *File, what string, cols []ColumnSpec, ids []int64, n int) (int, error) {
	if ids != nil {
		if n >= 0 && len(ids) != n {
			return 0, fmt.Errorf("%w: %s: %d ids for %d rows", ErrSpec, what, len(ids), n)
		}
		n = len(ids)
	}
	byIDs := ids != nil
	names := map[string]bool{"id": true}
	for i := range cols {
		c := &cols[i]
		cw := what + " column " + c.Name
		if err := checkNewName(c.Name); err != nil {
			return 0, fmt.Errorf("%s: %w", what, err)
		}
		if reservedColumns[c.Name] {
			return 0, fmt.Errorf("%w: %s: a column cannot be called %q, the name of a DynamicTable field in hdmf", ErrSpec, what, c.Name)
		}
		for _, d := range c.datasets() {
			if names[d] {
				return 0, fmt.Errorf("%w: %s: two datasets named %q", ErrSpec, what, d)
			}
			names[d] = true
		}
		if c.Description == "" {
			return 0, fmt.Errorf("%w: %s needs a description", ErrSpec, cw)
		}
		if err := c.Data.check(cw); err != nil {
			return 0, err
		}
		if len(c.Data.shape) == 0 {
			return 0, fmt.Errorf("%w: %s is a scalar", ErrSpec, cw)
		}
		if err := c.Data.checkRefs(ctx, f.h, cw); err != nil {
			return 0, err
		}
		below := c.Data.Len()
		for k, idx := range c.Index {
			prev := 0
			for i, e := range idx {
				switch {
				case e < prev:
					return 0, fmt.Errorf("%w: %s: index level %d: offset %d is %d, before the previous %d", ErrSpec, cw, k, i, e, prev)
				case e > below:
					return 0, fmt.Errorf("%w: %s: index level %d: offset %d is %d, past the %d elements it indexes", ErrSpec, cw, k, i, e, below)
				}
				prev = e
			}
			if prev != below {
				return 0, fmt.Errorf("%w: %s: index level %d ends at %d, not at the %d elements it indexes", ErrSpec, cw, k, prev, below)
			}
			below = len(idx)
		}
		if n < 0 {
			n = c.rows()
		}
		if c.rows() != n && byIDs {
			return 0, fmt.Errorf("%w: %s has %d rows for %d ids", ErrSpec, cw, c.rows(), n)
		}
		if c.rows() != n {
			return 0, fmt.Errorf("%w: %s has %d rows, not %d", ErrSpec, cw, c.rows(), n)
		}
		if c.Table != "" {
			if err := checkRegion(ctx, f, c, cw); err != nil {
				return 0, err
			}
		}
	}
	if n < 0 {
		n = 0
	}
	return n, nil
}

// checkRegion checks a region column's rows against its table.
func checkRegion(ctx context.Context, f *File, c *ColumnSpec, what string) error {
	if c.Data.ints == nil {
		return fmt.Errorf("%w: %s: a region's data must be integers (%s)", ErrSpec, what, c.Data.dtype)
	}
	t, err := f.Table(ctx, c.Table)
	if err != nil {
		return fmt.Errorf("%w: %s: region table: %w", ErrSpec, what, unprefixed{err})
	}
	for i, r := range c.Data.ints {
		if r < 0 || r >= int64(t.Len()) {
			return fmt.Errorf("%w: %s: element %d is row %d of %s, which has %d rows", ErrSpec, what, i, r, t.Path(), t.Len())
		}
	}
	return nil
}

// AddTable adds the DynamicTable name to c.
func (c *Container) AddTable(ctx context.Context, name string, s TableSpec) (*Table, error) {
	return c.addTable(ctx, name, "hdmf-common", "DynamicTable", s)
}

func (c *Container) addTable(ctx context.Context, name, ns, typ string, s TableSpec) (*Table, error) {
	what := c.g.Path() + "/" + name
	if err := checkFree(c.g, name); err != nil {
		return nil, err
	}
	if s.Description == "" {
		return nil, fmt.Errorf("%w: %s needs a description", ErrSpec, what)
	}
	n, err := checkColumns(ctx, c.a.File, what, s.Columns, s.IDs, -1)
	if err != nil {
		return nil, err
	}
	if err := c.writeTable(ctx, name, ns, typ, s, n); err != nil {
		return nil, undo(ctx, c.g, name, err)
	}
	return c.a.Table(ctx, what)
}

func (c *Container) writeTable(ctx context.Context, name, ns, typ string, s TableSpec, n int) error {
	colnames := make([]string, len(s.Columns))
	for i, col := range s.Columns {
		colnames[i] = col.Name
	}
	g, err := newGroup(ctx, c.g, name, ns, typ, map[string]any{"colnames": colnames, "description": s.Description})
	if err != nil {
		return err
	}
	ids := s.IDs
	if ids == nil {
		ids = make([]int64, n)
		for i := range ids {
			ids[i] = int64(i)
		}
	}
	d, err := h5.CreateDatasetFrom(ctx, g, "id", ids, nil, nil)
	if err != nil {
		return err
	}
	if err := setTyped(ctx, d.SetAttr, "hdmf-common", "ElementIdentifiers", nil); err != nil {
		return err
	}
	for i := range s.Columns {
		if err := writeColumn(ctx, g, &s.Columns[i]); err != nil {
			return err
		}
	}
	return nil
}

// writeColumn writes a column's data, then its indexes (each referring to
// the level below, which has its object_id by then).
func writeColumn(ctx context.Context, g *h5.Group, c *ColumnSpec) error {
	d, err := c.Data.create(ctx, g, c.Name, nil)
	if err != nil {
		return err
	}
	attrs := map[string]any{"description": c.Description}
	for k, v := range c.Attrs {
		attrs[k] = v
	}
	ns, typ := "hdmf-common", "VectorData"
	switch {
	case c.Table != "":
		typ = "DynamicTableRegion"
		attrs["table"] = h5.Reference{Path: absPath(c.Table)}
	case c.seriesRefs:
		ns, typ = "core", "TimeSeriesReferenceVectorData"
	}
	if err := setTyped(ctx, d.SetAttr, ns, typ, attrs); err != nil {
		return err
	}
	names := c.datasets()
	for k, idx := range c.Index {
		ends := make([]uint64, len(idx))
		for i, e := range idx {
			ends[i] = uint64(e)
		}
		top := 0
		if len(idx) > 0 {
			top = idx[len(idx)-1]
		}
		d, err := g.CreateDataset(ctx, names[k+1], h5.DatasetSpec{Shape: []int{len(idx)}, DType: indexDType(uint64(top), 1)})
		if err != nil {
			return err
		}
		if err := h5.Write(ctx, d, nil, ends); err != nil {
			return err
		}
		kind := "VectorData"
		if k > 0 {
			kind = "VectorIndex"
		}
		if err := setTyped(ctx, d.SetAttr, "hdmf-common", "VectorIndex", map[string]any{
			"description": fmt.Sprintf("Index for %s '%s'", kind, names[k]),
			"target":      h5.Reference{Path: joinPath(g.Path(), names[k])},
		}); err != nil {
			return err
		}
	}
	return nil
}

// indexDType is the narrowest unsigned dtype, of at least minSize bytes,
// that holds max: hdmf's choice for VectorIndex data.
func indexDType(max uint64, minSize int) zarrmeta.DType {
	size := 8
	switch {
	case max <= math.MaxUint8 && minSize <= 1:
		size = 1
	case max <= math.MaxUint16 && minSize <= 2:
		size = 2
	case max <= math.MaxUint32 && minSize <= 4:
		size = 4
	}
	order := zarrmeta.LittleEndian
	if size == 1 {
		order = zarrmeta.NoOrder
	}
	return zarrmeta.DType{Kind: zarrmeta.KindUint, Size: size, Order: order}
}

func absPath(p string) string {
	if !strings.HasPrefix(p, "/") {
		return "/" + p
	}
	return p
}

func joinPath(dir, name string) string {
	return strings.TrimSuffix(dir, "/") + "/" + name
}

// IntervalsSpec describes a new TimeIntervals table (trials, epochs, …), or
// intervals to append to one: a start and stop time per row, optional tags
// and further columns.
type IntervalsSpec struct {
	// Description is required for a new table.
	Description string
	// IDs default as TableSpec's.
	IDs []int64
	// Start and Stop are each interval's times, in seconds.
	Start, Stop []float64
	// Tags, when set, are a list of tags per interval.
	Tags [][]string
	// TimeSeries, when set, are per interval the parts of time series it
	// covers (the ragged timeseries column: TimeSeriesReferenceVectorData).
	TimeSeries [][]SeriesRef
	// Columns are further columns.
	Columns []ColumnSpec
}

func (s IntervalsSpec) table() TableSpec {
	cols := []ColumnSpec{
		NewColumn("start_time", "Start time of epoch, in seconds", s.Start),
		NewColumn("stop_time", "Stop time of epoch, in seconds", s.Stop),
	}
	if s.Tags != nil {
		cols = append(cols, NewRaggedColumn("tags", "user-defined tags", s.Tags))
	}
	if s.TimeSeries != nil {
		data, ends := seriesRows(s.TimeSeries)
		cols = append(cols, ColumnSpec{Name: "timeseries", Description: "an index into a TimeSeries object",
			Data: data, Index: [][]int{ends}, seriesRefs: true})
	}
	return TableSpec{Description: s.Description, IDs: s.IDs, Columns: append(cols, s.Columns...)}
}

func (s IntervalsSpec) check(what string) error {
	if len(s.Start) != len(s.Stop) {
		return fmt.Errorf("%w: %s: %d start times for %d stop times", ErrSpec, what, len(s.Start), len(s.Stop))
	}
	for i := range s.Start {
		if math.IsNaN(s.Start[i]) || math.IsNaN(s.Stop[i]) || s.Stop[i] < s.Start[i] {
			return fmt.Errorf("%w: %s: interval %d runs from %v to %v", ErrSpec, what, i, s.Start[i], s.Stop[i])
		}
	}
	return nil
}

// AddIntervals adds the TimeIntervals table name to c.
func (c *Container) AddIntervals(ctx context.Context, name string, s IntervalsSpec) (*Intervals, error) {
	if err := s.check(c.g.Path() + "/" + name); err != nil {
		return nil, err
	}
	t, err := c.addTable(ctx, name, "core", "TimeIntervals", s.table())
	if err != nil {
		return nil, err
	}
	return NewIntervals(t)
}

// AddTrials adds intervals to the file's trials table: appended as rows
// when /intervals/trials exists (s must then give each of its columns, as
// Start, Stop, Tags and Columns), else a new table (Description
// defaulting to pynwb's "experimental trials").
func (a *Amendment) AddTrials(ctx context.Context, s IntervalsSpec) (*Intervals, error) {
	if err := s.check("/intervals/trials"); err != nil {
		return nil, err
	}
	if _, err := a.h.Get(ctx, "intervals/trials"); err == nil {
		t, err := a.AppendRows(ctx, "intervals/trials", s.table())
		if err != nil {
			return nil, err
		}
		return NewIntervals(t)
	}
	if s.Description == "" {
		s.Description = "experimental trials"
	}
	spec := s.table()
	if _, err := checkColumns(ctx, a.File, "/intervals/trials", spec.Columns, spec.IDs, -1); err != nil {
		return nil, err // before /intervals is made
	}
	g, err := a.h.Root().RequireGroup(ctx, "intervals")
	if err != nil {
		return nil, err
	}
	return (&Container{a: a, g: g}).AddIntervals(ctx, "trials", s)
}

// UnitsSpec describes a new Units table, or units to append to one.
type UnitsSpec struct {
	// Description of a new table (default "units").
	Description string
	// IDs default as TableSpec's.
	IDs []int64
	// SpikeTimes are each unit's spike times, in seconds.
	SpikeTimes [][]float64
	// Electrodes, when set, are each unit's rows of the electrodes table
	// (/general/extracellular_ephys/electrodes).
	Electrodes [][]int
	// WaveformMean, when set, is each unit's mean waveform: shape [units,
	// samples] or [units, samples, electrodes], in volts, sampled at
	// WaveformRate Hz.
	WaveformMean Data
	WaveformRate float64
	// Waveforms, when set, are each unit's spikes' waveforms: per unit,
	// per spike, per electrode, the samples (as many for every waveform),
	// in volts, sampled at WaveformRate Hz; stored as NWB's doubly ragged
	// waveforms column.
	Waveforms [][][][]float32
	// Columns are further columns.
	Columns []ColumnSpec
}

// waveforms is the doubly ragged waveforms column of s.
func (s UnitsSpec) waveforms() (ColumnSpec, error) {
	var flat []float32
	var perSpike, perUnit []int
	samples, n := -1, 0
	for u, spikes := range s.Waveforms {
		for k, electrodes := range spikes {
			for e, w := range electrodes {
				if samples < 0 {
					samples = len(w)
				}
				if len(w) != samples {
					return ColumnSpec{}, fmt.Errorf("%w: units: the waveform of unit %d, spike %d, electrode %d has %d samples, not %d", ErrSpec, u, k, e, len(w), samples)
				}
				flat = append(flat, w...)
				n++
			}
			perSpike = append(perSpike, n)
		}
		perUnit = append(perUnit, len(perSpike))
	}
	attrs := map[string]any{"unit": "volts"}
	if s.WaveformRate != 0 {
		attrs["sampling_rate"] = s.WaveformRate
	}
	return ColumnSpec{Name: "waveforms", Description: "the waveforms of each spike on each electrode",
		Data: NewData(flat, n, max(samples, 0)), Index: [][]int{perSpike, perUnit}, Attrs: attrs}, nil
}

func (s UnitsSpec) table() (TableSpec, error) {
	var cols []ColumnSpec
	if s.SpikeTimes != nil {
		cols = append(cols, NewRaggedColumn("spike_times", "the spike times for each unit", s.SpikeTimes))
	}
	if s.Electrodes != nil {
		cols = append(cols, NewRaggedRegionColumn("electrodes", "the electrodes that each spike unit came from",
			"/general/extracellular_ephys/electrodes", s.Electrodes))
	}
	if s.WaveformMean.write != nil {
		attrs := map[string]any{"unit": "volts"}
		if s.WaveformRate != 0 {
			attrs["sampling_rate"] = s.WaveformRate
		}
		cols = append(cols, ColumnSpec{Name: "waveform_mean", Description: "the spike waveform mean for each spike unit", Data: s.WaveformMean, Attrs: attrs})
	}
	if s.Waveforms != nil {
		c, err := s.waveforms()
		if err != nil {
			return TableSpec{}, err
		}
		cols = append(cols, c)
	}
	return TableSpec{Description: s.Description, IDs: s.IDs, Columns: append(cols, s.Columns...)}, nil
}

// AddUnits adds the Units table name to c.
func (c *Container) AddUnits(ctx context.Context, name string, s UnitsSpec) (*Units, error) {
	if s.Description == "" {
		s.Description = "units"
	}
	spec, err := s.table()
	if err != nil {
		return nil, err
	}
	t, err := c.addTable(ctx, name, "core", "Units", spec)
	if err != nil {
		return nil, err
	}
	return NewUnits(t), nil
}

// AddUnits adds units to the file's units table: appended as rows when
// /units exists (s must then give each of its columns), else a new table.
func (a *Amendment) AddUnits(ctx context.Context, s UnitsSpec) (*Units, error) {
	if _, err := a.h.Get(ctx, "units"); err == nil {
		spec, err := s.table()
		if err != nil {
			return nil, err
		}
		t, err := a.AppendRows(ctx, "units", spec)
		if err != nil {
			return nil, err
		}
		return NewUnits(t), nil
	}
	return (&Container{a: a, g: a.h.Root()}).AddUnits(ctx, "units", s)
}

// AppendRows appends rows to the DynamicTable at path: s gives every column
// the table has (by name, with as many index levels), each with the same
// number of rows; new ids continue from the table's length unless s.IDs
// gives them. Region rows are checked against the column's own table. The
// table's datasets grow in place (h5.Dataset.Resize: their chunks stay
// where they are, by reference, and only the new rows are written); one
// that cannot (an index whose dtype must widen, a dataset linked to its
// HDF5 file) is written again, longer, in this file, its object id and
// attributes kept. The source is untouched. Everything is
// checked, and the table read, before the first write; should a write
// still fail (an I/O error), the table may be left part-grown: Discard the
// amendment then, which keeps its last committed state.
func (a *Amendment) AppendRows(ctx context.Context, path string, s TableSpec) (*Table, error) {
	t, err := a.Table(ctx, path)
	if err != nil {
		return nil, err
	}
	what := t.Path()
	have := t.Columns()
	var given []string
	for i := range s.Columns {
		c := &s.Columns[i]
		given = append(given, c.Name)
		old, err := t.Column(c.Name)
		if err != nil {
			return nil, fmt.Errorf("%w: %s has no column %q (it has %s)", ErrSpec, what, c.Name, strings.Join(have, ", "))
		}
		if old.Depth() != len(c.Index) {
			return nil, fmt.Errorf("%w: %s column %s has %d index levels, not %d", ErrSpec, what, c.Name, old.Depth(), len(c.Index))
		}
		if old.Region() {
			r, err := old.data.Attrs().Ref("table")
			if err != nil {
				return nil, fmt.Errorf("%w: %s: %w", ErrSpec, old.data.Path(), unprefixed{err})
			}
			c.Table = r.Path
		} else if c.Table != "" {
			return nil, fmt.Errorf("%w: %s column %s is not a region", ErrSpec, what, c.Name)
		}
		if err := c.Data.check(what + " column " + c.Name); err != nil {
			return nil, err
		}
		if len(c.Data.shape) == 0 {
			return nil, fmt.Errorf("%w: %s column %s: the new data is a scalar", ErrSpec, what, c.Name)
		}
		if got, want := c.Data.shape[1:], old.data.Shape()[1:]; !slices.Equal(got, want) {
			return nil, fmt.Errorf("%w: %s column %s has elements of shape %v, not %v", ErrSpec, what, c.Name, got, want)
		}
	}
	for _, h := range have {
		if !slices.Contains(given, h) {
			return nil, fmt.Errorf("%w: rows for %s lack its column %q", ErrSpec, what, h)
		}
	}
	if _, err := checkColumns(ctx, a.File, what, s.Columns, s.IDs, -1); err != nil {
		return nil, err
	}
	var plans []grow
	n := -1
	for i := range s.Columns {
		c := &s.Columns[i]
		old, _ := t.Column(c.Name)
		n = c.rows()
		levels := append([]*h5.Dataset{old.data}, old.index...)
		for k, d := range levels {
			g := grow{d: d}
			if k == 0 {
				g.add = c.Data
			} else {
				shift := levels[k-1].Shape()[0]
				ends := make([]uint64, len(c.Index[k-1]))
				for j, e := range c.Index[k-1] {
					ends[j] = uint64(e + shift)
				}
				g.add = NewData(ends)
				top := uint64(shift)
				if len(ends) > 0 {
					top = ends[len(ends)-1]
				}
				g.dtype = indexDType(top, d.DType().Size)
			}
			plans = append(plans, g)
		}
	}
	if n < 0 {
		n = 0
	}
	ids := s.IDs
	if ids == nil {
		ids = make([]int64, n)
		for i := range ids {
			ids[i] = int64(t.Len() + i)
		}
	}
	plans = append(plans, grow{d: t.ids, add: NewData(ids)})
	// Read everything first, so that a read error leaves the table whole.
	for i := range plans {
		if err := plans[i].read(ctx); err != nil {
			return nil, err
		}
	}
	for _, p := range plans {
		if err := p.write(ctx, t.g); err != nil {
			return nil, fmt.Errorf("nwb: append rows to %s: %w", what, unprefixed{err})
		}
	}
	return a.Table(ctx, path)
}

// grow is a dataset to write again with more elements along axis 0.
type grow struct {
	d     *h5.Dataset
	add   Data
	dtype zarrmeta.DType // the new dtype when it widens, else zero
	old   *h5.Array
	attrs map[string]any
	spec  h5.DatasetSpec
}

func (g *grow) read(ctx context.Context) error {
	var err error
	if g.old, err = g.d.Read(ctx, nil); err != nil {
		return err
	}
	g.attrs = map[string]any{}
	for _, k := range g.d.Attrs().Names() {
		v, err := g.d.Attrs().Get(k)
		if err != nil {
			return fmt.Errorf("nwb: %s: %w", g.d.Path(), unprefixed{err})
		}
		g.attrs[k] = v
	}
	dt := g.d.DType()
	if g.dtype.Kind != zarrmeta.KindInvalid {
		dt = g.dtype
	}
	shape := g.d.Shape()
	shape[0] += g.add.Len()
	g.spec = h5.DatasetSpec{Shape: shape, DType: dt}
	return nil
}

// write replaces the dataset by a longer one holding the old elements,
// then the new, with the old attributes (object_id first, so that
// references to the dataset written later find it).
func (g *grow) write(ctx context.Context, parent *h5.Group) error {
	n := g.old.Shape[0]
	if g.dtype.Kind == zarrmeta.KindInvalid && g.d.Resize(ctx, g.spec.Shape) == nil {
		// Grown in place: the old chunks stay where they are, by reference.
		if m := g.add.Len(); m > 0 {
			return g.add.write(ctx, g.d, selection.Selection{selection.Slice(n, n+m, 1)})
		}
		return nil
	}
	name := g.d.Name()
	if err := parent.Delete(ctx, name); err != nil {
		return err
	}
	nd, err := parent.CreateDataset(ctx, name, g.spec)
	if err != nil {
		return err
	}
	if n > 0 {
		if err := writeOld(ctx, nd, g.old, g.dtype.Kind != zarrmeta.KindInvalid); err != nil {
			return err
		}
	}
	if m := g.add.Len(); m > 0 {
		if err := g.add.write(ctx, nd, selection.Selection{selection.Slice(n, n+m, 1)}); err != nil {
			return err
		}
	}
	keys := sortedKeys(g.attrs)
	if i := slices.Index(keys, "object_id"); i > 0 {
		keys = append(append([]string{"object_id"}, keys[:i]...), keys[i+1:]...)
	}
	for _, k := range keys {
		if err := nd.SetAttr(ctx, k, g.attrs[k]); err != nil {
			return err
		}
	}
	return nil
}

// writeOld writes the elements read before into the first rows of d.
func writeOld(ctx context.Context, d *h5.Dataset, old *h5.Array, widen bool) error {
	sel := selection.Selection{selection.Slice(0, old.Shape[0], 1)}
	if widen {
		v, err := h5.As[uint64](old)
		if err != nil {
			return err
		}
		return h5.Write(ctx, d, sel, v.Data)
	}
	if old.DType.Kind == zarrmeta.KindStruct {
		rows := make([][]any, len(old.Objects))
		for i, r := range old.Objects {
			if rows[i], _ = r.([]any); rows[i] == nil {
				return fmt.Errorf("%s: row %d is not a row of fields", d.Path(), i)
			}
		}
		return h5.WriteRows(ctx, d, sel, rows)
	}
	if old.DType.Kind == zarrmeta.KindObject || old.DType.Kind == zarrmeta.KindReference {
		if refs, err := h5.As[h5.Reference](old); err == nil {
			return h5.Write(ctx, d, sel, refs.Data)
		}
	}
	err := d.WriteArray(ctx, sel, old)
	if errors.Is(err, h5.ErrType) {
		return fmt.Errorf("%s: %w", d.Path(), err)
	}
	return err
}

// AddColumn adds the column c to the existing DynamicTable at path (units,
// electrodes, trials, a table of a processing module, …): plain, ragged
// with its indexes, a region of another table, references. The column must
// have one row per row of the table and a name no member of the table has;
// it is written with hdmf's attributes and a new object_id, and its name is
// appended to the table's colnames. Nothing is written when it fails.
func (a *Amendment) AddColumn(ctx context.Context, path string, c ColumnSpec) (*Table, error) {
	t, err := a.Table(ctx, path)
	if err != nil {
		return nil, err
	}
	what := t.Path()
	for _, d := range c.datasets() {
		if err := checkFree(t.g, d); err != nil {
			return nil, err
		}
	}
	if reservedColumns[c.Name] {
		return nil, fmt.Errorf("%w: %s: a column cannot be called %q, the name of a DynamicTable field in hdmf", ErrSpec, what, c.Name)
	}
	if _, err := checkColumns(ctx, a.File, what, []ColumnSpec{c}, nil, t.Len()); err != nil {
		return nil, err
	}
	colnames, err := columnNames(ctx, t.g)
	if err != nil {
		return nil, err
	}
	if err := writeColumn(ctx, t.g, &c); err != nil {
		for _, d := range c.datasets() {
			err = undo(ctx, t.g, d, err)
		}
		return nil, err
	}
	if err := t.g.SetAttr(ctx, "colnames", append(slices.Clone(colnames), c.Name)); err != nil {
		for _, d := range c.datasets() {
			err = undo(ctx, t.g, d, err)
		}
		return nil, err
	}
	return a.Table(ctx, what)
}
