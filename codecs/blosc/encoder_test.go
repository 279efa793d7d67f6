package blosc

import (
	"bytes"
	"encoding/binary"
	"sync"
	"testing"

	"github.com/klauspost/compress/snappy"
	"github.com/klauspost/compress/zlib"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// This file is a minimal test-only blosc *encoder*, written from the format
// description, so that tests can build chunks the corpus lacks (splits,
// leftover blocks, large typesizes, big chunks for benchmarks).

// encOpts says how encodeChunk writes a chunk.
type encOpts struct {
	typesize  int
	blocksize int
	shuffle   int // 0 none, 1 byte, 2 bit
	code      int // compressor code; -1 stores every stream raw
	dontSplit bool
	memcpyed  bool
}

// encodeChunk encodes data as c-blosc 1.x would with opts.
func encodeChunk(t testing.TB, data []byte, o encOpts) []byte {
	t.Helper()
	if o.blocksize > len(data) {
		o.blocksize = len(data) // as c-blosc's compute_blocksize does
	}
	flags := byte(0)
	switch o.shuffle {
	case 1:
		flags |= FlagShuffle
	case 2:
		flags |= FlagBitShuffle
	}
	if o.dontSplit {
		flags |= FlagDontSplit
	}
	code := max(o.code, 0)
	flags |= byte(code) << 5
	hdr := make([]byte, HeaderSize)
	hdr[0], hdr[1], hdr[3] = formatVersion, 1, byte(o.typesize)
	binary.LittleEndian.PutUint32(hdr[4:], uint32(len(data)))
	binary.LittleEndian.PutUint32(hdr[8:], uint32(o.blocksize))
	if o.memcpyed {
		hdr[2] = flags | FlagMemcpyed
		binary.LittleEndian.PutUint32(hdr[12:], uint32(len(data)+HeaderSize))
		return append(hdr, data...)
	}
	hdr[2] = flags
	nblocks := (len(data) + o.blocksize - 1) / o.blocksize
	out := append(hdr, make([]byte, 4*nblocks)...)
	for j := range nblocks {
		binary.LittleEndian.PutUint32(out[HeaderSize+4*j:], uint32(len(out)))
		block := data[j*o.blocksize : min((j+1)*o.blocksize, len(data))]
		out = encodeBlock(t, out, block, len(block) < o.blocksize, flags, o)
	}
	binary.LittleEndian.PutUint32(out[12:], uint32(len(out)))
	return out
}

func encodeBlock(t testing.TB, out, block []byte, leftover bool, flags byte, o encOpts) []byte {
	ts := o.typesize
	shuffled := block
	switch {
	case flags&FlagShuffle != 0 && ts > 1:
		shuffled = refShuffle(block, ts)
	case flags&FlagBitShuffle != 0 && len(block) >= ts:
		shuffled = refBitShuffle(block, ts)
	}
	nsplits := 1
	if flags&FlagDontSplit == 0 && ts <= maxSplits && len(block)/ts >= minBufferSize && !leftover {
		nsplits = ts
	}
	neblock := len(block) / nsplits
	for s := range nsplits {
		in := shuffled[s*neblock : (s+1)*neblock]
		c := compressStream(t, o.code, in)
		if c == nil || len(c) >= len(in) {
			c = in // blosc stores a stream raw when compression does not pay
		}
		out = binary.LittleEndian.AppendUint32(out, uint32(len(c)))
		out = append(out, c...)
	}
	return out
}

// compressStream compresses one stream, or returns nil when it will not.
func compressStream(t testing.TB, code int, in []byte) []byte {
	t.Helper()
	switch code {
	case -1:
		return nil
	case codeBlosclz:
		return blosclzEncode(in)
	case codeLZ4:
		buf := make([]byte, lz4.CompressBlockBound(len(in)))
		n, err := lz4.CompressBlock(in, buf, nil)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return nil
		}
		return buf[:n]
	case codeSnappy:
		return snappy.Encode(nil, in)
	case codeZlib:
		var b bytes.Buffer
		w := zlib.NewWriter(&b)
		if _, err := w.Write(in); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	case codeZstd:
		enc, err := testZstd()
		if err != nil {
			t.Fatal(err)
		}
		return enc.EncodeAll(in, nil)
	}
	t.Fatalf("no test encoder for compressor code %d", code)
	return nil
}

// testZstd is one encoder shared by the tests: creating one is slow.
var testZstd = sync.OnceValues(func() (*zstd.Encoder, error) {
	return zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
})

// blosclzEncode is a naive greedy blosclz encoder: a 3-byte hash table of
// last positions, literal runs of up to 32 bytes, near and far matches.
func blosclzEncode(in []byte) []byte {
	if len(in) == 0 {
		return nil
	}
	var out, lit []byte
	flush := func() {
		for len(lit) > 0 {
			n := min(len(lit), 32)
			out = append(out, byte(n-1))
			out = append(out, lit[:n]...)
			lit = lit[n:]
		}
	}
	last := map[uint32]int{}
	const maxFar = maxDistance + 1<<16 // largest distance + 1
	i := 0
	for i < len(in) {
		if i == 0 || i+3 > len(in) {
			lit = append(lit, in[i])
			i++
			continue
		}
		key := uint32(in[i]) | uint32(in[i+1])<<8 | uint32(in[i+2])<<16
		p, ok := last[key]
		last[key] = i
		if !ok || i-p >= maxFar {
			lit = append(lit, in[i])
			i++
			continue
		}
		n := 3
		for i+n < len(in) && in[p+n] == in[i+n] {
			n++
		}
		flush()
		out = appendMatch(out, n, i-p)
		i += n
	}
	flush()
	out[0] |= 1 << 5 // blosclz format marker on the first control byte
	return out
}

// appendMatch appends the encoding of a match of length n >= 3 starting
// dist bytes back.
func appendMatch(out []byte, n, dist int) []byte {
	d := dist - 1
	far := d >= maxDistance
	ofs := d >> 8
	if far {
		ofs = 31
	}
	l := n - 2
	if l < 7 {
		out = append(out, byte(l<<5|ofs))
	} else {
		out = append(out, byte(7<<5|ofs))
		for l -= 7; l >= 255; l -= 255 {
			out = append(out, 255)
		}
		out = append(out, byte(l))
	}
	if far {
		d -= maxDistance
		return append(out, 255, byte(d>>8), byte(d))
	}
	return append(out, byte(d))
}

// refShuffle is blosc's byte shuffle, written the obvious way.
func refShuffle(src []byte, ts int) []byte {
	dst := bytes.Clone(src)
	n := len(src) / ts
	for i := range n {
		for j := range ts {
			dst[j*n+i] = src[i*ts+j]
		}
	}
	return dst
}

// refBitShuffle is c-blosc 1.x's bit shuffle, bit by bit: only when the
// element count is a multiple of 8, trailing bytes copied.
func refBitShuffle(src []byte, ts int) []byte {
	n := len(src) / ts
	if n%8 != 0 {
		return bytes.Clone(src)
	}
	dst := make([]byte, len(src))
	copy(dst[n*ts:], src[n*ts:])
	nb := n / 8
	for i := range n {
		for j := range ts {
			for k := range 8 {
				bit := src[i*ts+j] >> k & 1
				dst[(j*8+k)*nb+i/8] |= bit << (i % 8)
			}
		}
	}
	return dst
}
