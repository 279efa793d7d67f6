package h5gen

import "testing"

func TestNWBSize(t *testing.T) {
	b, err := NWB(120, 6000)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 10<<20 {
		t.Errorf("%d bytes, want an NWB-sized file over 10 MB", len(b))
	}
	if _, err := NWB(0, 1); err == nil {
		t.Error("NWB(0, 1) did not fail")
	}
}
