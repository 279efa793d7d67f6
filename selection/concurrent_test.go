package selection

import (
	"sync"
	"testing"
)

// TestConcurrentUse walks one plan from several goroutines at once and
// hands the chunk plans of another walk to worker goroutines, as the read
// engine does; run with -race.
func TestConcurrentUse(t *testing.T) {
	p := planOf(t, "1:99:3, [5, 1, 7, 1], ::-2", []int{100, 8, 9}, []int{7, 3, 4})
	want := 33 * 4 * 5
	var wg sync.WaitGroup
	totals := make([]int, 4)
	for g := range totals {
		wg.Go(func() {
			for cp := range p.Chunks() {
				cp.Runs(func(src, dst, n int) bool {
					totals[g] += n
					return true
				})
			}
		})
	}
	work := make(chan *ChunkPlan)
	var mu sync.Mutex
	handed := 0
	for range 3 {
		wg.Go(func() {
			for cp := range work {
				n := 0
				cp.Blocks(func(b Block) bool {
					n += b.N * b.Count
					return true
				})
				mu.Lock()
				handed += n
				mu.Unlock()
			}
		})
	}
	for cp := range p.Chunks() {
		work <- cp
	}
	close(work)
	wg.Wait()
	for g, n := range totals {
		if n != want {
			t.Errorf("goroutine %d: runs cover %d elements, want %d", g, n, want)
		}
	}
	if handed != want {
		t.Errorf("workers covered %d elements, want %d", handed, want)
	}
}
