package lindibeam

import (
	"bytes"
	"cmp"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/nwb"
	"github.com/lindigo/lindi/selection"
	"github.com/lindigo/lindi/zarrmeta"
)

func init() {
	beam.RegisterType(reflect.TypeFor[seriesGroup]())
	beam.RegisterType(reflect.TypeFor[seriesMeta]())
	beam.RegisterType(reflect.TypeFor[StatsRow]())
	register.DoFn5x0[context.Context, Asset, func(seriesGroup), func(string, seriesMeta), func(Failure)](&seriesPlanFn{})
	register.Emitter1[seriesGroup]()
	register.Emitter2[string, seriesMeta]()
	register.DoFn3x1[context.Context, seriesGroup, func(string, Partial), error](&seriesReduceFn{})
	register.Emitter2[string, Partial]()
	register.DoFn5x0[string, func(*seriesMeta) bool, func(*Partial) bool, func(StatsRow), func(Failure)](&seriesFinishFn{})
	register.Iter1[seriesMeta]()
	register.Iter1[Partial]()
	register.Emitter1[StatsRow]()
	register.DoFn3x1[context.Context, []byte, func(*StatsRow) bool, error](&writeStatsFn{})
	register.Iter1[StatsRow]()
}

// StatsJob says what Stats reduces in each asset: a TimeSeries over a time
// window.
type StatsJob struct {
	// Series is the path of a TimeSeries (an ElectricalSeries, …) in each
	// asset: "acquisition/ElectricalSeries".
	Series string
	// From and To bound the window: the samples whose times t (the
	// series' timestamps, or its starting time plus index over rate, in
	// seconds of the file's time base) satisfy From <= t < To. Use
	// math.Inf for an open end; both zero select every sample.
	From, To float64
	// GroupBytes is the stored size of the chunk groups a worker reads
	// and reduces at once (DefaultGroupBytes when 0).
	GroupBytes int64
	// InFlight bounds the HTTP requests in flight per worker process
	// (DefaultInFlight when 0).
	InFlight int
	// Concurrency is the byte-range requests in flight per host: a number,
	// "auto" to adapt, or "" for the worker's LINDI_CONCURRENCY (else auto).
	Concurrency string
}

// window is the job's time window.
func (j StatsJob) window() (float64, float64) {
	if j.From == 0 && j.To == 0 {
		return math.Inf(-1), math.Inf(1)
	}
	return j.From, j.To
}

// StatsRow is the statistics of one channel (a column: a position on axis 1
// of the series' data; a 1-D series has column 0) of an asset's series over
// the window, in the series' unit: each stored value times conversion
// (and, for an ElectricalSeries with channel_conversion, its channel's
// factor) plus offset, as pynwb's get_data_in_units. Mean, Std
// (population, ddof 0) and RMS are computed from exact sums of the stored
// values and rounded once (Std and RMS: the square root of the exactly
// rounded variance and mean square), so they do not depend on how the job
// was split; Min and Max are the extremes converted. Float data with a NaN
// has NaN statistics but Count, as numpy's.
type StatsRow struct {
	Asset                           string
	Column                          int
	Count                           int64
	Mean, Std, RMS, Min, Max        float64
	Unit                            string
	ElectrodeColumns, ElectrodeVals []string
}

// seriesGroup is a group of chunks of an asset's series.
type seriesGroup struct {
	Asset     Asset
	Index     int
	Selection string
}

// seriesMeta is what the finish needs of an asset's series: how to convert
// its values, its channels and their electrodes.
type seriesMeta struct {
	Unit              string
	Conversion        float64
	Offset            float64
	ChannelConversion []float64
	Columns           int
	// ElectrodeColumns names the electrode table's scalar columns;
	// Electrodes[c] holds channel c's values of them.
	ElectrodeColumns []string
	Electrodes       [][]string
}

// Stats reduces the window of job's series in each asset of assets (as
// Assets gives them) to per-channel statistics in the series' unit (see
// StatsRow), a row per asset and channel with the channel's electrode
// (the electrode table's scalar columns) when the series has electrodes.
// For each asset one worker plans the chunk groups of the window (at most
// job.GroupBytes stored bytes each, h5.Dataset.ChunkGroups); the groups of
// all assets are spread over the workers, each reads and reduces its group
// to exact partial sums, the partials of an asset are merged in a tree
// (Beam lifts the combine before the shuffle), and a row is made per
// channel. An asset that cannot be opened, has no such series, or whose
// chunks cannot be read after the retries goes to failed; the job goes on.
// WriteStats writes the rows.
func Stats(s beam.Scope, job StatsJob, assets beam.PCollection) (rows, failed beam.PCollection) {
	s = s.Scope("lindi.Stats")
	groups, metas, unplanned := beam.ParDo3(s, &seriesPlanFn{Job: job}, assets)
	partials := beam.ParDo(s, &seriesReduceFn{Job: job}, beam.Reshuffle(s, groups))
	merged := beam.CombinePerKey(s, &mergeFn{}, partials)
	rows, unread := beam.ParDo2(s, &seriesFinishFn{}, beam.CoGroupByKey(s, metas, merged))
	return rows, beam.Flatten(s, unplanned, unread)
}

// seriesPlanFn plans an asset's groups and reads its series' metadata.
type seriesPlanFn struct {
	Job StatsJob
}

func (f *seriesPlanFn) ProcessElement(ctx context.Context, a Asset, emit func(seriesGroup), meta func(string, seriesMeta), failed func(Failure)) {
	if err := f.plan(ctx, a, emit, meta); err != nil {
		failed(Failure{Source: a.Source, Error: err.Error()})
	}
}

func (f *seriesPlanFn) plan(ctx context.Context, a Asset, emit func(seriesGroup), meta func(string, seriesMeta)) error {
	opts, err := openOptions(f.Job.InFlight, f.Job.Concurrency)
	if err != nil {
		return err
	}
	file, err := nwb.Open(ctx, a.Source, opts...)
	if err != nil {
		return err
	}
	defer file.Close()
	ts, err := file.TimeSeries(ctx, f.Job.Series)
	if err != nil {
		return err
	}
	d := ts.Data()
	if err := numeric(d); err != nil {
		return err
	}
	m := seriesMeta{Unit: ts.Unit(), Conversion: ts.Conversion(), Offset: ts.Offset(), ChannelConversion: ts.ChannelConversion(), Columns: 1}
	if d.NDim() >= 2 {
		m.Columns = d.Shape()[1]
	}
	if m.ChannelConversion != nil && len(m.ChannelConversion) != m.Columns {
		return fmt.Errorf("lindibeam: %s: %d channel_conversion factors for %d channels", ts.Path(), len(m.ChannelConversion), m.Columns)
	}
	if err := electrodeCells(ctx, ts, &m); err != nil {
		return err
	}
	t0, t1 := f.Job.window()
	start, stop, err := ts.Window(ctx, t0, t1)
	if err != nil {
		return err
	}
	var groups []h5.ChunkGroup
	if stop > start {
		size := f.Job.GroupBytes
		if size <= 0 {
			size = DefaultGroupBytes
		}
		sel, err := selection.Parse(strconv.Itoa(start) + ":" + strconv.Itoa(stop))
		if err != nil {
			return err
		}
		if groups, err = d.ChunkGroups(ctx, sel, size); err != nil {
			return err
		}
	}
	meta(a.Name, m)
	for i, g := range groups {
		emit(seriesGroup{Asset: a, Index: i, Selection: g.Selection.String()})
	}
	return nil
}

// numeric refuses data Stats does not reduce.
func numeric(d *h5.Dataset) error {
	switch d.DType().Kind {
	case zarrmeta.KindInt, zarrmeta.KindUint, zarrmeta.KindFloat:
		if d.NDim() >= 1 {
			return nil
		}
	}
	return fmt.Errorf("lindibeam: %s: statistics of dtype %s, shape %v: want numbers along a time axis", d.Path(), d.DType(), d.Shape())
}

// electrodeCells reads the electrodes of ts's channels into m: the
// electrode table's scalar columns (strings, numbers, booleans), in the
// table's order. A series without electrodes has none.
func electrodeCells(ctx context.Context, ts *nwb.TimeSeries, m *seriesMeta) error {
	rows, table, err := ts.Electrodes(ctx)
	if errors.Is(err, h5.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(rows) != m.Columns {
		return fmt.Errorf("lindibeam: %s: %d electrodes for %d channels", ts.Path(), len(rows), m.Columns)
	}
	m.Electrodes = make([][]string, m.Columns)
	for _, name := range table.Columns() {
		col, err := table.Column(name)
		if err != nil {
			return err
		}
		if col.Depth() != 0 || col.Region() || col.Data().NDim() != 1 {
			continue
		}
		cells, err := col.Cells(ctx, 0, table.Len())
		if err != nil {
			return err
		}
		if slices.ContainsFunc(cells, func(v any) bool { return !scalarCell(v) }) {
			continue
		}
		m.ElectrodeColumns = append(m.ElectrodeColumns, name)
		for c, r := range rows {
			m.Electrodes[c] = append(m.Electrodes[c], formatCell(cells[r]))
		}
	}
	return nil
}

// scalarCell reports whether v is a cell the CSV holds: a string, number
// or boolean.
func scalarCell(v any) bool {
	switch v.(type) {
	case string, []byte, int64, uint64, float64, float32, bool:
		return true
	}
	return false
}

// formatCell writes an electrode table's cell as CSV holds it.
func formatCell(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	case float64:
		return formatFloat(x, 64)
	case float32:
		return formatFloat(float64(x), 32)
	}
	return fmt.Sprint(v)
}

// seriesReduceFn reads groups and reduces each to a Partial keyed by its
// asset's name. A group that cannot be read becomes a Partial holding the
// error, so that its asset fails and the others complete.
type seriesReduceFn struct {
	Job StatsJob

	mu   sync.Mutex
	src  string
	file *h5.File
	data *h5.Dataset
}

func (f *seriesReduceFn) dataset(ctx context.Context, a Asset) (*h5.Dataset, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.src == a.Source && f.data != nil {
		return f.data, nil
	}
	if f.file != nil {
		f.file.Close()
		f.file, f.data, f.src = nil, nil, ""
	}
	opts, err := scanOptions(f.Job.InFlight, f.Job.Concurrency)
	if err != nil {
		return nil, err
	}
	file, err := nwb.Open(ctx, a.Source, opts...)
	if err != nil {
		return nil, err
	}
	ts, err := file.TimeSeries(ctx, f.Job.Series)
	if err != nil {
		file.Close()
		return nil, err
	}
	f.file, f.data, f.src = file.H5(), ts.Data(), a.Source
	return f.data, nil
}

func (f *seriesReduceFn) Teardown() error {
	if f.file != nil {
		return f.file.Close()
	}
	return nil
}

func (f *seriesReduceFn) ProcessElement(ctx context.Context, g seriesGroup, emit func(string, Partial)) error {
	d, err := f.dataset(ctx, g.Asset)
	var p Partial
	if err == nil {
		p, err = ReduceGroup(ctx, d, g.Selection)
	}
	if err != nil {
		if ctx.Err() != nil {
			return err // the bundle is cancelled: Beam retries it
		}
		p = Partial{Err: fmt.Sprintf("group %d (%s): %v", g.Index, g.Selection, err)}
	}
	emit(g.Asset.Name, p)
	return nil
}

// seriesFinishFn turns an asset's merged partial into its rows.
type seriesFinishFn struct{}

func (f *seriesFinishFn) ProcessElement(name string, metas func(*seriesMeta) bool, parts func(*Partial) bool, emit func(StatsRow), failed func(Failure)) {
	var m seriesMeta
	if !metas(&m) {
		return // the asset failed its plan, and is in failed already
	}
	var p, q Partial
	for parts(&q) {
		var err error
		if p, err = Merge(p, q); err != nil {
			failed(Failure{Source: name, Error: err.Error()})
			return
		}
	}
	if p.Err != "" {
		failed(Failure{Source: name, Error: p.Err})
		return
	}
	for c := range m.Columns {
		a := new(big.Rat).SetFloat64(m.Conversion)
		if m.ChannelConversion != nil {
			a.Mul(a, new(big.Rat).SetFloat64(m.ChannelConversion[c]))
		}
		row := physicalRow(p.column(c), p.Float, a, m.Offset)
		row.Asset, row.Column, row.Unit = name, c, m.Unit
		if m.Electrodes != nil {
			row.ElectrodeColumns, row.ElectrodeVals = m.ElectrodeColumns, m.Electrodes[c]
		}
		emit(row)
	}
}

// column returns the statistics of column c (empty when p has none).
func (p Partial) column(c int) *Column {
	for i, k := range p.Cols {
		if k == c {
			return &p.Stats[i]
		}
	}
	e := newColumn(p.Float)
	return &e
}

// physicalRow finishes a column's statistics in physical units, a·x + b:
// mean, variance and mean square are exact rationals of the exact sums,
// rounded once.
func physicalRow(c *Column, float bool, a *big.Rat, offset float64) StatsRow {
	nan := math.NaN()
	r := StatsRow{Count: c.N, Mean: nan, Std: nan, RMS: nan, Min: nan, Max: nan}
	finite := c.N - c.NaN - c.PosInf - c.NegInf
	if c.N == 0 || c.NaN > 0 || c.PosInf > 0 && c.NegInf > 0 {
		return r
	}
	b := new(big.Rat).SetFloat64(offset)
	if b == nil || a == nil {
		return r // a conversion or offset that is not finite
	}
	af, _ := a.Float64()
	if c.PosInf > 0 || c.NegInf > 0 {
		inf := math.Inf(1)
		if c.NegInf > 0 {
			inf = math.Inf(-1)
		}
		r.Mean, r.RMS = af*inf, math.Inf(1)
		r.Min, r.Max = conv(af, offset, c.MinF), conv(af, offset, c.MaxF)
		if af < 0 {
			r.Min, r.Max = r.Max, r.Min
		}
		return r
	}
	var s1, s2 uint
	if float {
		s1, s2 = floatScale, squareScale
	}
	n := big.NewInt(finite)
	// mean of x: Sum / (n 2^s1); of x²: Sum2 / (n 2^s2)
	mx := new(big.Rat).SetFrac(c.Sum, new(big.Int).Lsh(n, s1))
	mx2 := new(big.Rat).SetFrac(c.Sum2, new(big.Int).Lsh(n, s2))
	mean := new(big.Rat).Add(new(big.Rat).Mul(a, mx), b)
	r.Mean, _ = mean.Float64()
	// var(a x + b) = a² (E[x²] − E[x]²); E[(a x + b)²] = var + mean²
	v := new(big.Rat).Sub(mx2, new(big.Rat).Mul(mx, mx))
	v.Mul(v, new(big.Rat).Mul(a, a))
	vf, _ := v.Float64()
	r.Std = math.Sqrt(vf)
	ms, _ := v.Add(v, new(big.Rat).Mul(mean, mean)).Float64()
	r.RMS = math.Sqrt(ms)
	lo, hi := new(big.Rat), new(big.Rat)
	if float {
		lo.SetFloat64(c.MinF)
		hi.SetFloat64(c.MaxF)
	} else {
		lo.SetInt(c.MinI)
		hi.SetInt(c.MaxI)
	}
	lo.Add(lo.Mul(lo, a), b)
	hi.Add(hi.Mul(hi, a), b)
	if a.Sign() < 0 {
		lo, hi = hi, lo
	}
	r.Min, _ = lo.Float64()
	r.Max, _ = hi.Float64()
	return r
}

func conv(a, b, x float64) float64 { return a*x + b }

// WriteStats writes Stats' rows to name (a local path, or a gs://, s3:// or
// memfs:// URL) as CSV, sorted by asset and column, with the header
// asset,column,count,mean,std,rms,min,max followed by the electrode
// columns (the union over the assets, in the order first met; a cell an
// asset's table lacks is empty). One worker writes the file, whole or not
// at all (WriteOutput).
func WriteStats(s beam.Scope, name string, rows beam.PCollection) {
	s = s.Scope("lindi.WriteStats")
	beam.ParDo0(s, &writeStatsFn{Name: name}, beam.Impulse(s), beam.SideInput{Input: rows})
}

// statsHeader is the start of WriteStats' header.
var statsHeader = []string{"asset", "column", "count", "mean", "std", "rms", "min", "max"}

func (r StatsRow) cells() []string {
	return []string{r.Asset, strconv.Itoa(r.Column), strconv.FormatInt(r.Count, 10), formatFloat(r.Mean, 64),
		formatFloat(r.Std, 64), formatFloat(r.RMS, 64), formatFloat(r.Min, 64), formatFloat(r.Max, 64)}
}

// electrodeHeader is the union of the rows' electrode columns, in the order
// first met.
func electrodeHeader(rows []StatsRow) []string {
	var names []string
	seen := map[string]bool{}
	for _, r := range rows {
		for _, n := range r.ElectrodeColumns {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	return names
}

// writeStatsFn writes all rows, its side input, on one worker.
type writeStatsFn struct {
	Name string
}

func (f *writeStatsFn) ProcessElement(ctx context.Context, _ []byte, rows func(*StatsRow) bool) error {
	var all []StatsRow
	var r StatsRow
	for rows(&r) {
		all = append(all, r)
	}
	slices.SortFunc(all, func(a, b StatsRow) int {
		return cmp.Or(strings.Compare(a.Asset, b.Asset), cmp.Compare(a.Column, b.Column))
	})
	elec := electrodeHeader(all)
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write(append(slices.Clip(statsHeader), elec...))
	for _, r := range all {
		line := r.cells()
		for _, name := range elec {
			line = append(line, r.Electrode(name))
		}
		w.Write(line)
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return WriteOutput(ctx, f.Name, buf.Bytes())
}

// Electrode returns the row's value of the electrode table's column name
// ("location", "group_name", …), "" when its table has no such column.
func (r StatsRow) Electrode(name string) string {
	if i := slices.Index(r.ElectrodeColumns, name); i >= 0 && i < len(r.ElectrodeVals) {
		return r.ElectrodeVals[i]
	}
	return ""
}
