package blosc

import (
	"bytes"
	"os"
	"testing"
)

// FuzzDecode feeds Decode the numcodecs corpus, the Zarr fixture's chunks
// and test-encoder chunks, mutated. Decode must never panic, never exceed
// its limit, and anything it accepts must be exactly nbytes long.
func FuzzDecode(f *testing.F) {
	for _, name := range corpusFiles(f) {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, code := range []int{-1, codeBlosclz, codeLZ4, codeSnappy, codeZlib, codeZstd} {
		for _, shuf := range []int{0, 1, 2} {
			data := testData(2000+code*8, uint64(shuf))
			f.Add(encodeChunk(f, data, encOpts{typesize: 4, blocksize: 512, shuffle: shuf, code: code}))
		}
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		const limit = 1 << 20
		got, err := Decode([]byte("p"), src, limit)
		if err != nil {
			if !bytes.Equal(got, []byte("p")) {
				t.Fatalf("dst changed on error %v", err)
			}
			return
		}
		h, herr := ParseHeader(src)
		if herr != nil {
			t.Fatalf("Decode accepted what ParseHeader rejects: %v", herr)
		}
		if len(got)-1 != h.NBytes || h.NBytes > limit {
			t.Fatalf("decoded %d bytes, header says %d", len(got)-1, h.NBytes)
		}
	})
}

// FuzzBlosclz checks that the blosclz decoder inverts the test encoder on
// any input, and that decoding arbitrary bytes fails cleanly.
func FuzzBlosclz(f *testing.F) {
	f.Add([]byte("abcabcabcabcabc"), 20)
	f.Add(testData(3000, 1), 3000)
	f.Add(append(pattern(9000), pattern(100)...), 9100)
	f.Fuzz(func(t *testing.T, data []byte, n int) {
		if len(data) > 0 {
			enc := blosclzEncode(data)
			got := make([]byte, len(data))
			if err := blosclzDecode(got, enc); err != nil {
				t.Fatalf("round trip: %v", err)
			}
			if !bytes.Equal(got, data) {
				t.Fatal("round trip differs")
			}
		}
		if n >= 0 && n < 1<<16 {
			_ = blosclzDecode(make([]byte, n), data)
		}
	})
}
