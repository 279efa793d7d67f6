package nwb

import (
	"context"
	"fmt"
	"math"

	"github.com/lindigo/lindi/h5"
)

// SeriesSpec describes a new TimeSeries: its data (time on axis 0) and its
// timing, either Timestamps (one per sample, ascending) or StartingTime and
// Rate.
type SeriesSpec struct {
	// Data holds the samples, time on axis 0; it keeps its Go dtype
	// (float32 stays float32).
	Data Data
	// Storage sets the data's chunks and codec (nil: lindi's defaults).
	Storage *h5.DatasetSpec
	// Unit is the unit of Data × Conversion + Offset ("" is "unknown").
	Unit string
	// Conversion, Offset and Resolution are the data's attributes;
	// Conversion 0 means 1, Resolution 0 means -1 (unknown).
	Conversion, Offset, Resolution float64
	// Continuity is "continuous", "instantaneous", "step" or "" (unset).
	Continuity string
	// Timestamps, in seconds, one per sample; or nil, and then Rate (Hz,
	// above 0) and StartingTime (seconds) time the samples.
	Timestamps   []float64
	StartingTime float64
	Rate         float64
	// Description and Comments default to pynwb's "no description" and
	// "no comments".
	Description, Comments string
	// Type and Namespace name a subtype of TimeSeries, such as an
	// extension's (AddTimeSeries only; default TimeSeries of core). An
	// extension's namespace must be cached first (AddNamespace).
	Type, Namespace string
	// Attrs are further attributes of the series' group (an extension
	// type's own, say).
	Attrs map[string]any
}

// check validates s before anything is written.
func (s *SeriesSpec) check(ctx context.Context, f *h5.File, what string) error {
	if err := s.Data.check(what + " data"); err != nil {
		return err
	}
	if len(s.Data.shape) == 0 {
		return fmt.Errorf("%w: %s: data is a scalar; time is on axis 0", ErrSpec, what)
	}
	if err := s.Data.checkRefs(ctx, f, what+" data"); err != nil {
		return err
	}
	n := s.Data.shape[0]
	switch {
	case s.Timestamps != nil && s.Rate != 0:
		return fmt.Errorf("%w: %s has both timestamps and a rate", ErrSpec, what)
	case s.Timestamps != nil:
		if len(s.Timestamps) != n {
			return fmt.Errorf("%w: %s has %d timestamps for %d samples", ErrSpec, what, len(s.Timestamps), n)
		}
		for i, t := range s.Timestamps {
			if math.IsNaN(t) || math.IsInf(t, 0) || i > 0 && t < s.Timestamps[i-1] {
				return fmt.Errorf("%w: %s: timestamp %d (%v) is not finite and ascending", ErrSpec, what, i, t)
			}
		}
	default:
		if !(s.Rate > 0) || math.IsInf(s.Rate, 0) {
			return fmt.Errorf("%w: %s needs timestamps or a positive rate (rate %v)", ErrSpec, what, s.Rate)
		}
		if math.IsNaN(s.StartingTime) || math.IsInf(s.StartingTime, 0) {
			return fmt.Errorf("%w: %s: starting time %v", ErrSpec, what, s.StartingTime)
		}
	}
	switch s.Continuity {
	case "", "continuous", "instantaneous", "step":
	default:
		return fmt.Errorf("%w: %s: continuity %q (continuous, instantaneous or step)", ErrSpec, what, s.Continuity)
	}
	return nil
}

// AddTimeSeries adds the TimeSeries name to c.
func (c *Container) AddTimeSeries(ctx context.Context, name string, s SeriesSpec) (*TimeSeries, error) {
	ns := or(s.Namespace, "core")
	if err := c.a.checkNamespace(ctx, ns, c.g.Path()+"/"+name); err != nil {
		return nil, err
	}
	return c.addSeries(ctx, name, ns, or(s.Type, "TimeSeries"), s, s.Attrs, nil)
}

// ElectricalSeriesSpec describes a new ElectricalSeries: a SeriesSpec whose
// data, in volts after conversion, has a channel per electrode on axis 1
// (or one channel, 1-D).
type ElectricalSeriesSpec struct {
	SeriesSpec
	// Electrodes are the rows, in the electrodes table, of the channels'
	// electrodes, one per channel.
	Electrodes []int
	// ElectrodesDescription describes the region (default "electrodes").
	ElectrodesDescription string
	// Table is the path of the electrodes table (default the file's,
	// /general/extracellular_ephys/electrodes).
	Table string
	// ChannelConversion, when set, is a factor per channel.
	ChannelConversion []float64
	// Filtering describes the filtering applied ("" leaves it unset).
	Filtering string
}

// AddElectricalSeries adds the ElectricalSeries name to c, its electrodes
// a DynamicTableRegion into the electrodes table. Its unit is "volts", as
// the schema fixes it (a Unit other than "" or "volts" is an error).
func (c *Container) AddElectricalSeries(ctx context.Context, name string, s ElectricalSeriesSpec) (*TimeSeries, error) {
	what := c.g.Path() + "/" + name
	if s.Unit != "" && s.Unit != "volts" {
		return nil, fmt.Errorf("%w: %s: an ElectricalSeries' unit is volts, not %q", ErrSpec, what, s.Unit)
	}
	s.Unit = "volts"
	table := s.Table
	if table == "" {
		table = "/general/extracellular_ephys/electrodes"
	}
	channels := 1
	if len(s.Data.shape) >= 2 {
		channels = s.Data.shape[1]
	}
	if len(s.Electrodes) != channels {
		return nil, fmt.Errorf("%w: %s: %d electrodes for %d channels", ErrSpec, what, len(s.Electrodes), channels)
	}
	if s.ChannelConversion != nil && len(s.ChannelConversion) != channels {
		return nil, fmt.Errorf("%w: %s: %d channel conversions for %d channels", ErrSpec, what, len(s.ChannelConversion), channels)
	}
	t, err := c.a.Table(ctx, table)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: electrodes table: %w", ErrSpec, what, unprefixed{err})
	}
	if err := checkRows(s.Electrodes, t, what+" electrodes"); err != nil {
		return nil, err
	}
	desc := s.ElectrodesDescription
	if desc == "" {
		desc = "electrodes"
	}
	extra := func(ctx context.Context, g *h5.Group) error {
		rows := make([]int64, len(s.Electrodes))
		for i, r := range s.Electrodes {
			rows[i] = int64(r)
		}
		d, err := h5.CreateDatasetFrom(ctx, g, "electrodes", rows, nil, nil)
		if err != nil {
			return err
		}
		if err := setTyped(ctx, d.SetAttr, "hdmf-common", "DynamicTableRegion", map[string]any{
			"description": desc, "table": h5.Reference{Path: t.Path()},
		}); err != nil {
			return err
		}
		if s.ChannelConversion != nil {
			d, err := h5.CreateDatasetFrom(ctx, g, "channel_conversion", float32s(s.ChannelConversion), nil, nil)
			if err != nil {
				return err
			}
			if err := d.SetAttr(ctx, "axis", 1); err != nil {
				return err
			}
		}
		return nil
	}
	var attrs map[string]any
	if s.Filtering != "" {
		attrs = map[string]any{"filtering": s.Filtering}
	}
	if s.Type != "" || s.Namespace != "" {
		return nil, fmt.Errorf("%w: %s: an ElectricalSeries has no Type or Namespace of its own", ErrSpec, what)
	}
	for k, v := range s.Attrs {
		if attrs == nil {
			attrs = map[string]any{}
		}
		attrs[k] = v
	}
	return c.addSeries(ctx, name, "core", "ElectricalSeries", s.SeriesSpec, attrs, extra)
}

// float32s rounds to float32, the dtype the schema gives factors.
func float32s(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

// checkRows checks region rows against their table.
func checkRows(rows []int, t *Table, what string) error {
	for i, r := range rows {
		if r < 0 || r >= t.Len() {
			return fmt.Errorf("%w: %s: element %d is row %d of %s, which has %d rows", ErrSpec, what, i, r, t.Path(), t.Len())
		}
	}
	return nil
}

// addSeries checks s, then writes a series of type typ (of namespace ns) with extra group
// attributes, and calls more for the type's own members.
func (c *Container) addSeries(ctx context.Context, name, ns, typ string, s SeriesSpec, attrs map[string]any, more func(context.Context, *h5.Group) error) (*TimeSeries, error) {
	what := c.g.Path() + "/" + name
	if err := checkFree(c.g, name); err != nil {
		return nil, err
	}
	if err := s.check(ctx, c.a.h, what); err != nil {
		return nil, err
	}
	if err := c.writeSeries(ctx, name, ns, typ, s, attrs, more); err != nil {
		return nil, undo(ctx, c.g, name, err)
	}
	return c.a.TimeSeries(ctx, what)
}

func (c *Container) writeSeries(ctx context.Context, name, ns, typ string, s SeriesSpec, attrs map[string]any, more func(context.Context, *h5.Group) error) error {
	ga := map[string]any{
		"description": or(s.Description, "no description"),
		"comments":    or(s.Comments, "no comments"),
	}
	for k, v := range attrs {
		ga[k] = v
	}
	g, err := newGroup(ctx, c.g, name, ns, typ, ga)
	if err != nil {
		return err
	}
	d, err := s.Data.create(ctx, g, "data", s.Storage)
	if err != nil {
		return err
	}
	conv, res := s.Conversion, s.Resolution
	if conv == 0 {
		conv = 1
	}
	if res == 0 {
		res = -1
	}
	da := map[string]any{"unit": or(s.Unit, "unknown"), "conversion": conv, "offset": s.Offset, "resolution": res}
	if s.Continuity != "" {
		da["continuity"] = s.Continuity
	}
	for _, k := range sortedKeys(da) {
		if err := d.SetAttr(ctx, k, da[k]); err != nil {
			return err
		}
	}
	if s.Timestamps != nil {
		t, err := h5.CreateDatasetFrom(ctx, g, "timestamps", s.Timestamps, nil, nil)
		if err != nil {
			return err
		}
		if err := t.SetAttr(ctx, "interval", 1); err != nil {
			return err
		}
		if err := t.SetAttr(ctx, "unit", "seconds"); err != nil {
			return err
		}
	} else {
		st, err := h5.CreateDatasetFrom(ctx, g, "starting_time", []float64{s.StartingTime}, []int{}, nil)
		if err != nil {
			return err
		}
		if err := st.SetAttr(ctx, "rate", s.Rate); err != nil {
			return err
		}
		if err := st.SetAttr(ctx, "unit", "seconds"); err != nil {
			return err
		}
	}
	if more != nil {
		return more(ctx, g)
	}
	return nil
}

// or is s, or def when s is empty.
func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
