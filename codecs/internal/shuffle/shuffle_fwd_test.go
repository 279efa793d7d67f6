package shuffle

import (
	"bytes"
	"fmt"
	"testing"
)

func TestShuffle(t *testing.T) {
	for _, ts := range testTypesizes {
		for _, n := range testLengths {
			t.Run(fmt.Sprintf("ts%d/len%d", ts, n), func(t *testing.T) {
				src := randomBytes(n, uint64(ts*7919+n))
				got := make([]byte, n)
				Shuffle(got, src, ts)
				if !bytes.Equal(got, refShuffle(src, ts)) {
					t.Fatal("Shuffle differs from reference")
				}
				back := make([]byte, n)
				Unshuffle(back, got, ts)
				if !bytes.Equal(back, src) {
					t.Fatal("Unshuffle(Shuffle(x)) != x")
				}
			})
		}
	}
}

func FuzzShuffle(f *testing.F) {
	f.Add([]byte("0123456789abcdefghijklmnopqrstuvwxyz"), 4)
	f.Add(make([]byte, 130), 16)
	f.Fuzz(func(t *testing.T, src []byte, typesize int) {
		typesize %= 300
		got := make([]byte, len(src))
		Shuffle(got, src, typesize)
		want := src
		if typesize >= 2 {
			want = refShuffle(src, typesize)
		}
		if !bytes.Equal(got, want) {
			t.Fatal("Shuffle differs from reference")
		}
	})
}

func BenchmarkShuffle(b *testing.B) {
	for _, ts := range benchTypesizes {
		b.Run(fmt.Sprintf("ts%d", ts), func(b *testing.B) {
			src := randomBytes(benchLen(ts), 1)
			dst := make([]byte, len(src))
			loop(b, len(src), func() { Shuffle(dst, src, ts) })
		})
	}
}
