package fileio

import (
	"sync"
	"testing"
)

func TestMemo(t *testing.T) {
	m := NewMemo[int, string](2)
	m.Put(1, "a")
	m.Put(2, "b")
	m.Put(2, "B") // replacing an entry does not empty a full memo
	if v, ok := m.Get(1); !ok || v != "a" {
		t.Fatalf("Get(1) = %q, %v", v, ok)
	}
	m.Put(3, "c") // full: emptied first
	if _, ok := m.Get(1); ok {
		t.Error("entry 1 survived a full memo")
	}
	if v, ok := m.Get(3); !ok || v != "c" {
		t.Errorf("Get(3) = %q, %v", v, ok)
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 100 {
				m.Put(i*100+j, "x")
				m.Get(j)
			}
		})
	}
	wg.Wait()
	if n := len(m.m); n > 2 {
		t.Errorf("memo holds %d entries, bound 2", n)
	}
}
