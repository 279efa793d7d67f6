package codecs

import (
	"errors"
	"io"
)

// grow returns dst with room for n more bytes, allocating at most n beyond
// len(dst).
func grow(dst []byte, n int) []byte {
	if cap(dst)-len(dst) >= n {
		return dst
	}
	out := make([]byte, len(dst), len(dst)+n)
	copy(out, dst)
	return out
}

// eagerLimit is the largest limit reserved in full before decoding: callers
// pass the expected size, and reserving it saves the copies of growing.
const eagerLimit = 16 << 20

// initialGuess is how much room a stream decoder reserves before it knows the
// decoded size: the limit when it is moderate, otherwise a multiple of the
// input, so a hostile tiny input with a huge limit costs little up front.
func initialGuess(srcLen, limit int) int {
	guess := 4*srcLen + 64<<10
	if limit <= eagerLimit || guess > limit || guess < 0 {
		return limit
	}
	return guess
}

// readLimited appends everything r produces to dst, allocating no more than
// limit bytes, and fails with ErrTooLarge as soon as r produces more. Read
// errors are reported as ErrCorrupt for codec id.
func readLimited(id string, dst []byte, r io.Reader, srcLen, limit int) ([]byte, error) {
	start := len(dst)
	out, err := readAll(id, dst, r, srcLen, max(limit, 0))
	if err != nil {
		return dst[:start], err
	}
	return out, nil
}

// readAll is readLimited without the reset of dst on error.
func readAll(id string, dst []byte, r io.Reader, srcLen, limit int) ([]byte, error) {
	start := len(dst)
	dst = grow(dst, initialGuess(srcLen, limit))
	for {
		if len(dst) == cap(dst) {
			used := len(dst) - start
			if used >= limit {
				return dst, probeEnd(id, r, limit)
			}
			more := min(max(used, 64<<10), limit-used)
			dst = grow(dst, more)
		}
		room := min(cap(dst), start+limit)
		n, err := r.Read(dst[len(dst):room])
		dst = dst[:len(dst)+n]
		if errors.Is(err, io.EOF) {
			return dst, nil
		}
		if err != nil {
			return dst, wrapCorrupt(id, err)
		}
		if len(dst)-start == limit {
			return dst, probeEnd(id, r, limit)
		}
	}
}

// probeEnd reads past a full limit: a byte there means the data is too
// large; reaching the end also lets the reader verify its trailer checksum.
func probeEnd(id string, r io.Reader, limit int) error {
	var one [1]byte
	for {
		n, err := r.Read(one[:])
		if n > 0 {
			return errTooLarge(id, limit)
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return wrapCorrupt(id, err)
		}
	}
}
