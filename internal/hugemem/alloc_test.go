package hugemem

import "testing"

func TestAlloc(t *testing.T) {
	for _, n := range []int{0, 1, 4 << 10, big, 3*big + 12345} {
		b := Alloc(n)
		if len(b) != n {
			t.Fatalf("Alloc(%d) has %d bytes", n, len(b))
		}
		for i := 0; i < n; i += 4096 {
			if b[i] != 0 {
				t.Fatalf("Alloc(%d)[%d] = %d, want 0", n, i, b[i])
			}
			b[i] = 1
		}
	}
}

// big is a size large enough to be advised where that is done.
const big = 8 << 20

func TestSlice(t *testing.T) {
	for _, n := range []int{0, 3, big / 8, 3*big/8 + 5} {
		s := Slice[float64](n)
		if len(s) != n || cap(s) != n {
			t.Fatalf("Slice(%d) has len %d cap %d", n, len(s), cap(s))
		}
		for i := range s {
			if s[i] != 0 {
				t.Fatalf("Slice(%d)[%d] = %v, want 0", n, i, s[i])
			}
			s[i] = float64(i)
		}
	}
}
