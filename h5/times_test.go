package h5

import (
	"errors"
	"math"
	"testing"
	"time"
)

// TestDatetimeString holds Datetime and Timedelta to numpy's str of the
// same counts (numpy 1.24).
func TestDatetimeString(t *testing.T) {
	for _, tc := range []struct {
		d    Datetime
		want string
	}{
		{Datetime{1000, "Y"}, "2970"},
		{Datetime{1000, "M"}, "2053-05"},
		{Datetime{1000, "W"}, "1989-03-02"},
		{Datetime{1000, "D"}, "1972-09-27"},
		{Datetime{-1, "D"}, "1969-12-31"},
		{Datetime{1000, "h"}, "1970-02-11T16"},
		{Datetime{1000, "m"}, "1970-01-01T16:40"},
		{Datetime{1704164645, "s"}, "2024-01-02T03:04:05"},
		{Datetime{1000, "ms"}, "1970-01-01T00:00:01.000"},
		{Datetime{-1, "ms"}, "1969-12-31T23:59:59.999"},
		{Datetime{1000, "us"}, "1970-01-01T00:00:00.001000"},
		{Datetime{981173106123456789, "ns"}, "2001-02-03T04:05:06.123456789"},
		{Datetime{1645568542123, "ps"}, "1970-01-01T00:00:01.645568542123"},
		{Datetime{1645568542123, "fs"}, "1970-01-01T00:00:00.001645568542123"},
		{Datetime{1645568542123, "as"}, "1970-01-01T00:00:00.000001645568542123"},
		{Datetime{NaT, "s"}, "NaT"},
	} {
		if got := tc.d.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.d, got, tc.want)
		}
	}
	for _, tc := range []struct {
		d    Timedelta
		want string
	}{
		{Timedelta{1500, "ms"}, "1500 milliseconds"},
		{Timedelta{-20, "D"}, "-20 days"},
		{Timedelta{1, "as"}, "1 attoseconds"},
		{Timedelta{NaT, "s"}, "NaT"},
	} {
		if got := tc.d.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestDatetimeConversions(t *testing.T) {
	got, err := Datetime{1704164645, "s"}.Time()
	if want := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC); err != nil || !got.Equal(want) {
		t.Errorf("Time %v %v, want %v", got, err, want)
	}
	if got, err := (Datetime{NaT, "ns"}).Time(); err != nil || !got.IsZero() {
		t.Errorf("NaT: %v %v, want the zero Time", got, err)
	}
	if got, err := (Datetime{-1500, "ps"}).Time(); err != nil || !got.Equal(time.Unix(0, -2).UTC()) {
		t.Errorf("ps: %v %v", got, err)
	}
	for _, d := range []Datetime{{math.MaxInt64, "W"}, {1, "fortnight"}} {
		if _, err := d.Time(); !errors.Is(err, ErrType) {
			t.Errorf("%+v: %v, want ErrType", d, err)
		}
	}
	if d, err := (Timedelta{1500, "ms"}).Duration(); err != nil || d != 1500*time.Millisecond {
		t.Errorf("Duration %v %v", d, err)
	}
	for _, d := range []Timedelta{{NaT, "s"}, {1, "M"}, {math.MaxInt64, "s"}} {
		if _, err := d.Duration(); !errors.Is(err, ErrType) {
			t.Errorf("%+v: %v, want ErrType", d, err)
		}
	}
}
