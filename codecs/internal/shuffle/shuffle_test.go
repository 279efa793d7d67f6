package shuffle

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"
)

// refShuffle is blosc's byte shuffle written the obvious way.
func refShuffle(src []byte, typesize int) []byte {
	dst := make([]byte, len(src))
	n := len(src) / typesize
	for i := 0; i < n; i++ {
		for j := 0; j < typesize; j++ {
			dst[j*n+i] = src[i*typesize+j]
		}
	}
	copy(dst[n*typesize:], src[n*typesize:])
	return dst
}

// refUnshuffle undoes refShuffle the obvious way.
func refUnshuffle(src []byte, typesize int) []byte {
	dst := make([]byte, len(src))
	n := len(src) / typesize
	for i := 0; i < n; i++ {
		for j := 0; j < typesize; j++ {
			dst[i*typesize+j] = src[j*n+i]
		}
	}
	copy(dst[n*typesize:], src[n*typesize:])
	return dst
}

// refBitShuffle is c-blosc 1.x's bit shuffle written bit by bit.
func refBitShuffle(src []byte, typesize int) []byte {
	dst := make([]byte, len(src))
	n := len(src) / typesize
	if n%8 != 0 {
		copy(dst, src)
		return dst
	}
	nb := n / 8
	for i := 0; i < n; i++ {
		for j := 0; j < typesize; j++ {
			for k := 0; k < 8; k++ {
				bit := src[i*typesize+j] >> k & 1
				dst[(j*8+k)*nb+i/8] |= bit << (i % 8)
			}
		}
	}
	copy(dst[n*typesize:], src[n*typesize:])
	return dst
}

// refBitUnshuffle undoes refBitShuffle bit by bit.
func refBitUnshuffle(src []byte, typesize int) []byte {
	dst := make([]byte, len(src))
	n := len(src) / typesize
	if n%8 != 0 {
		copy(dst, src)
		return dst
	}
	nb := n / 8
	for i := 0; i < n; i++ {
		for j := 0; j < typesize; j++ {
			for k := 0; k < 8; k++ {
				bit := src[(j*8+k)*nb+i/8] >> (i % 8) & 1
				dst[i*typesize+j] |= bit << k
			}
		}
	}
	copy(dst[n*typesize:], src[n*typesize:])
	return dst
}

var (
	testTypesizes = []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 15, 16, 17, 24, 31, 32, 33, 64, 255}
	testLengths   = []int{0, 1, 2, 7, 8, 15, 16, 17, 63, 64, 65, 127, 128, 129, 255, 256, 1000, 1024, 4096, 4099, 65536 + 13}
)

func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

func TestUnshuffle(t *testing.T) {
	for _, ts := range testTypesizes {
		for _, n := range testLengths {
			t.Run(fmt.Sprintf("ts%d/len%d", ts, n), func(t *testing.T) {
				src := randomBytes(n, uint64(ts*100000+n))
				want := refUnshuffle(src, ts)
				got := make([]byte, n)
				Unshuffle(got, src, ts)
				if !bytes.Equal(got, want) {
					t.Fatalf("Unshuffle differs from reference")
				}
				// Round trip through the reference shuffle.
				orig := randomBytes(n, uint64(ts+n))
				Unshuffle(got, refShuffle(orig, ts), ts)
				if !bytes.Equal(got, orig) {
					t.Fatalf("Unshuffle(shuffle(x)) != x")
				}
			})
		}
	}
}

func TestUnshuffleDegenerate(t *testing.T) {
	tests := []struct {
		name     string
		src      []byte
		typesize int
	}{
		{"typesize 0", []byte{1, 2, 3}, 0},
		{"typesize negative", []byte{1, 2, 3}, -4},
		{"typesize 1", []byte{1, 2, 3}, 1},
		{"typesize above length", []byte{1, 2, 3}, 4},
		{"empty", nil, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := make([]byte, len(tt.src)+2)
			dst[len(tt.src)] = 0xAA
			Unshuffle(dst, tt.src, tt.typesize)
			if !bytes.Equal(dst[:len(tt.src)], tt.src) {
				t.Fatalf("got %v, want copy %v", dst[:len(tt.src)], tt.src)
			}
			if dst[len(tt.src)] != 0xAA {
				t.Fatalf("Unshuffle wrote past len(src)")
			}
		})
	}
}

func TestUnshufflePanicsOnShortDst(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic for short dst")
		}
	}()
	Unshuffle(make([]byte, 3), make([]byte, 8), 2)
}

// bitLengths adds to testLengths lengths whose element count is a multiple
// of 8, with and without a partial trailing element, spanning several of
// bitUntranspose's batches.
func bitLengths(ts int) []int {
	ls := append([]int(nil), testLengths...)
	for _, groups := range []int{1, 3, 100, 700, 1500} {
		ls = append(ls, 8*ts*groups, 8*ts*groups+ts-1)
	}
	return ls
}

func TestBitUnshuffle(t *testing.T) {
	for _, ts := range append(testTypesizes, 1025, 2000) {
		for _, n := range bitLengths(ts) {
			if n > 256<<10 {
				continue
			}
			t.Run(fmt.Sprintf("ts%d/len%d", ts, n), func(t *testing.T) {
				src := randomBytes(n, uint64(ts*100000+n))
				want := refBitUnshuffle(src, ts)
				got := make([]byte, n)
				if err := BitUnshuffle(got, src, ts); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, want) {
					t.Fatalf("BitUnshuffle differs from reference")
				}
				orig := randomBytes(n, uint64(ts+n))
				if err := BitUnshuffle(got, refBitShuffle(orig, ts), ts); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got, orig) {
					t.Fatalf("BitUnshuffle(bitshuffle(x)) != x")
				}
			})
		}
	}
}

// TestBitUnshuffleKnown pins the bit layout with a hand-worked example, so
// that the reference and the kernel cannot agree on a wrong layout: eight
// 1-byte elements where only element 1 has bit 0 set and only element 7 has
// bit 6 set.
func TestBitUnshuffleKnown(t *testing.T) {
	shuffled := []byte{0b00000010, 0, 0, 0, 0, 0, 0b10000000, 0}
	want := []byte{0, 1, 0, 0, 0, 0, 0, 1 << 6}
	got := make([]byte, 8)
	if err := BitUnshuffle(got, shuffled, 1); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("got %08b, want %08b", got, want)
	}
}

func TestBitUnshuffleLeftover(t *testing.T) {
	tests := []struct {
		name     string
		n        int
		typesize int
		shuffled bool // whether the whole-element part is bit-shuffled
	}{
		{"16 elements of 4, no tail", 64, 4, true},
		{"16 elements of 4 and 3 tail bytes", 67, 4, true},
		{"12 elements of 4 copied", 48, 4, false},
		{"13 elements of 4 and a tail copied", 53, 4, false},
		{"7 bytes copied", 7, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := randomBytes(tt.n, uint64(tt.n))
			got := make([]byte, tt.n)
			if err := BitUnshuffle(got, src, tt.typesize); err != nil {
				t.Fatal(err)
			}
			body := tt.n / tt.typesize * tt.typesize
			if !bytes.Equal(got[body:], src[body:]) {
				t.Fatalf("tail not copied")
			}
			if same := bytes.Equal(got[:body], src[:body]); same == tt.shuffled {
				t.Fatalf("body copied unchanged = %v, want %v", same, !tt.shuffled)
			}
		})
	}
}

func TestBitUnshuffleErrors(t *testing.T) {
	tests := []struct {
		name     string
		dst, src []byte
		typesize int
	}{
		{"typesize 0", make([]byte, 8), make([]byte, 8), 0},
		{"typesize negative", make([]byte, 8), make([]byte, 8), -1},
		{"dst shorter", make([]byte, 7), make([]byte, 8), 1},
		{"dst longer", make([]byte, 9), make([]byte, 8), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := BitUnshuffle(tt.dst, tt.src, tt.typesize); !errors.Is(err, ErrArgs) {
				t.Fatalf("err = %v, want ErrArgs", err)
			}
		})
	}
}

func FuzzUnshuffle(f *testing.F) {
	f.Add([]byte("0123456789abcdefghijklmnopqrstuvwxyz"), 4)
	f.Add(make([]byte, 130), 16)
	f.Fuzz(func(t *testing.T, src []byte, typesize int) {
		typesize %= 300
		got := make([]byte, len(src))
		Unshuffle(got, src, typesize)
		want := src
		if typesize >= 2 {
			want = refUnshuffle(src, typesize)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("Unshuffle differs from reference")
		}
		err := BitUnshuffle(got, src, typesize)
		if typesize < 1 {
			if err == nil {
				t.Fatal("no error for typesize < 1")
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, refBitUnshuffle(src, typesize)) {
			t.Fatalf("BitUnshuffle differs from reference")
		}
	})
}

// cpuTime returns the CPU time this process has used.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loop runs f under b.Loop and, besides the usual wall-clock MB/s, reports
// cpu-MB/s: bytes per second of CPU time. On a shared machine the CPU is
// oversubscribed and wall-clock figures mostly measure the wait for a
// core; the CPU-time figure is the one-core throughput.
func loop(b *testing.B, n int, f func()) {
	b.SetBytes(int64(n))
	b.ReportAllocs()
	start := cpuTime(b)
	for b.Loop() {
		f()
	}
	if cpu := cpuTime(b) - start; cpu > 0 {
		b.ReportMetric(float64(n)*float64(b.N)/cpu.Seconds()/1e6, "cpu-MB/s")
	}
}

var benchTypesizes = []int{1, 2, 4, 8, 16, 3, 6, 24}

// benchLen is 256 KiB rounded down to a multiple of 8 elements.
func benchLen(ts int) int { return (256 << 10) / (8 * ts) * (8 * ts) }

func BenchmarkCopy(b *testing.B) {
	src := randomBytes(256<<10, 1)
	dst := make([]byte, len(src))
	loop(b, len(src), func() { copy(dst, src) })
}

func BenchmarkUnshuffle(b *testing.B) {
	for _, ts := range benchTypesizes {
		b.Run(fmt.Sprintf("ts%d", ts), func(b *testing.B) {
			src := randomBytes(benchLen(ts), 1)
			dst := make([]byte, len(src))
			loop(b, len(src), func() { Unshuffle(dst, src, ts) })
		})
	}
}

func BenchmarkBitUnshuffle(b *testing.B) {
	for _, ts := range benchTypesizes {
		b.Run(fmt.Sprintf("ts%d", ts), func(b *testing.B) {
			src := randomBytes(benchLen(ts), 1)
			dst := make([]byte, len(src))
			loop(b, len(src), func() {
				if err := BitUnshuffle(dst, src, ts); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}
