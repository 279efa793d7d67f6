package inflate

import (
	"encoding/binary"
	"hash/crc32"
	"io"
)

// Zlib decodes the zlib stream (RFC 1950) at the start of src and appends it
// to dst, decoding at most limit bytes (more is ErrTooLarge), and checks its
// Adler-32. Bytes after the stream are ignored. Like Inflate, it uses dst's
// spare capacity as it is and grows the buffer beyond it only up to the
// limit.
func Zlib(dst, src []byte, limit int) ([]byte, error) {
	if len(src) < 2 {
		return dst, io.ErrUnexpectedEOF
	}
	cmf, flg := src[0], src[1]
	switch {
	case cmf&0x0f != 8:
		return dst, corrupt("zlib header: compression method is not deflate")
	case cmf>>4 > 7:
		return dst, corrupt("zlib header: window larger than 32 KiB")
	case binary.BigEndian.Uint16(src)%31 != 0:
		return dst, corrupt("zlib header: check bits do not match")
	case flg&0x20 != 0:
		return dst, corrupt("zlib header: a preset dictionary is required")
	}
	start := len(dst)
	out, n, err := Inflate(dst, src[2:], limit)
	if err != nil {
		return dst, err
	}
	tail := src[2+n:]
	if len(tail) < 4 {
		return dst, io.ErrUnexpectedEOF
	}
	if adler(out[start:]) != binary.BigEndian.Uint32(tail) {
		return dst, corrupt("zlib checksum mismatch")
	}
	return out, nil
}

// Gzip decodes the gzip member (RFC 1952) at the start of src and appends it
// to dst, decoding at most limit bytes (more is ErrTooLarge), and checks its
// CRC-32 and size. It returns how many bytes of src the member took.
func Gzip(dst, src []byte, limit int) ([]byte, int, error) {
	h, err := gzipHeader(src)
	if err != nil {
		return dst, 0, err
	}
	start := len(dst)
	out, n, err := Inflate(dst, src[h:], limit)
	if err != nil {
		return dst, 0, err
	}
	end := h + n + 8
	if end > len(src) {
		return dst, 0, io.ErrUnexpectedEOF
	}
	tail := src[h+n:]
	if crc32.ChecksumIEEE(out[start:]) != binary.LittleEndian.Uint32(tail) {
		return dst, 0, corrupt("gzip checksum mismatch")
	}
	if uint32(len(out)-start) != binary.LittleEndian.Uint32(tail[4:]) {
		return dst, 0, corrupt("gzip size mismatch")
	}
	return out, end, nil
}

// gzip header flags.
const (
	gzHCRC    = 1 << 1
	gzExtra   = 1 << 2
	gzName    = 1 << 3
	gzComment = 1 << 4
	gzReserve = 0xe0
)

// gzipHeader returns the length of the gzip member header at the start of src.
func gzipHeader(src []byte) (int, error) {
	if len(src) < 10 {
		return 0, io.ErrUnexpectedEOF
	}
	if src[0] != 0x1f || src[1] != 0x8b || src[2] != 8 {
		return 0, corrupt("not a gzip member")
	}
	flg := src[3]
	if flg&gzReserve != 0 {
		return 0, corrupt("gzip header: reserved flags set")
	}
	p := 10
	if flg&gzExtra != 0 {
		if len(src) < p+2 {
			return 0, io.ErrUnexpectedEOF
		}
		p += 2 + int(binary.LittleEndian.Uint16(src[p:]))
	}
	for _, f := range []byte{gzName, gzComment} {
		if flg&f == 0 {
			continue
		}
		if p > len(src) {
			return 0, io.ErrUnexpectedEOF
		}
		i := indexZero(src[p:])
		if i < 0 {
			return 0, io.ErrUnexpectedEOF
		}
		p += i + 1
	}
	if flg&gzHCRC != 0 {
		if p+2 > len(src) {
			return 0, io.ErrUnexpectedEOF
		}
		if uint16(crc32.ChecksumIEEE(src[:p])) != binary.LittleEndian.Uint16(src[p:]) {
			return 0, corrupt("gzip header checksum mismatch")
		}
		p += 2
	}
	if p > len(src) {
		return 0, io.ErrUnexpectedEOF
	}
	return p, nil
}

func indexZero(b []byte) int {
	for i, c := range b {
		if c == 0 {
			return i
		}
	}
	return -1
}
