package blosc

import (
	"errors"
	"fmt"
)

// maxDistance is MAX_DISTANCE of blosclz: matches farther than this use the
// long form with a 16-bit distance.
const maxDistance = 8191

// blosclzDecode decodes one blosclz (FastLZ level 1 derived) stream from
// src into dst, which must be exactly the decoded size.
//
// The stream is a sequence of instructions, each starting with a control
// byte c (the first one's top three bits are a format marker and ignored):
//   - c < 32: a literal run of c+1 bytes follows.
//   - otherwise a match of length (c>>5)+2 bytes; if c>>5 is 7, bytes
//     follow and are added to the length until one is not 255. Then one
//     byte d: the match starts (c&31)<<8 + d + 1 bytes back, unless d is 255
//     and c&31 is 31, in which case two more bytes (big endian) give the
//     distance minus 8192.
//
// A match may overlap its own output (a run). Decoding stops when src is
// used up; the output must then be full.
func blosclzDecode(dst, src []byte) error {
	if len(src) == 0 {
		return errors.New("empty stream")
	}
	ip, op := 1, 0
	ctrl := int(src[0] & 31)
	for {
		if ctrl < 32 {
			n := ctrl + 1
			if n > len(src)-ip || n > len(dst)-op {
				return fmt.Errorf("literal of %d bytes overruns its %s", n, overrun(n > len(src)-ip))
			}
			copy(dst[op:op+n], src[ip:ip+n])
			op += n
			ip += n
		} else {
			length := ctrl>>5 - 1
			ofs := (ctrl & 31) << 8
			if length == 6 {
				for {
					if ip >= len(src) {
						return errors.New("match length truncated")
					}
					code := int(src[ip])
					ip++
					length += code
					if code != 255 {
						break
					}
				}
			}
			if ip >= len(src) {
				return errors.New("match distance truncated")
			}
			code := int(src[ip])
			ip++
			dist := ofs + code + 1
			if code == 255 && ofs == 31<<8 {
				if len(src)-ip < 2 {
					return errors.New("far match distance truncated")
				}
				dist = int(src[ip])<<8 | int(src[ip+1]) + maxDistance + 1
				ip += 2
			}
			length += 3
			if dist > op {
				return fmt.Errorf("match %d bytes back at output offset %d", dist, op)
			}
			if length > len(dst)-op {
				return fmt.Errorf("match of %d bytes overruns its output", length)
			}
			copyMatch(dst[op-dist:op+length], dist)
			op += length
		}
		if ip >= len(src) {
			break
		}
		ctrl = int(src[ip])
		ip++
	}
	if op != len(dst) {
		return fmt.Errorf("decoded to %d bytes, want %d", op, len(dst))
	}
	return nil
}

func overrun(input bool) string {
	if input {
		return "input"
	}
	return "output"
}

// copyMatch fills b[dist:] by copying forward from dist bytes earlier, the
// LZ77 way: when the match overlaps its source the bytes repeat with period
// dist. Each copy takes a whole number of periods, doubling as the filled
// prefix grows, so a long run costs a few copy calls instead of a byte loop.
func copyMatch(b []byte, dist int) {
	for i, step := dist, dist; i < len(b); {
		i += copy(b[i:], b[i-step:i])
		if 2*step <= i {
			step *= 2
		}
	}
}
