package codecs

import (
	"encoding/binary"
	"hash/adler32"
	"hash/crc32"
	"sync"
)

// checksumCodec verifies a 4-byte little-endian checksum stored before
// (atStart) or after the payload, then yields the payload: numcodecs crc32
// and adler32 (start by default) and crc32c (end by default).
type checksumCodec struct {
	id      string
	atStart bool
	sum     func([]byte) uint32
}

// castagnoli is the CRC-32C table, made on first use: making it at init
// cost every lindi command 0.2 ms.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// newChecksum builds a checksum codec honouring the optional "location".
func newChecksum(id string, atStart bool, sum func([]byte) uint32) func([]byte) (Codec, error) {
	return func(config []byte) (Codec, error) {
		var cfg struct {
			Location *string `json:"location"`
		}
		if err := parseConfig(id, config, &cfg); err != nil {
			return nil, err
		}
		c := &checksumCodec{id: id, atStart: atStart, sum: sum}
		if cfg.Location != nil {
			switch *cfg.Location {
			case "start":
				c.atStart = true
			case "end":
				c.atStart = false
			default:
				return nil, errConfig(id, "location %q is neither \"start\" nor \"end\"", *cfg.Location)
			}
		}
		return c, nil
	}
}

func crc32Sum(b []byte) uint32   { return crc32.ChecksumIEEE(b) }
func crc32cSum(b []byte) uint32  { return crc32.Checksum(b, castagnoli()) }
func adler32Sum(b []byte) uint32 { return adler32.Checksum(b) }

func (c *checksumCodec) Decode(dst, src []byte, limit int) ([]byte, error) {
	if len(src) < 4 {
		return dst, errCorrupt(c.id, "input of %d bytes cannot hold a checksum", len(src))
	}
	payload, stored := src[:len(src)-4], src[len(src)-4:]
	if c.atStart {
		stored, payload = src[:4], src[4:]
	}
	if len(payload) > limit {
		return dst, errTooLarge(c.id, limit)
	}
	want := binary.LittleEndian.Uint32(stored)
	if got := c.sum(payload); got != want {
		return dst, errCorrupt(c.id, "checksum %#08x, stored %#08x", got, want)
	}
	return append(dst, payload...), nil
}

func (c *checksumCodec) MaxEncodedLen(n int) int { return n + 4 }

// fletcher32Codec verifies the HDF5 Fletcher-32 checksum stored after the
// payload, as the HDF5 filter and numcodecs "fletcher32" write it.
type fletcher32Codec struct{}

func (fletcher32Codec) Decode(dst, src []byte, limit int) ([]byte, error) {
	const id = "fletcher32"
	if len(src) < 4 {
		return dst, errCorrupt(id, "input of %d bytes cannot hold a checksum", len(src))
	}
	payload := src[:len(src)-4]
	if len(payload) > limit {
		return dst, errTooLarge(id, limit)
	}
	stored := binary.LittleEndian.Uint32(src[len(src)-4:])
	got := fletcher32(payload)
	// HDF5 before 1.6.3 stored the two 16-bit sums byte-swapped on
	// little-endian machines; HDF5 still accepts that value.
	legacy := (got&0x00ff00ff)<<8 | (got>>8)&0x00ff00ff
	if stored != got && stored != legacy {
		return dst, errCorrupt(id, "checksum %#08x, stored %#08x", got, stored)
	}
	return append(dst, payload...), nil
}

func (fletcher32Codec) MaxEncodedLen(n int) int { return n + 4 }

// fletcher32 is HDF5's Fletcher checksum over big-endian 16-bit words, an odd
// last byte padded with zero, with sums folded every 360 words so that the
// 32-bit accumulators cannot overflow.
func fletcher32(b []byte) uint32 {
	var sum1, sum2 uint32
	words := len(b) / 2
	for words > 0 {
		n := min(words, 360)
		words -= n
		block := b[:2*n]
		for k := 0; k+1 < len(block); k += 2 {
			sum1 += uint32(block[k])<<8 | uint32(block[k+1])
			sum2 += sum1
		}
		b = b[2*n:]
		sum1 = sum1&0xffff + sum1>>16
		sum2 = sum2&0xffff + sum2>>16
	}
	if len(b) == 1 {
		sum1 += uint32(b[0]) << 8
		sum2 += sum1
		sum1 = sum1&0xffff + sum1>>16
		sum2 = sum2&0xffff + sum2>>16
	}
	sum1 = sum1&0xffff + sum1>>16
	sum2 = sum2&0xffff + sum2>>16
	return sum2<<16 | sum1
}
