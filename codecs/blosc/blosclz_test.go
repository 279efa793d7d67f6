package blosc

import (
	"bytes"
	"testing"
)

func TestBlosclzDecode(t *testing.T) {
	long := bytes.Repeat([]byte("ab"), 200)
	tests := []struct {
		name string
		src  []byte
		want []byte
	}{
		{"literal, marker ignored", []byte{0x20 | 2, 'a', 'b', 'c'}, []byte("abc")},
		{"two literals", []byte{0x20 | 1, 'a', 'b', 0, 'c'}, []byte("abc")},
		{"run", []byte{0x20, 'a', 3 << 5, 0}, []byte("aaaaaa")},
		{"match at distance 2", []byte{0x21, 'a', 'b', 1 << 5, 1}, []byte("ababa")},
		{"match then literal", []byte{0x21, 'a', 'b', 1 << 5, 1, 0, 'z'}, []byte("ababaz")},
		{"extended length", append([]byte{0x21, 'a', 'b', 7 << 5, 255, 134, 1}, 0, '!'), append(bytes.Clone(long), '!')},
		{"near distance with high bits", nearMatch(), nearMatchWant()},
		{"far distance", farMatch(), farMatchWant()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := make([]byte, len(tt.want))
			if err := blosclzDecode(got, tt.src); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, tt.want) {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// literals emits data as literal runs.
func literals(data []byte) []byte {
	var out []byte
	for len(data) > 0 {
		n := min(len(data), 32)
		out = append(out, byte(n-1))
		out = append(out, data[:n]...)
		data = data[n:]
	}
	return out
}

func pattern(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i/251)
	}
	return b
}

// nearMatch copies 8 bytes from 1000 back: distance 1000 = 3<<8 + 231 + 1.
func nearMatch() []byte { return append(literals(pattern(1000)), (8-2)<<5|3, 231) }
func nearMatchWant() []byte {
	p := pattern(1000)
	return append(p, p[:8]...)
}

// farMatch copies 5 bytes from 9000 back: 9000 = 808 + 8191 + 1.
func farMatch() []byte {
	return append(literals(pattern(9000)), (5-2)<<5|31, 255, 808>>8, 808&255)
}
func farMatchWant() []byte {
	p := pattern(9000)
	return append(p, p[:5]...)
}

func TestBlosclzDecodeErrors(t *testing.T) {
	tests := []struct {
		name string
		src  []byte
		n    int
	}{
		{"empty", nil, 1},
		{"literal past input", []byte{5, 'a'}, 6},
		{"literal past output", []byte{5, 1, 2, 3, 4, 5, 6}, 3},
		{"match before start", []byte{0, 'a', 1 << 5, 5}, 4},
		{"match past output", []byte{0, 'a', 3 << 5, 0}, 3},
		{"length truncated", []byte{0, 'a', 7 << 5}, 100},
		{"length truncated in 255s", []byte{0, 'a', 7 << 5, 255}, 1000},
		{"distance truncated", []byte{0, 'a', 1 << 5}, 4},
		{"far distance truncated", []byte{0, 'a', 1<<5 | 31, 255, 0}, 4},
		{"output short", []byte{1, 'a', 'b'}, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := blosclzDecode(make([]byte, tt.n), tt.src); err == nil {
				t.Fatal("no error")
			}
		})
	}
}

// TestBlosclzEncoder checks the test encoder against the decoder over
// inputs that exercise runs, near and far matches and long lengths.
func TestBlosclzEncoder(t *testing.T) {
	inputs := map[string][]byte{
		"zeros":   make([]byte, 100000),
		"pattern": pattern(100000),
		"data":    testData(200000, 9),
		"far":     append(append(pattern(20000), testData(50000, 1)...), pattern(20000)...),
		"one":     {42},
	}
	for name, in := range inputs {
		t.Run(name, func(t *testing.T) {
			enc := blosclzEncode(in)
			got := make([]byte, len(in))
			if err := blosclzDecode(got, enc); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, in) {
				t.Fatal("round trip differs")
			}
			t.Logf("%d -> %d bytes", len(in), len(enc))
		})
	}
}

func TestCopyMatch(t *testing.T) {
	for dist := 1; dist < 20; dist++ {
		for n := 0; n < 100; n += 7 {
			b := append(pattern(dist), make([]byte, n)...)
			want := bytes.Clone(b)
			for i := dist; i < len(want); i++ {
				want[i] = want[i-dist]
			}
			copyMatch(b, dist)
			if !bytes.Equal(b, want) {
				t.Fatalf("dist %d n %d: got %v, want %v", dist, n, b, want)
			}
		}
	}
}
