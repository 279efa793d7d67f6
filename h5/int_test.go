package h5_test

import (
	"encoding/binary"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/zarrmeta"
)

// array builds an in-memory Array of dtype typestr from native-order values.
func array[S int8 | int16 | int32 | int64 | uint8 | uint16 | uint32 | uint64 | float32 | float64](t *testing.T, typestr string, vals ...S) *h5.Array {
	t.Helper()
	dt, err := zarrmeta.ParseDType([]byte(strconv.Quote(typestr)))
	if err != nil {
		t.Fatal(err)
	}
	var b []byte
	for _, v := range vals {
		if b, err = binary.Append(b, binary.NativeEndian, v); err != nil {
			t.Fatal(err)
		}
	}
	return &h5.Array{DType: dt, Shape: []int{len(vals)}, Data: b}
}

// TestIntConversions: int and uint, the types Go indexes with, read from every
// numeric dtype, and a value they cannot hold on this platform is an ErrType,
// never a wrap.
func TestIntConversions(t *testing.T) {
	for _, c := range []struct {
		name string
		a    *h5.Array
		want []int
	}{
		{"i1", array[int8](t, "|i1", -128, 0, 127), []int{-128, 0, 127}},
		{"i8", array[int64](t, "<i8", math.MinInt, math.MaxInt), []int{math.MinInt, math.MaxInt}},
		{"u4", array[uint32](t, "<u4", math.MaxInt32), []int{math.MaxInt32}},
		{"u8 in range", array[uint64](t, "<u8", math.MaxInt), []int{math.MaxInt}},
		{"b1", array[uint8](t, "|b1", 1, 0), []int{1, 0}},
		{"f8 truncates", array[float64](t, "<f8", -2.9, 2.9, math.MinInt), []int{-2, 2, math.MinInt}},
		{"f4", array[float32](t, "<f4", 1e6), []int{1000000}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := h5.As[int](c.a)
			if err != nil || !slices.Equal(got.Data, c.want) {
				t.Errorf("As[int] = %v, %v; want %v", got, err, c.want)
			}
		})
	}
	for _, c := range []struct {
		name string
		a    *h5.Array
	}{
		{"u8 above MaxInt", array[uint64](t, "<u8", 1, math.MaxInt+1)},
		{"u8 max", array[uint64](t, "<u8", math.MaxUint64)},
		{"f8 MaxInt+1", array[float64](t, "<f8", float64(math.MaxInt)+1)},
		{"f8 NaN", array[float64](t, "<f8", math.NaN())},
		{"f8 -Inf", array[float64](t, "<f8", math.Inf(-1))},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got, err := h5.As[int](c.a); !errors.Is(err, h5.ErrType) {
				t.Errorf("As[int] = %v, %v; want ErrType", got, err)
			}
		})
	}
	if got, err := h5.As[uint](array[uint64](t, "<u8", math.MaxUint)); err != nil || got.Data[0] != math.MaxUint {
		t.Errorf("As[uint] of MaxUint = %v, %v", got, err)
	}
	for _, a := range []*h5.Array{array[int8](t, "|i1", 3, -1), array[float64](t, "<f8", -1), array[float64](t, "<f8", 1.9e19)} {
		if got, err := h5.As[uint](a); !errors.Is(err, h5.ErrType) {
			t.Errorf("As[uint] of %s = %v, %v; want ErrType", a.DType, got, err)
		}
	}
	if got, err := h5.As[uint](array[float64](t, "<f8", -0.5, 1.5)); err != nil || !slices.Equal(got.Data, []uint{0, 1}) {
		t.Errorf("As[uint] of [-0.5 1.5] = %v, %v", got, err)
	}
}

// TestReadInt reads a dataset as []int, the type Table.Select and Go's
// slices take, and the error names the dataset.
func TestReadInt(t *testing.T) {
	f := open(t, "fixture.lindi.json")
	d, err := f.Dataset(ctx, "acquisition/ElectricalSeries/data")
	if err != nil {
		t.Fatal(err)
	}
	a, err := h5.Read[int](ctx, d, parse(t, "0:3, 0:2"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Shape, []int{3, 2}) || !slices.Equal(a.Data, []int{1020, 1801, -190, 1153, -1632, 899}) {
		t.Errorf("Read[int] = %v %v", a.Shape, a.Data)
	}
	if _, err := h5.Read[uint](ctx, d, parse(t, "0:3, 0:2")); !errors.Is(err, h5.ErrType) || !strings.Contains(err.Error(), d.Path()) {
		t.Errorf("Read[uint] of negative values: %v", err)
	}
}

// TestTypeErrorsSayH5Once: a conversion that fails names the dataset and
// says "h5:" once, and still wraps ErrType.
func TestTypeErrorsSayH5Once(t *testing.T) {
	f := open(t, "fixture.lindi.json")
	d, err := f.Dataset(ctx, "acquisition/ElectricalSeries/data")
	if err != nil {
		t.Fatal(err)
	}
	_, e1 := h5.Read[string](ctx, d, nil)
	_, e2 := h5.ReadExact[float32](ctx, d, nil)
	_, e3 := h5.Read[uint](ctx, d, nil)
	_, e4 := h5.Vec(&h5.Typed[float64]{Shape: []int{0}})
	for _, err := range []error{e1, e2, e3, e4} {
		if !errors.Is(err, h5.ErrType) {
			t.Errorf("%v: want ErrType", err)
			continue
		}
		if n := strings.Count(err.Error(), "h5:"); n != 1 {
			t.Errorf("%q says h5: %d times", err, n)
		}
	}
}

// TestIntExact: ReadExact and AsExact take int and uint for the dtype of
// the platform's size, and no other.
func TestIntExact(t *testing.T) {
	native := "<i" + strconv.Itoa(strconv.IntSize/8)
	a := array[int64](t, "<i8", 7, -7)
	if native != "<i8" {
		a = array[int32](t, native, 7, -7)
	}
	got, err := h5.AsExact[int](a)
	if err != nil || !slices.Equal(got.Data, []int{7, -7}) {
		t.Errorf("AsExact[int] of %s = %v, %v", native, got, err)
	}
	if _, err := h5.AsExact[int](array[int16](t, "<i2", 7)); !errors.Is(err, h5.ErrType) {
		t.Errorf("AsExact[int] of <i2: %v, want ErrType", err)
	}
	if _, err := h5.AsExact[uint](a); !errors.Is(err, h5.ErrType) {
		t.Errorf("AsExact[uint] of %s: %v, want ErrType", native, err)
	}
}
