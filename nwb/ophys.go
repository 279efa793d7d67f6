package nwb

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/lindigo/lindi/h5"
)

// ImagingPlane is an NWB ImagingPlane: where and how a microscope imaged.
type ImagingPlane struct {
	Path        string
	Description string
	Indicator   string // the calcium indicator, as GCaMP6f
	Location    string // the brain region
	// ExcitationLambda is the excitation wavelength in nm; ImagingRate the
	// frame rate in Hz. NaN when the file leaves them out.
	ExcitationLambda float64
	ImagingRate      float64
	Device           string // the path of the device that imaged it ("" when none)
	OpticalChannels  []OpticalChannel
}

// OpticalChannel is one channel of an imaging plane.
type OpticalChannel struct {
	Name           string
	Description    string
	EmissionLambda float64 // the emission wavelength in nm
}

// ImagingPlane reads the ImagingPlane group at path.
func (f *File) ImagingPlane(ctx context.Context, path string) (*ImagingPlane, error) {
	g, err := f.group(ctx, path, "imaging plane")
	if err != nil {
		return nil, err
	}
	if t := typeOf(g); t != "ImagingPlane" {
		return nil, fmt.Errorf("nwb: %s is a %q, not an ImagingPlane: %w", g.Path(), t, unprefixed{h5.ErrType})
	}
	p := &ImagingPlane{Path: g.Path(), Device: linkTarget(g, "device")}
	for _, s := range []struct {
		name string
		to   *string
	}{{"description", &p.Description}, {"indicator", &p.Indicator}, {"location", &p.Location}} {
		if *s.to, err = text(ctx, g, s.name); err != nil {
			return nil, err
		}
	}
	if p.ExcitationLambda, err = number(ctx, g, "excitation_lambda"); err != nil {
		return nil, err
	}
	if p.ImagingRate, err = number(ctx, g, "imaging_rate"); err != nil {
		return nil, err
	}
	channels, err := typedMembers(ctx, g, "OpticalChannel")
	if err != nil {
		return nil, err
	}
	for _, c := range channels {
		oc := OpticalChannel{Name: c.Path()[strings.LastIndexByte(c.Path(), '/')+1:]}
		if oc.Description, err = text(ctx, c, "description"); err != nil {
			return nil, err
		}
		if oc.EmissionLambda, err = number(ctx, c, "emission_lambda"); err != nil {
			return nil, err
		}
		p.OpticalChannels = append(p.OpticalChannels, oc)
	}
	return p, nil
}

// ImagingPlanes reads every ImagingPlane of /general/optophysiology, by name.
func (f *File) ImagingPlanes(ctx context.Context) ([]*ImagingPlane, error) {
	g, err := f.h.Group(ctx, "/general/optophysiology")
	if errors.Is(err, h5.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	planes, err := typedMembers(ctx, g, "ImagingPlane")
	if err != nil {
		return nil, err
	}
	var out []*ImagingPlane
	for _, c := range planes {
		p, err := f.ImagingPlane(ctx, c.Path())
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// typedMembers are the groups of neurodata_type typ that g holds (hard
// links), by name.
func typedMembers(ctx context.Context, g *h5.Group, typ string) ([]*h5.Group, error) {
	var out []*h5.Group
	for _, name := range g.Members() {
		if l, ok := g.Link(name); !ok || l.Kind != h5.HardLink {
			continue
		}
		c, err := g.Group(ctx, name)
		if errors.Is(err, h5.ErrNotGroup) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if typeOf(c) == typ {
			out = append(out, c)
		}
	}
	return out, nil
}

// ImagingPlane reads the plane a TwoPhotonSeries (or OnePhotonSeries)
// imaged: the group its imaging_plane link names.
func (ts *TimeSeries) ImagingPlane(ctx context.Context) (*ImagingPlane, error) {
	return planeOf(ctx, ts.f, ts.g)
}

// ROIs reads a RoiResponseSeries' rois region: for each column of the data,
// its row of the PlaneSegmentation the ROIs come from.
func (ts *TimeSeries) ROIs(ctx context.Context) ([]int, *PlaneSegmentation, error) {
	rows, t, err := ts.region(ctx, "rois")
	if err != nil {
		return nil, nil, err
	}
	return rows, &PlaneSegmentation{Table: t}, nil
}

// PlaneSegmentation is an NWB PlaneSegmentation: a DynamicTable of regions
// of interest, one row each, drawn as image masks (a weight per pixel of
// the plane), pixel masks (the pixels' coordinates and weights) or voxel
// masks.
type PlaneSegmentation struct {
	*Table
}

// PlaneSegmentation opens the PlaneSegmentation table at path.
func (f *File) PlaneSegmentation(ctx context.Context, path string) (*PlaneSegmentation, error) {
	t, err := f.Table(ctx, path)
	if err != nil {
		return nil, err
	}
	if typ := t.Type(); typ != "PlaneSegmentation" {
		return nil, fmt.Errorf("nwb: %s is a %q, not a PlaneSegmentation: %w", t.Path(), typ, unprefixed{h5.ErrType})
	}
	return &PlaneSegmentation{Table: t}, nil
}

// ImagingPlane reads the plane the ROIs were drawn on.
func (p *PlaneSegmentation) ImagingPlane(ctx context.Context) (*ImagingPlane, error) {
	return planeOf(ctx, p.f, p.g)
}

// ImageMasks reads the image masks of rows [start, stop): their weights, of
// shape (rows, height, width) or (rows, height, width, depth). It fails
// when the table has none.
func (p *PlaneSegmentation) ImageMasks(ctx context.Context, start, stop int) (*h5.Typed[float64], error) {
	c, err := p.Column("image_mask")
	if err != nil {
		return nil, err
	}
	return Values[float64](ctx, c, start, stop)
}

// PixelMask is one pixel of a ROI's pixel mask.
type PixelMask struct {
	X, Y   uint32
	Weight float32
}

// VoxelMask is one voxel of a ROI's voxel mask.
type VoxelMask struct {
	X, Y, Z uint32
	Weight  float32
}

// PixelMasks reads the pixel masks of rows [start, stop), one slice of
// pixels per ROI. It fails when the table has none.
func (p *PlaneSegmentation) PixelMasks(ctx context.Context, start, stop int) ([][]PixelMask, error) {
	return masks(ctx, p, "pixel_mask", start, stop, func(v map[string]float64) PixelMask {
		return PixelMask{X: uint32(v["x"]), Y: uint32(v["y"]), Weight: float32(v["weight"])}
	}, "x", "y", "weight")
}

// VoxelMasks reads the voxel masks of rows [start, stop), one slice of
// voxels per ROI. It fails when the table has none.
func (p *PlaneSegmentation) VoxelMasks(ctx context.Context, start, stop int) ([][]VoxelMask, error) {
	return masks(ctx, p, "voxel_mask", start, stop, func(v map[string]float64) VoxelMask {
		return VoxelMask{X: uint32(v["x"]), Y: uint32(v["y"]), Z: uint32(v["z"]), Weight: float32(v["weight"])}
	}, "x", "y", "z", "weight")
}

// masks reads the ragged compound column name, each element's fields
// (every one of want) converted to float64 and then by conv.
func masks[M any](ctx context.Context, p *PlaneSegmentation, name string, start, stop int, conv func(map[string]float64) M, want ...string) ([][]M, error) {
	c, err := p.Column(name)
	if err != nil {
		return nil, err
	}
	if c.Depth() != 1 {
		return nil, fmt.Errorf("nwb: %s: %d index levels, not 1: %w", c.Data().Path(), c.Depth(), unprefixed{h5.ErrType})
	}
	cells, err := c.Cells(ctx, start, stop)
	if err != nil {
		return nil, err
	}
	out := make([][]M, len(cells))
	for i, cell := range cells {
		for _, e := range cell.([]any) {
			fields, ok := e.([]Field)
			if !ok {
				return nil, fmt.Errorf("nwb: %s: an element of row %d is a %T, not a compound: %w", c.Data().Path(), start+i, e, unprefixed{h5.ErrType})
			}
			v := map[string]float64{}
			for _, f := range fields {
				if x, ok := toFloat(f.Value); ok {
					v[f.Name] = x
				}
			}
			for _, w := range want {
				if _, ok := v[w]; !ok {
					return nil, fmt.Errorf("nwb: %s: row %d has no numeric field %q: %w", c.Data().Path(), start+i, w, unprefixed{h5.ErrType})
				}
			}
			out[i] = append(out[i], conv(v))
		}
	}
	return out, nil
}

// toFloat converts a numeric cell value.
func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// planeOf reads the ImagingPlane that g's imaging_plane link names.
func planeOf(ctx context.Context, f *File, g *h5.Group) (*ImagingPlane, error) {
	path := linkTarget(g, "imaging_plane")
	if path == "" {
		return nil, fmt.Errorf("nwb: %s has no imaging_plane: %w", g.Path(), unprefixed{h5.ErrNotFound})
	}
	return f.ImagingPlane(ctx, path)
}

// linkTarget is the path of g's member name: a soft link's target, or the
// member's own path; "" when there is none.
func linkTarget(g *h5.Group, name string) string {
	l, ok := g.Link(name)
	switch {
	case !ok:
		return ""
	case l.Kind == h5.SoftLink:
		return l.Target
	}
	return joinPath(g.Path(), name)
}

// number reads the scalar number dataset name below g; NaN when absent.
func number(ctx context.Context, g *h5.Group, name string) (float64, error) {
	d, err := g.Dataset(ctx, name)
	if errors.Is(err, h5.ErrNotFound) {
		return math.NaN(), nil
	}
	if err != nil {
		return 0, err
	}
	return h5.ReadScalar[float64](ctx, d)
}
