package errpath

import (
	"errors"
	"fmt"
	"testing"
)

func TestWrapNamesPathOnce(t *testing.T) {
	sentinel := errors.New("hdf5: malformed file")
	base := fmt.Errorf("object header at 1664: %w: object header version 7", sentinel)
	middle := fmt.Errorf("loading: %w", Wrap("hdf5: ", "/misc", Wrap("", "/misc", base)))
	err := Wrap("h5: ", "/misc", Wrap("", "/misc", middle))
	// "loading: " sits between two errors about /misc: the message skips it.
	const want = "h5: /misc: object header at 1664: hdf5: malformed file: object header version 7"
	if err.Error() != want {
		t.Errorf("got  %q\nwant %q", err, want)
	}
	if !errors.Is(err, sentinel) {
		t.Error("errors.Is loses the sentinel")
	}
	other := Wrap("h5: ", "/misc/x", Wrap("", "/misc", base))
	if got := other.Error(); got != "h5: /misc/x: /misc: object header at 1664: hdf5: malformed file: object header version 7" {
		t.Errorf("another path: %q", got)
	}
	if Wrap("h5: ", "/a", nil) != nil {
		t.Error("Wrap of nil is not nil")
	}
}
