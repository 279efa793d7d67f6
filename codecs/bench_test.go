package codecs

import (
	"fmt"
	"strings"
	"testing"
)

// benchSizes are realistic chunk sizes.
var benchSizes = []int{64 << 10, 1 << 20, 8 << 20}

func sizeName(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%dMiB", n>>20)
	}
	return fmt.Sprintf("%dKiB", n>>10)
}

// benchDecode measures c decoding enc to n bytes into a reused buffer.
func benchDecode(b *testing.B, c Codec, enc []byte, n int) {
	b.Helper()
	dst, err := c.Decode(nil, enc, n)
	if err != nil || len(dst) != n {
		b.Fatalf("decoded %d bytes, want %d: %v", len(dst), n, err)
	}
	b.SetBytes(int64(n))
	b.ReportAllocs()
	for b.Loop() {
		if dst, err = c.Decode(dst[:0], enc, n); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCopy is the baseline: copy() of the decoded size.
func BenchmarkCopy(b *testing.B) {
	for _, n := range benchSizes {
		b.Run(sizeName(n), func(b *testing.B) {
			src, dst := signal(n), make([]byte, n)
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				copy(dst, src)
			}
		})
	}
}

func BenchmarkCompressors(b *testing.B) {
	encoders := []struct {
		config string
		encode func(testing.TB, []byte) []byte
	}{
		{`{"id":"zlib"}`, encodeZlib},
		{`{"id":"gzip"}`, encodeGzip},
		{`{"id":"zstd"}`, func(t testing.TB, p []byte) []byte { return encodeZstd(t, p, true) }},
		{`{"id":"lz4"}`, encodeLZ4},
		{`{"id":"lzf"}`, func(_ testing.TB, p []byte) []byte { return encodeLZF(p) }},
	}
	for _, e := range encoders {
		c := mustCodec(b, e.config)
		id, _ := configID([]byte(e.config))
		for _, n := range benchSizes {
			b.Run(id+"/"+sizeName(n), func(b *testing.B) {
				data := shuffleBytes(signal(n), 2)
				benchDecode(b, c, e.encode(b, data), n)
			})
		}
	}
}

// BenchmarkZstdUnsized decodes frames without a declared size (streaming
// path).
func BenchmarkZstdUnsized(b *testing.B) {
	c := mustCodec(b, `{"id":"zstd"}`)
	for _, n := range benchSizes {
		b.Run(sizeName(n), func(b *testing.B) {
			benchDecode(b, c, encodeZstd(b, signal(n), false), n)
		})
	}
}

// BenchmarkBZ2 decodes numcodecs bzip2 streams concatenated up to the size
// (Go has no bzip2 encoder).
func BenchmarkBZ2(b *testing.B) {
	c := mustCodec(b, `{"id":"bz2"}`)
	enc := readFile(b, corpusDir+"/bz2/codec.02/encoded.01.dat")
	one := len(readNPY(b, corpusDir+"/bz2/array.01.npy").Data)
	for _, n := range benchSizes[:2] {
		b.Run(sizeName(n), func(b *testing.B) {
			var src []byte
			for range n / one {
				src = append(src, enc...)
			}
			benchDecode(b, c, src, n/one*one)
		})
	}
}

func BenchmarkFilters(b *testing.B) {
	filters := []struct {
		name, config string
		encode       func(n int) ([]byte, int) // encoded bytes, decoded size
	}{
		{"shuffle2", `{"id":"shuffle","elementsize":2}`, func(n int) ([]byte, int) { return shuffleBytes(signal(n), 2), n }},
		{"shuffle8", `{"id":"shuffle","elementsize":8}`, func(n int) ([]byte, int) { return shuffleBytes(signal(n), 8), n }},
		{"delta-i2", `{"id":"delta","dtype":"<i2"}`, func(n int) ([]byte, int) { return signal(n), n }},
		{"delta-i4-as-i1", `{"id":"delta","dtype":"<i4","astype":"|i1"}`, func(n int) ([]byte, int) { return signal(n / 4), n / 4 * 4 }},
		{"astype-i2-f8", `{"id":"astype","encode_dtype":"<i2","decode_dtype":"<f8"}`, func(n int) ([]byte, int) { return signal(n / 4), n / 4 * 4 }},
		{"quantize-f4-f8", `{"id":"quantize","digits":3,"dtype":"<f8","astype":"<f4"}`, func(n int) ([]byte, int) { return signal(n / 2), n / 2 * 2 }},
		{"fixedscaleoffset-i2-f8", `{"id":"fixedscaleoffset","scale":100,"offset":5,"dtype":"<f8","astype":"<i2"}`, func(n int) ([]byte, int) { return signal(n / 4), n / 4 * 4 }},
		{"bitround", `{"id":"bitround","keepbits":8}`, func(n int) ([]byte, int) { return signal(n), n }},
		{"packbits", `{"id":"packbits"}`, func(n int) ([]byte, int) { return append([]byte{0}, signal(n/8)...), n / 8 * 8 }},
		{"categorize", `{"id":"categorize","labels":["ab","cd","ef"],"dtype":"<U2","astype":"|u1"}`, func(n int) ([]byte, int) { return signal(n / 8), n / 8 * 8 }},
		{"crc32", `{"id":"crc32","location":"end"}`, func(n int) ([]byte, int) { return withChecksum(signal(n), crc32Sum(signal(n))), n }},
		{"crc32c", `{"id":"crc32c"}`, func(n int) ([]byte, int) { return withChecksum(signal(n), crc32cSum(signal(n))), n }},
		{"adler32", `{"id":"adler32","location":"end"}`, func(n int) ([]byte, int) { return withChecksum(signal(n), adler32Sum(signal(n))), n }},
		{"fletcher32", `{"id":"fletcher32"}`, func(n int) ([]byte, int) { return withChecksum(signal(n), fletcher32(signal(n))), n }},
	}
	for _, f := range filters {
		c := mustCodec(b, f.config)
		for _, n := range benchSizes {
			b.Run(f.name+"/"+sizeName(n), func(b *testing.B) {
				enc, size := f.encode(n)
				benchDecode(b, c, enc, size)
			})
		}
	}
}

// BenchmarkPipeline decodes zlib and zstd with a byte shuffle, the common
// Zarr and HDF5 setups.
func BenchmarkPipeline(b *testing.B) {
	for _, comp := range []string{"zlib", "zstd", "lz4"} {
		p, err := Builtin().Pipeline([]byte(`{"id":"`+comp+`"}`), configs(`{"id":"shuffle","elementsize":2}`))
		if err != nil {
			b.Fatal(err)
		}
		for _, n := range benchSizes {
			b.Run(comp+"+shuffle/"+sizeName(n), func(b *testing.B) {
				data := shuffleBytes(signal(n), 2)
				var enc []byte
				switch comp {
				case "zlib":
					enc = encodeZlib(b, data)
				case "zstd":
					enc = encodeZstd(b, data, true)
				default:
					enc = encodeLZ4(b, data)
				}
				dst, err := p.Decode(nil, enc, n)
				if err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(n))
				b.ReportAllocs()
				for b.Loop() {
					if dst, err = p.Decode(dst[:0], enc, n); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkObjects decodes string chunks; throughput is of the encoding.
func BenchmarkObjects(b *testing.B) {
	words := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu")
	for _, n := range benchSizes[:2] {
		var items [][]byte
		var js strings.Builder
		js.WriteString("[")
		for size := 0; size < n; {
			w := words[len(items)%len(words)]
			items = append(items, []byte(w))
			fmt.Fprintf(&js, "%q,", w)
			size += len(w) + 4
		}
		fmt.Fprintf(&js, "%q,[%d]]", "|O", len(items))
		encs := map[string][]byte{"vlen-utf8": vlen(items...), "vlen-bytes": vlen(items...), "json2": []byte(js.String())}
		for _, id := range []string{"vlen-utf8", "vlen-bytes", "json2"} {
			c := mustNew(b, `{"id":"`+id+`"}`).(ObjectCodec)
			b.Run(id+"/"+sizeName(n), func(b *testing.B) {
				enc := encs[id]
				b.SetBytes(int64(len(enc)))
				b.ReportAllocs()
				for b.Loop() {
					if _, err := c.DecodeObjects(enc, len(items)); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
