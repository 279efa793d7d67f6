package codecs

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"
)

func TestCompressors(t *testing.T) {
	data := signal(200_000)
	empty := []byte{}
	tests := []struct {
		name    string
		config  string
		enc     []byte
		want    []byte
		limit   int
		wantErr error
	}{
		{"zlib", `{"id":"zlib","level":1}`, encodeZlib(t, data), data, len(data), nil},
		{"zlib empty", `{"id":"zlib"}`, encodeZlib(t, empty), empty, 0, nil},
		{"zlib over limit", `{"id":"zlib"}`, encodeZlib(t, data), nil, len(data) - 1, ErrTooLarge},
		{"zlib truncated", `{"id":"zlib"}`, encodeZlib(t, data)[:1000], nil, len(data), ErrCorrupt},
		{"zlib bad checksum", `{"id":"zlib"}`, flipLast(encodeZlib(t, data)), nil, len(data), ErrCorrupt},
		{"zlib empty input", `{"id":"zlib"}`, nil, nil, 10, ErrCorrupt},
		{"gzip", `{"id":"gzip"}`, encodeGzip(t, data), data, len(data), nil},
		{"gzip two members", `{"id":"gzip"}`, append(encodeGzip(t, data[:1000]), encodeGzip(t, data[1000:])...), data, len(data), nil},
		{"gzip zero padding", `{"id":"gzip"}`, append(encodeGzip(t, data), 0, 0, 0), data, len(data), nil},
		{"gzip trailing garbage", `{"id":"gzip"}`, append(encodeGzip(t, data), 1, 2, 3), nil, len(data), ErrCorrupt},
		{"gzip second member over limit", `{"id":"gzip"}`, append(encodeGzip(t, data[:1000]), encodeGzip(t, data[1000:])...), nil, len(data) - 1, ErrTooLarge},
		{"gzip over limit", `{"id":"gzip"}`, encodeGzip(t, data), nil, 100, ErrTooLarge},
		{"gzip garbage", `{"id":"gzip"}`, []byte("not gzip at all"), nil, 100, ErrCorrupt},
		{"zstd", `{"id":"zstd","level":3}`, encodeZstd(t, data, true), data, len(data), nil},
		{"zstd empty", `{"id":"zstd"}`, encodeZstd(t, empty, true), empty, 0, nil},
		{"zstd empty unsized", `{"id":"zstd"}`, encodeZstd(t, empty, false), empty, 0, nil},
		{"zstd no content size", `{"id":"zstd"}`, encodeZstd(t, data, false), data, len(data), nil},
		{"zstd no content size over limit", `{"id":"zstd"}`, encodeZstd(t, data, false), nil, 1000, ErrTooLarge},
		{"zstd two frames", `{"id":"zstd"}`, append(encodeZstd(t, data[:7777], true), encodeZstd(t, data[7777:], false)...), data, len(data), nil},
		{"zstd skippable frame", `{"id":"zstd"}`, append([]byte{0x50, 0x2a, 0x4d, 0x18, 2, 0, 0, 0, 9, 9}, encodeZstd(t, data, true)...), data, len(data), nil},
		{"zstd declared size over limit", `{"id":"zstd"}`, encodeZstd(t, data, true), nil, len(data) - 1, ErrTooLarge},
		{"zstd declared size lies", `{"id":"zstd"}`, zstdLie(encodeZstd(t, data, true)), nil, len(data) * 2, ErrCorrupt},
		{"zstd truncated", `{"id":"zstd"}`, encodeZstd(t, data, true)[:500], nil, len(data), ErrCorrupt},
		{"zstd bad magic", `{"id":"zstd"}`, []byte{1, 2, 3, 4, 5, 6}, nil, 10, ErrCorrupt},
		{"zstd empty input", `{"id":"zstd"}`, nil, nil, 10, ErrCorrupt},
		{"lz4", `{"id":"lz4","acceleration":1}`, encodeLZ4(t, data), data, len(data), nil},
		{"lz4 empty", `{"id":"lz4"}`, []byte{0, 0, 0, 0, 0}, empty, 0, nil},
		{"lz4 size over limit", `{"id":"lz4"}`, encodeLZ4(t, data), nil, len(data) - 1, ErrTooLarge},
		{"lz4 size lies", `{"id":"lz4"}`, lieSize(encodeLZ4(t, data), len(data)+10), nil, len(data) + 10, ErrCorrupt},
		{"lz4 no header", `{"id":"lz4"}`, []byte{1, 0}, nil, 10, ErrCorrupt},
		{"lz4 truncated block", `{"id":"lz4"}`, encodeLZ4(t, data)[:100], nil, len(data), ErrCorrupt},
		{"lz4 huge size", `{"id":"lz4"}`, []byte{0xff, 0xff, 0xff, 0xff, 0}, nil, 1 << 20, ErrTooLarge},
		{"bz2 empty input", `{"id":"bz2"}`, nil, nil, 10, ErrCorrupt},
		{"bz2 garbage", `{"id":"bz2"}`, []byte("BZh9garbage"), nil, 10, ErrCorrupt},
		{"lzf literals and reference", `{"id":"lzf"}`, []byte{2, 'a', 'b', 'c', 0x20, 2}, []byte("abcabc"), 6, nil},
		{"lzf overlapping run", `{"id":"lzf"}`, []byte{0, 'a', 0xe0, 1, 0}, []byte(strings.Repeat("a", 11)), 11, nil},
		{"lzf round trip", `{"id":"lzf"}`, encodeLZF(data), data, len(data), nil},
		{"lzf over limit", `{"id":"lzf"}`, []byte{0, 'a', 0xe0, 1, 0}, nil, 10, ErrTooLarge},
		{"lzf reference before start", `{"id":"lzf"}`, []byte{0, 'a', 0x20, 5}, nil, 10, ErrCorrupt},
		{"lzf truncated literal", `{"id":"lzf"}`, []byte{5, 'a'}, nil, 10, ErrCorrupt},
		{"lzf truncated reference", `{"id":"lzf"}`, []byte{0, 'a', 0xe0}, nil, 10, ErrCorrupt},
		{"lzf empty", `{"id":"lzf"}`, nil, empty, 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := mustCodec(t, tc.config)
			prefix := []byte{7, 7}
			got, err := c.Decode(prefix, tc.enc, tc.limit)
			wantErr(t, err, tc.wantErr)
			if tc.wantErr != nil {
				return
			}
			if !bytes.Equal(got[:2], prefix) || !bytes.Equal(got[2:], tc.want) {
				t.Fatalf("decoded %d bytes, want %d (first difference at %d)", len(got)-2, len(tc.want), firstDiff(got[2:], tc.want))
			}
		})
	}
}

// TestBZ2Corpus checks multi-stream bzip2 on a real numcodecs stream
// concatenated with itself (Go has no bzip2 encoder).
func TestBZ2MultiStream(t *testing.T) {
	enc := readFile(t, corpusDir+"/bz2/codec.00/encoded.00.dat")
	want := readNPY(t, corpusDir+"/bz2/array.00.npy").Data
	c := mustCodec(t, `{"id":"bz2","level":1}`)
	got, err := c.Decode(nil, append(append([]byte(nil), enc...), enc...), 2*len(want))
	wantErr(t, err, nil)
	if !bytes.Equal(got, append(append([]byte(nil), want...), want...)) {
		t.Fatal("two concatenated streams did not decode to the data twice")
	}
	_, err = c.Decode(nil, append(append([]byte(nil), enc...), enc...), 2*len(want)-1)
	wantErr(t, err, ErrTooLarge)
}

// TestZstdContentSize checks the frame walk against frames with and without
// declared sizes.
func TestZstdContentSize(t *testing.T) {
	data := signal(5000)
	sized, unsized := encodeZstd(t, data, true), encodeZstd(t, data, false)
	tests := []struct {
		name  string
		src   []byte
		total uint64
		known bool
		err   error
	}{
		{"sized", sized, 5000, true, nil},
		{"unsized", unsized, 0, false, nil},
		{"two sized", append(append([]byte(nil), sized...), sized...), 10000, true, nil},
		{"sized then unsized", append(append([]byte(nil), sized...), unsized...), 5000, false, nil},
		{"trailing garbage", append(append([]byte(nil), sized...), 1, 2), 0, false, ErrCorrupt},
		{"truncated", sized[:len(sized)-1], 0, false, ErrCorrupt},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			total, known, err := zstdContentSize(tc.src)
			wantErr(t, err, tc.err)
			if tc.err == nil && (total != tc.total || known != tc.known) {
				t.Fatalf("got (%d, %v), want (%d, %v)", total, known, tc.total, tc.known)
			}
		})
	}
}

// zstdLie lowers the content size declared by a frame with a 4-byte size
// field (frame header descriptor 0xa4 or 0x84), leaving the blocks intact.
func zstdLie(b []byte) []byte {
	out := append([]byte(nil), b...)
	out[6] ^= 0x10
	return out
}

func flipLast(b []byte) []byte {
	out := append([]byte(nil), b...)
	out[len(out)-1] ^= 0xff
	return out
}

func lieSize(b []byte, n int) []byte {
	out := append([]byte(nil), b...)
	binary.LittleEndian.PutUint32(out, uint32(n))
	return out
}
