package selection

import "testing"

// benchmarkPlan parses, resolves and plans sel, then walks every run of
// every chunk. SetBytes counts the int16 output the plan describes.
func benchmarkPlan(b *testing.B, sel string, shape, chunks []int) {
	b.Run("Runs", func(b *testing.B) { benchmarkWalk(b, sel, shape, chunks, false) })
	b.Run("Blocks", func(b *testing.B) { benchmarkWalk(b, sel, shape, chunks, true) })
}

// benchmarkWalk walks the plan with Runs, or with Blocks when blocks is set;
// the calls/op metric counts the callbacks.
func benchmarkWalk(b *testing.B, sel string, shape, chunks []int, blocks bool) {
	s, err := Parse(sel)
	if err != nil {
		b.Fatal(err)
	}
	r, err := s.Resolve(shape)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(2 * r.Len()))
	b.ReportAllocs()
	var runs int
	for b.Loop() {
		s, _ := Parse(sel)
		r, _ := s.Resolve(shape)
		p, err := r.Plan(chunks)
		if err != nil {
			b.Fatal(err)
		}
		runs = 0
		for cp := range p.Chunks() {
			if blocks {
				cp.Blocks(func(Block) bool {
					runs++
					return true
				})
				continue
			}
			cp.Runs(func(src, dst, n int) bool {
				runs++
				return true
			})
		}
	}
	b.ReportMetric(float64(runs), "calls/op")
}

var (
	ephysShape  = []int{1_200_000, 384}
	ephysChunks = []int{40_000, 384}
)

func BenchmarkPlanStrided(b *testing.B) {
	benchmarkPlan(b, "0:300000, ::4", ephysShape, ephysChunks)
}

func BenchmarkPlanColumn(b *testing.B) {
	benchmarkPlan(b, ":, 5", ephysShape, ephysChunks)
}

func BenchmarkPlanRows(b *testing.B) {
	benchmarkPlan(b, "0:300000, :", ephysShape, ephysChunks)
}

func BenchmarkPlanList(b *testing.B) {
	benchmarkPlan(b, "[812, 3419, 4074, 4864, 5449, 999999, 3], ::-1", ephysShape, ephysChunks)
}

func BenchmarkParse(b *testing.B) {
	const sel = "4361:5817:13, ..., [1, 4, 9, 16, 25], -8:"
	b.SetBytes(int64(len(sel)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(sel); err != nil {
			b.Fatal(err)
		}
	}
}
