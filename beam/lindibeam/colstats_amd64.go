package lindibeam

import "golang.org/x/sys/cpu"

func init() {
	if cpu.X86.HasAVX2 {
		int16Tile = int16TileAVX2
	}
}

// cols16 is the running statistics of 16 int16 columns, in column order,
// as colStats16AVX2 keeps them.
type cols16 struct {
	min, max [16]int16
	sum      [16]int32
	sq       [16]int64
}

// colStats16AVX2 adds rows (even, > 0) rows of 16 int16 columns, the first
// at p and each stride bytes after the one before, to acc.
//
//go:noescape
func colStats16AVX2(p *int16, stride, rows int, acc *cols16)

// int16TileAVX2 adds the rows of tile (rows of len(lanes) columns, at most
// 65536 of them, so that a column's sum stays within an int32) to lanes,
// 16 columns at a time with AVX2, and returns how many leading columns it
// added: a multiple of 16. An odd last row is added here.
func int16TileAVX2(lanes []narrowLane, tile []int16) int {
	n := len(lanes)
	rows := len(tile) / n
	even := rows &^ 1
	done := n &^ 15
	for c0 := 0; c0 < done; c0 += 16 {
		acc := cols16{}
		for k := range acc.min {
			acc.min[k], acc.max[k] = 32767, -32768
		}
		if even > 0 {
			colStats16AVX2(&tile[c0], 2*n, even, &acc)
		}
		for k := range 16 {
			l := &lanes[c0+k]
			l.s += int64(acc.sum[k])
			l.q += acc.sq[k]
			if even > 0 {
				l.lo, l.hi = min(l.lo, int64(acc.min[k])), max(l.hi, int64(acc.max[k]))
			}
			if even < rows {
				x := int64(tile[even*n+c0+k])
				l.s += x
				l.q += x * x
				l.lo, l.hi = min(l.lo, x), max(l.hi, x)
			}
		}
	}
	return done
}
