package source

import (
	"os"
	"path/filepath"
	"testing"
)

func TestIsLocal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(path, []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := NewHTTP("http://127.0.0.1:9/x")
	if err != nil {
		t.Fatal(err)
	}
	lru, err := NewLRU(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		s    Source
		want bool
	}{
		{f, true},
		{NewBytes("b", nil), true},
		{NewCache(f, lru), true},
		{h, false},
		{NewCache(h, lru), false},
	} {
		if got := IsLocal(c.s); got != c.want {
			t.Errorf("IsLocal(%T %s) = %v, want %v", c.s, c.s.Name(), got, c.want)
		}
	}
}
