package nwb

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkScale converts a block of 65,536 samples × 192 int16 channels
// with channel_conversion into float64, as PhysicalBlocks does.
func BenchmarkScale(b *testing.B) {
	const rows, chans = 65536, 192
	src := make([]int16, rows*chans)
	for i := range src {
		src[i] = int16(rand.IntN(2000) - 1000)
	}
	ts := &TimeSeries{conversion: 0.195e-6, offset: 1e-6, channelConv: make([]float64, chans)}
	for c := range ts.channelConv {
		ts.channelConv[c] = 1 + float64(c)/1000
	}
	dst := make([]float64, len(src))
	b.SetBytes(int64(2 * len(src)))
	b.ReportAllocs()
	for b.Loop() {
		scale(ts, dst, src, []int{rows, chans})
	}
}
