package main

import "testing"

// TestSpan: the ends of a short span print apart, with no more digits than
// that takes.
func TestSpan(t *testing.T) {
	for _, tc := range []struct {
		first, last float64
		a, b        string
	}{
		{0.5, 0.54, "0.5", "0.54"},
		{123.6, 123.6005, "123.6", "123.6005"},
		{1e6, 1e6 + 1e-4, "1000000", "1000000.0001"},
		{2, 2, "2", "2"},
	} {
		if a, b := span(tc.first, tc.last); a != tc.a || b != tc.b {
			t.Errorf("span(%v, %v) = %s–%s, want %s–%s", tc.first, tc.last, a, b, tc.a, tc.b)
		}
	}
}

func TestCount(t *testing.T) {
	for n, want := range map[int]string{0: "0 rows", 1: "1 row", 2: "2 rows"} {
		if got := count(n, "row"); got != want {
			t.Errorf("count(%d) = %q, want %q", n, got, want)
		}
	}
}
