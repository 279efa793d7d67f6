package fetch

import (
	"testing"
	"unsafe"
)

// TestArena checks that block buffers carved from an arena are zeroed,
// exactly as long as asked, with no room to append into a neighbour, and
// disjoint.
func TestArena(t *testing.T) {
	sizes := []int64{3 << 20, 1, 5 << 20, 700 << 10, 90 << 20, 12 << 20, 4 << 20}
	var a arena
	for _, n := range sizes {
		a.left += n
	}
	type span struct{ lo, hi uintptr }
	var spans []span
	for _, n := range sizes {
		b := a.alloc(n)
		if int64(len(b)) != n || int64(cap(b)) != n {
			t.Fatalf("alloc(%d): len %d cap %d", n, len(b), cap(b))
		}
		for i := 0; i < len(b); i += 4096 {
			if b[i] != 0 {
				t.Fatalf("alloc(%d)[%d] not zero", n, i)
			}
			b[i] = 0xff
		}
		lo := uintptr(unsafe.Pointer(&b[0]))
		s := span{lo, lo + uintptr(n)}
		for _, o := range spans {
			if s.lo < o.hi && o.lo < s.hi {
				t.Fatalf("alloc(%d) overlaps an earlier buffer", n)
			}
		}
		spans = append(spans, s)
	}
	if a.left != 0 {
		t.Fatalf("%d bytes left, want 0", a.left)
	}
}
