package lindi

import "testing"

// TestGrownSize: small members are padded as Python lindi pads them; a
// large one gets at most a quarter of its size (64 KiB at least) of room,
// where Python lindi's rule gave up to seven times its size.
func TestGrownSize(t *testing.T) {
	python := func(n int) int64 {
		size := int64(initialSize)
		for size < 4*int64(n) {
			size *= 2
		}
		return size
	}
	for _, n := range []int{0, 100, 2000, 8192, 16 << 10, 16<<10 + 1, 100 << 10, 300 << 10, 2_800_000, 40 << 20} {
		got := grownSize(n, initialSize)
		if got < int64(n) || got < initialSize {
			t.Errorf("grownSize(%d) = %d, smaller than the member", n, got)
		}
		if room := got - int64(n); room > max(64<<10, int64(n)/4)+block {
			t.Errorf("grownSize(%d) = %d: %d bytes of room", n, got, room)
		}
		if n <= 16<<10 && got != python(n) {
			t.Errorf("grownSize(%d) = %d, Python lindi pads to %d", n, got, python(n))
		}
		if n > 0 && grownSize(n-1, initialSize) > got {
			t.Errorf("grownSize(%d) > grownSize(%d)", n-1, n)
		}
	}
	if got := grownSize(2_800_000, initialSize); got > 3_600_000 {
		t.Errorf("a 2.8 MB lindi.json padded to %d", got)
	}
}
