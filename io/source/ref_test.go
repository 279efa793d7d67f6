package source

import (
	"context"
	"path/filepath"
	"testing"
)

func TestResolveRef(t *testing.T) {
	tests := []struct {
		base, ref, want string
	}{
		{"https://h/d/x.lindi.json", "./fixture.h5", "https://h/d/fixture.h5"},
		{"https://h/d/x.lindi.json?sig=1", "fixture.h5", "https://h/d/fixture.h5"},
		{"https://h/d/e/x.json", "../f.h5", "https://h/d/f.h5"},
		{"https://h/d/x.json", "/abs/f.h5", "https://h/abs/f.h5"},
		{"https://h/d/x.json", "https://other/f.h5", "https://other/f.h5"},
		{"file:///d/x.json", "./f.h5", "file:///d/f.h5"},
		{"testdata/x.json", "./f.h5", filepath.Join("testdata", "f.h5")},
		{"x.json", "./f.h5", "f.h5"},
		{"/d/x.json", "/e/f.h5", "/e/f.h5"},
		{"/d/x.json", "http://h/f.h5", "http://h/f.h5"},
	}
	for _, tt := range tests {
		t.Run(tt.base+"+"+tt.ref, func(t *testing.T) {
			got, err := ResolveRef(tt.base, tt.ref)
			if err != nil || got != tt.want {
				t.Fatalf("ResolveRef = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	if _, err := ResolveRef("x", ""); err == nil {
		t.Fatal("empty ref accepted")
	}
}

func TestSection(t *testing.T) {
	data := readFixture(t)
	s, err := NewSection(NewBytes("f", data), 1000, 5000, "member")
	if err != nil {
		t.Fatal(err)
	}
	checkReads(t, s, data[1000:6000])
	for _, c := range [][2]int64{{-1, 5}, {5, -1}} {
		if _, err := NewSection(NewBytes("f", data), c[0], c[1], ""); err == nil {
			t.Fatalf("NewSection(%d, %d) accepted", c[0], c[1])
		}
	}
	if n, _ := s.Size(context.Background()); n != 5000 {
		t.Fatalf("Size %d", n)
	}
}
