package h5

import (
	"context"
	"errors"
	"testing"
)

// TestReadScalar reads a scalar string and number in one call, and refuses
// a dataset of more than one element.
func TestReadScalar(t *testing.T) {
	ctx := context.Background()
	f, err := Open(ctx, "../testdata/nwb/tables.nwb")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d, err := f.Dataset(ctx, "/acquisition/ElectricalSeries/starting_time")
	if err != nil {
		t.Fatal(err)
	}
	if v, err := ReadScalar[float64](ctx, d); err != nil || v != 0.5 { // h5dump: 0.5
		t.Errorf("starting_time = %v, %v", v, err)
	}
	d, err = f.Dataset(ctx, "/session_description")
	if err != nil {
		t.Fatal(err)
	}
	if v, err := ReadScalar[string](ctx, d); err != nil || v == "" {
		t.Errorf("session_description = %q, %v", v, err)
	}
	d, err = f.Dataset(ctx, "/acquisition/ElectricalSeries/data")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ReadScalar[float64](ctx, d); !errors.Is(err, ErrType) {
		t.Errorf("a 2-D dataset read as a scalar: %v", err)
	}
}
