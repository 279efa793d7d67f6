package nwb

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"reflect"
	"testing"
)

// ophysWant is what pynwb 2.3.1 read of the ophys objects
// (testdata/ophys/expected.json, written by gen.py).
type ophysWant struct {
	ImagingPlanes map[string]struct {
		Description, Indicator, Location, Device string
		ExcitationLambda                         float64 `json:"excitation_lambda"`
		ImagingRate                              float64 `json:"imaging_rate"`
		OpticalChannels                          []struct {
			Name, Description string
			EmissionLambda    float64 `json:"emission_lambda"`
		} `json:"optical_channels"`
	} `json:"imaging_planes"`
	TwoPhoton map[string]struct {
		ImagingPlane string `json:"imaging_plane"`
	} `json:"two_photon_series"`
	PlaneSeg struct {
		ImagingPlane string         `json:"imaging_plane"`
		Rows         int            `json:"rows"`
		ImageMask    [][][]float64  `json:"image_mask"`
		PixelMask    [][][3]float64 `json:"pixel_mask"`
		VoxelMask    any            `json:"voxel_mask"`
	} `json:"plane_segmentation"`
	ROIs struct {
		ROIs  []int   `json:"rois"`
		Table string  `json:"table"`
		IDs   []int64 `json:"ids"`
	} `json:"roi_response_series"`
}

// TestOphysAgainstPynwb reads the ophys objects of the bundled file, as
// the .nwb pynwb wrote and as the NWB-Zarr stores hdmf-zarr made of it,
// and compares them with what pynwb read.
func TestOphysAgainstPynwb(t *testing.T) {
	var want ophysWant
	b, err := os.ReadFile("testdata/ophys/expected.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"ophys_behavior.nwb", "ophys_behavior.nwb.zarr", "ophys_behavior_exported.nwb.zarr"} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			f, err := Open(ctx, "../testdata/nwbzarr/"+name)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			checkOphys(t, ctx, f, &want)
		})
	}
}

func checkOphys(t *testing.T, ctx context.Context, f *File, want *ophysWant) {
	planes, err := f.ImagingPlanes(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(planes) != len(want.ImagingPlanes) {
		t.Fatalf("%d imaging planes, pynwb %d", len(planes), len(want.ImagingPlanes))
	}
	for _, p := range planes {
		w, ok := want.ImagingPlanes[lastName(p.Path)]
		if !ok {
			t.Fatalf("plane %s unknown to pynwb", p.Path)
		}
		if p.Description != w.Description || p.Indicator != w.Indicator || p.Location != w.Location ||
			p.ExcitationLambda != w.ExcitationLambda || p.ImagingRate != w.ImagingRate || lastName(p.Device) != w.Device {
			t.Errorf("plane %+v, pynwb %+v", p, w)
		}
		if len(p.OpticalChannels) != len(w.OpticalChannels) {
			t.Fatalf("channels %+v, pynwb %+v", p.OpticalChannels, w.OpticalChannels)
		}
		for i, c := range p.OpticalChannels {
			if wc := w.OpticalChannels[i]; c.Name != wc.Name || c.Description != wc.Description || c.EmissionLambda != wc.EmissionLambda {
				t.Errorf("channel %+v, pynwb %+v", c, wc)
			}
		}
	}
	for path, w := range want.TwoPhoton {
		ts, err := f.TimeSeries(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		p, err := ts.ImagingPlane(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if lastName(p.Path) != w.ImagingPlane || p.Indicator == "" {
			t.Errorf("%s: plane %+v, pynwb %s", path, p, w.ImagingPlane)
		}
	}
	ps, err := f.PlaneSegmentation(ctx, "/processing/ophys/ImageSegmentation/PlaneSegmentation")
	if err != nil {
		t.Fatal(err)
	}
	if p, err := ps.ImagingPlane(ctx); err != nil || lastName(p.Path) != want.PlaneSeg.ImagingPlane {
		t.Errorf("segmentation's plane %v %v, pynwb %s", p, err, want.PlaneSeg.ImagingPlane)
	}
	im, err := ps.ImageMasks(ctx, 0, ps.Len())
	if err != nil {
		t.Fatal(err)
	}
	var flat []float64
	for _, r := range want.PlaneSeg.ImageMask {
		for _, row := range r {
			flat = append(flat, row...)
		}
	}
	if !reflect.DeepEqual(im.Data, flat) || im.Shape[0] != want.PlaneSeg.Rows {
		t.Errorf("image masks of shape %v differ from pynwb's", im.Shape)
	}
	pm, err := ps.PixelMasks(ctx, 0, ps.Len())
	if err != nil {
		t.Fatal(err)
	}
	if len(pm) != len(want.PlaneSeg.PixelMask) {
		t.Fatalf("%d pixel masks, pynwb %d", len(pm), len(want.PlaneSeg.PixelMask))
	}
	for i, roi := range pm {
		w := want.PlaneSeg.PixelMask[i]
		if len(roi) != len(w) {
			t.Fatalf("ROI %d: %v, pynwb %v", i, roi, w)
		}
		for j, px := range roi {
			if float64(px.X) != w[j][0] || float64(px.Y) != w[j][1] || float64(px.Weight) != w[j][2] {
				t.Errorf("ROI %d pixel %d: %+v, pynwb %v", i, j, px, w[j])
			}
		}
	}
	if _, err := ps.VoxelMasks(ctx, 0, ps.Len()); err == nil || want.PlaneSeg.VoxelMask != nil {
		t.Errorf("voxel masks of a table without them: %v (pynwb: %v)", err, want.PlaneSeg.VoxelMask)
	}
	rrs, err := f.TimeSeries(ctx, "/processing/ophys/Fluorescence/RoiResponseSeries")
	if err != nil {
		t.Fatal(err)
	}
	rois, seg, err := rrs.ROIs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	ids, err := seg.IDs(ctx, 0, seg.Len())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rois, want.ROIs.ROIs) || lastName(seg.Path()) != want.ROIs.Table || !reflect.DeepEqual(ids, want.ROIs.IDs) {
		t.Errorf("rois %v of %s (ids %v), pynwb %+v", rois, seg.Path(), ids, want.ROIs)
	}
	if _, err := f.ImagingPlane(ctx, "/processing/ophys"); err == nil {
		t.Error("a ProcessingModule read as an ImagingPlane")
	}
	if math.IsNaN(planes[0].ImagingRate) {
		t.Error("imaging rate missing")
	}
}

func lastName(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' {
			return p[i+1:]
		}
	}
	return p
}
