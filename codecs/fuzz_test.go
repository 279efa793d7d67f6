package codecs

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/pierrec/lz4/v4"
)

// corpusSeeds returns the encoded files of the corpus folders ids.
func corpusSeeds(f *testing.F, ids ...string) [][]byte {
	f.Helper()
	var seeds [][]byte
	for _, id := range ids {
		paths, _ := filepath.Glob(filepath.Join(corpusDir, id, "codec.*", "encoded.*.dat"))
		for _, p := range paths {
			seeds = append(seeds, readFile(f, p))
		}
	}
	return seeds
}

// fuzzLimit keeps fuzzed limits small enough to be cheap.
const fuzzLimit = 1 << 18

// checkDecode is the contract every Codec keeps on any input: no panic, a
// result within the limit, an error wrapping ErrCorrupt or ErrTooLarge with
// dst's length preserved.
func checkDecode(t *testing.T, c Codec, src []byte, limit int) []byte {
	t.Helper()
	prefix := []byte{0xaa, 0xbb}
	out, err := c.Decode(prefix, src, limit)
	if err != nil {
		if !errors.Is(err, ErrCorrupt) && !errors.Is(err, ErrTooLarge) {
			t.Fatalf("error %v wraps neither ErrCorrupt nor ErrTooLarge", err)
		}
		if len(out) != len(prefix) {
			t.Fatalf("failed Decode returned %d bytes, want %d", len(out), len(prefix))
		}
		return nil
	}
	if !bytes.Equal(out[:2], prefix) {
		t.Fatal("Decode changed dst's bytes")
	}
	if len(out)-len(prefix) > limit {
		t.Fatalf("decoded %d bytes, limit %d", len(out)-len(prefix), limit)
	}
	return out[len(prefix):]
}

// fuzzCodec fuzzes one codec configuration from seeds.
func fuzzCodec(f *testing.F, config string, seeds [][]byte) {
	c := mustCodec(f, config)
	for _, s := range seeds {
		f.Add(s, uint32(1<<20))
		f.Add(s, uint32(len(s)))
	}
	f.Fuzz(func(t *testing.T, src []byte, limit uint32) {
		checkDecode(t, c, src, int(limit%fuzzLimit))
	})
}

func FuzzZlib(f *testing.F) {
	fuzzCodec(f, `{"id":"zlib"}`, append(corpusSeeds(f, "zlib"), encodeZlib(f, signal(3000))))
}

func FuzzGzip(f *testing.F) {
	fuzzCodec(f, `{"id":"gzip"}`, append(corpusSeeds(f, "gzip"), encodeGzip(f, signal(3000))))
}

func FuzzZstd(f *testing.F) {
	fuzzCodec(f, `{"id":"zstd"}`, append(corpusSeeds(f, "zstd"), encodeZstd(f, signal(3000), false)))
}

func FuzzLZ4(f *testing.F) {
	fuzzCodec(f, `{"id":"lz4"}`, corpusSeeds(f, "lz4"))
}

func FuzzBZ2(f *testing.F) {
	fuzzCodec(f, `{"id":"bz2"}`, corpusSeeds(f, "bz2"))
}

func FuzzBlosc(f *testing.F) {
	fuzzCodec(f, `{"id":"blosc"}`, corpusSeeds(f, "blosc"))
}

// FuzzLZF also checks that whatever the test encoder writes decodes back.
func FuzzLZF(f *testing.F) {
	c := mustCodec(f, `{"id":"lzf"}`)
	f.Add([]byte{2, 'a', 'b', 'c', 0x20, 2}, []byte("hello hello hello"))
	f.Add(encodeLZF(signal(5000)), signal(300))
	f.Fuzz(func(t *testing.T, src, plain []byte) {
		checkDecode(t, c, src, fuzzLimit)
		got := checkDecode(t, c, encodeLZF(plain), len(plain))
		if !bytes.Equal(got, plain) {
			t.Fatalf("round trip of %d bytes failed", len(plain))
		}
	})
}

// FuzzChecksums feeds the same bytes to every checksum codec.
func FuzzChecksums(f *testing.F) {
	ids := []string{`{"id":"crc32"}`, `{"id":"adler32"}`, `{"id":"crc32c"}`, `{"id":"fletcher32"}`}
	codecs := make([]Codec, len(ids))
	for i, id := range ids {
		codecs[i] = mustCodec(f, id)
	}
	for _, s := range corpusSeeds(f, "crc32", "adler32", "crc32c") {
		f.Add(s)
	}
	f.Add(withChecksum([]byte("badcfe"), 0x56502d2a))
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, c := range codecs {
			if out := checkDecode(t, c, src, fuzzLimit); out != nil && len(out) != len(src)-4 {
				t.Fatalf("checksum codec kept %d of %d bytes", len(out), len(src))
			}
		}
	})
}

// FuzzFletcher32 checks that a correct checksum, in either byte order,
// always verifies and a wrong one never does.
func FuzzFletcher32(f *testing.F) {
	c := mustCodec(f, `{"id":"fletcher32"}`)
	f.Add([]byte("badcfe"), uint32(0))
	f.Add(signal(1000), uint32(1))
	f.Fuzz(func(t *testing.T, data []byte, flip uint32) {
		sum := fletcher32(data)
		if _, err := c.Decode(nil, withChecksum(data, sum), len(data)); err != nil {
			t.Fatalf("correct checksum rejected: %v", err)
		}
		legacy := (sum&0x00ff00ff)<<8 | (sum>>8)&0x00ff00ff
		if _, err := c.Decode(nil, withChecksum(data, legacy), len(data)); err != nil {
			t.Fatalf("legacy checksum rejected: %v", err)
		}
		if wrong := sum ^ flip; flip != 0 && wrong != legacy {
			if _, err := c.Decode(nil, withChecksum(data, wrong), len(data)); !errors.Is(err, ErrCorrupt) {
				// 0x0000 and 0xffff are the same sum modulo 65535.
				if !equalMod65535(wrong, sum) && !equalMod65535(wrong, legacy) {
					t.Fatalf("wrong checksum %#08x (right %#08x) accepted: %v", wrong, sum, err)
				}
			}
		}
	})
}

// equalMod65535 reports whether two Fletcher sums are the same modulo 65535
// in both halves.
func equalMod65535(a, b uint32) bool {
	return (a>>16)%65535 == (b>>16)%65535 && (a&0xffff)%65535 == (b&0xffff)%65535
}

// FuzzFilters runs the arithmetic filters over arbitrary bytes.
func FuzzFilters(f *testing.F) {
	configs := []string{
		`{"id":"shuffle","elementsize":3}`,
		`{"id":"delta","dtype":"<i4","astype":"|i1"}`,
		`{"id":"delta","dtype":">f4"}`,
		`{"id":"delta","dtype":"<i8","astype":"<f2"}`,
		`{"id":"astype","encode_dtype":"<f2","decode_dtype":"<u2"}`,
		`{"id":"astype","encode_dtype":"<f8","decode_dtype":"|i1"}`,
		`{"id":"fixedscaleoffset","scale":0,"offset":1,"dtype":"<i2","astype":"|u1"}`,
		`{"id":"quantize","digits":3,"dtype":"<f8","astype":"<f2"}`,
		`{"id":"packbits"}`,
		`{"id":"categorize","labels":["a","bb"],"dtype":"<U2","astype":"<i2"}`,
		`{"id":"bitround","keepbits":2}`,
	}
	codecs := make([]Codec, len(configs))
	for i, config := range configs {
		codecs[i] = mustCodec(f, config)
	}
	for _, s := range corpusSeeds(f, "packbits", "shuffle", "fixedscaleoffset") {
		f.Add(s, uint32(1<<20))
	}
	f.Fuzz(func(t *testing.T, src []byte, limit uint32) {
		for _, c := range codecs {
			checkDecode(t, c, src, int(limit%fuzzLimit))
		}
	})
}

// FuzzVLen runs the variable-length codecs over arbitrary bytes.
func FuzzVLen(f *testing.F) {
	var codecs []ObjectCodec
	for _, config := range []string{`{"id":"vlen-utf8"}`, `{"id":"vlen-bytes"}`, `{"id":"vlen-array","dtype":"<i4"}`, `{"id":"categorize","labels":["x"],"dtype":"|O","astype":"|u1"}`} {
		codecs = append(codecs, mustNew(f, config).(ObjectCodec))
	}
	for _, s := range corpusSeeds(f, "vlen-utf8", "vlen-bytes") {
		f.Add(s, int16(-1))
	}
	f.Fuzz(func(t *testing.T, src []byte, n int16) {
		for _, c := range codecs {
			items, err := c.DecodeObjects(src, int(n))
			if err != nil && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			if err == nil && n >= 0 && len(items) != int(n) {
				t.Fatalf("%d items, want %d", len(items), n)
			}
		}
	})
}

// FuzzJSON2 checks the tolerant parser against encoding/json on every input
// both accept, besides the no-panic contract.
func FuzzJSON2(f *testing.F) {
	j2 := mustNew(f, `{"id":"json2"}`).(ObjectCodec)
	j1 := mustNew(f, `{"id":"json"}`).(ObjectCodec)
	for _, s := range corpusSeeds(f, "json2") {
		f.Add(s)
	}
	f.Add([]byte(`[NaN,-Infinity,{"a":[1,2.5e3]},"\u00e9","|O",[4]]`))
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, c := range []ObjectCodec{j2, j1} {
			if _, err := c.DecodeObjects(src, -1); err != nil && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
		}
		mine, err := parseJSON("json2", src)
		if !json.Valid(src) {
			return
		}
		if err != nil {
			t.Fatalf("valid JSON rejected: %v", err)
		}
		d := json.NewDecoder(bytes.NewReader(src))
		d.UseNumber()
		var std any
		if err := d.Decode(&std); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(mine, std) {
			t.Fatalf("parsed %#v, encoding/json %#v", mine, std)
		}
	})
}

// h5PluginFrame builds the framing the HDF5-LZ4 and bitshuffle-LZ4 filters
// share: size, block size, then each block's length and LZ4 block.
func h5PluginFrame(t testing.TB, plain []byte, block int) []byte {
	out := binary.BigEndian.AppendUint64(nil, uint64(len(plain)))
	out = binary.BigEndian.AppendUint32(out, uint32(block))
	for off := 0; off < len(plain); off += block {
		b := plain[off:min(off+block, len(plain))]
		dst := make([]byte, lz4.CompressBlockBound(len(b)))
		n, err := lz4.CompressBlock(b, dst, nil)
		if err != nil {
			t.Fatal(err)
		}
		out = binary.BigEndian.AppendUint32(out, uint32(n))
		out = append(out, dst[:n]...)
	}
	return out
}

// FuzzH5Plugins feeds the same bytes to the decoders of the HDF5 plugin
// filters (HDF5-LZ4, bitshuffle with and without LZ4).
func FuzzH5Plugins(f *testing.F) {
	ids := []string{`{"id":"imagecodecs_lz4h5"}`, `{"id":"hdf5_bitshuffle_lz4","itemsize":2}`,
		`{"id":"imagecodecs_bitshuffle","itemsize":4,"blocksize":16}`}
	cs := make([]Codec, len(ids))
	for i, id := range ids {
		cs[i] = mustCodec(f, id)
	}
	f.Add(h5PluginFrame(f, signal(3000), 1024))
	f.Add(h5PluginFrame(f, signal(64), 16))
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, c := range cs {
			checkDecode(t, c, src, fuzzLimit)
		}
	})
}
