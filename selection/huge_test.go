package selection

import (
	"runtime"
	"testing"
)

// TestHugeArrays plans selections on arrays of 10^12 elements and checks
// that memory stays proportional to the number of chunks, not elements.
func TestHugeArrays(t *testing.T) {
	const m = 1_000_000
	tests := []struct {
		sel    string
		shape  []int
		chunks []int
		out    []int
		nchunk int
	}{
		{"5, :", []int{m, m}, []int{1000, 1000}, []int{m}, 1000},
		{":, 7", []int{m, m}, []int{1000, 1000}, []int{m}, 1000},
		{"::100000, ::-1000", []int{m, m}, []int{1000, 1000}, []int{10, 1000}, 10 * 1000},
		{"-1, 10:20, ::-1", []int{10000, 10000, 10000}, []int{100, 100, 100}, []int{10, 10000}, 100},
		{"[999999, 0, 5], 123456:654321:7", []int{m, m}, []int{4096, 4096}, []int{3, 75838}, 2 * 130},
	}
	for _, tt := range tests {
		t.Run(tt.sel, func(t *testing.T) {
			sel, err := Parse(tt.sel)
			if err != nil {
				t.Fatal(err)
			}
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			r, err := sel.Resolve(tt.shape)
			if err != nil {
				t.Fatal(err)
			}
			p, err := r.Plan(tt.chunks)
			if err != nil {
				t.Fatal(err)
			}
			chunkLen := 1
			for _, c := range tt.chunks {
				chunkLen *= c
			}
			total, count := 0, 0
			for cp := range p.Chunks() {
				count++
				cp.Runs(func(src, dst, n int) bool {
					if src < 0 || src+n > chunkLen || dst < 0 || dst+n > r.Len() {
						t.Fatalf("chunk %v: run (%d, %d, %d) out of range", cp.Coords, src, dst, n)
					}
					total += n
					return true
				})
			}
			runtime.ReadMemStats(&after)
			if !equalInts(r.Shape(), tt.out) || total != r.Len() || count != tt.nchunk || p.NumChunks() != tt.nchunk {
				t.Fatalf("shape %v, runs cover %d of %d, %d chunks (NumChunks %d), want %v and %d chunks",
					r.Shape(), total, r.Len(), count, p.NumChunks(), tt.out, tt.nchunk)
			}
			if bytes := after.TotalAlloc - before.TotalAlloc; bytes > uint64(512*count+64<<10) {
				t.Fatalf("planning allocated %d bytes for %d chunks", bytes, count)
			}
		})
	}
}

// TestHugeWhole plans the whole of a 10^12-element array without visiting
// it all: the count is computed, and iteration can stop early.
func TestHugeWhole(t *testing.T) {
	r, err := Selection{}.Resolve([]int{1_000_000, 1_000_000})
	if err != nil {
		t.Fatal(err)
	}
	p, err := r.Plan([]int{1000, 1000})
	if err != nil {
		t.Fatal(err)
	}
	if r.Len() != 1_000_000_000_000 || p.NumChunks() != 1_000_000 {
		t.Fatalf("Len %d NumChunks %d", r.Len(), p.NumChunks())
	}
	n := 0
	for cp := range p.Chunks() {
		if _, ok := cp.Contiguous(); ok {
			t.Fatalf("chunk %v of a 1000-wide block in a 10^6-wide output is not contiguous", cp.Coords)
		}
		if n++; n == 5 {
			break
		}
	}
}

func TestPlanErrors(t *testing.T) {
	r, err := Selection{}.Resolve([]int{10, 20})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		chunks []int
		want   error
	}{
		{"too few axes", []int{10}, ErrInvalid},
		{"too many axes", []int{10, 10, 10}, ErrInvalid},
		{"zero chunk", []int{0, 10}, ErrInvalid},
		{"negative chunk", []int{5, -1}, ErrInvalid},
		{"chunk overflows", []int{1 << 40, 1 << 40}, ErrTooLarge},
		{"chunk near MaxInt", []int{1, int(^uint(0) >> 1)}, ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := r.Plan(tt.chunks); !errorsIs(err, tt.want) {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
		})
	}
}
