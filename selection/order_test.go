package selection

import "testing"

// TestOrdered checks Ordered and Start against their definitions: a plan is
// ordered when the chunks' Starts increase in the order Chunks yields them,
// and Start is the least output offset a chunk's runs write.
func TestOrdered(t *testing.T) {
	cases := []struct {
		sel           string
		shape, chunks []int
		ordered       bool
	}{
		{":", []int{100}, []int{10}, true},
		{"::-1", []int{100}, []int{10}, false},
		{"::-1", []int{100}, []int{100}, true},
		{"5:80:7, :", []int{100, 9}, []int{10, 4}, true},
		{":, ::-2", []int{10, 9}, []int{3, 4}, false},
		{"[1, 3, 25, 26]", []int{30}, []int{10}, true},
		{"[25, 1, 3]", []int{30}, []int{10}, false},
		{"[3, 1, 25]", []int{30}, []int{10}, true},
		{"2, 3:9, [7, 1]", []int{4, 10, 8}, []int{2, 4, 4}, false},
		{"..., 0:64, 0:64", []int{16, 256, 256}, []int{8, 64, 64}, true},
	}
	for _, c := range cases {
		p := planOf(t, c.sel, c.shape, c.chunks)
		if got := p.Ordered(); got != c.ordered {
			t.Errorf("%s: Ordered() = %v, want %v", c.sel, got, c.ordered)
		}
		increasing := true
		prev := -1
		for cp := range p.Chunks() {
			least := -1
			cp.Runs(func(src, dst, n int) bool {
				if least < 0 || dst < least {
					least = dst
				}
				return true
			})
			if got := cp.Start(); got != least {
				t.Errorf("%s chunk %v: Start() = %d, least offset written %d", c.sel, cp.Coords, got, least)
			}
			if least < prev {
				increasing = false
			}
			prev = least
		}
		if c.ordered && !increasing {
			t.Errorf("%s: Ordered, but Starts do not increase", c.sel)
		}
	}
}
