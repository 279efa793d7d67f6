package h5

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strconv"
	"sync"
)

// ErrTooLarge is wrapped by errors for reads whose result would exceed the
// file's read limit (see WithMaxReadBytes). Nothing is allocated before the
// check.
var ErrTooLarge = errors.New("h5: result too large")

// WithMaxReadBytes bounds the memory the result of one read may take at n
// bytes (an element of an object array counts 16). A larger read fails with
// ErrTooLarge before anything is allocated. The default is DefaultMaxReadBytes.
func WithMaxReadBytes(n int64) Option {
	return func(o *options) error {
		if n <= 0 {
			return fmt.Errorf("h5: WithMaxReadBytes(%d): must be positive", n)
		}
		o.maxRead = n
		return nil
	}
}

// DefaultMaxReadBytes returns the default read limit: half of the memory the
// process may use, that is of the smallest of the machine's memory
// (/proc/meminfo MemTotal), the cgroup's limit (memory.max) and the Go
// memory limit (GOMEMLIMIT), or 4 GiB where none is known. A hostile or
// mistaken shape then fails with an error instead of killing the process.
func DefaultMaxReadBytes() int64 { return defaultMaxRead() }

var defaultMaxRead = sync.OnceValue(func() int64 {
	mem := int64(math.MaxInt64)
	if n := debug.SetMemoryLimit(-1); n > 0 {
		mem = n
	}
	if n, ok := memTotal("/proc/meminfo"); ok {
		mem = min(mem, n)
	}
	if n, ok := cgroupMax("/sys/fs/cgroup/memory.max"); ok {
		mem = min(mem, n)
	}
	if mem == math.MaxInt64 {
		return 4 << 30
	}
	return mem / 2
})

// memTotal reads MemTotal, in bytes, from a meminfo file.
func memTotal(name string) (int64, bool) {
	fh, err := os.Open(name)
	if err != nil {
		return 0, false
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) == 3 && string(f[0]) == "MemTotal:" && string(f[2]) == "kB" {
			kb, err := strconv.ParseInt(string(f[1]), 10, 64)
			return kb << 10, err == nil && kb > 0 && kb < math.MaxInt64>>10
		}
	}
	return 0, false
}

// cgroupMax reads a cgroup v2 memory.max file ("max" means no limit).
func cgroupMax(name string) (int64, bool) {
	b, err := os.ReadFile(name)
	if err != nil {
		return 0, false
	}
	n, err := strconv.ParseInt(string(bytes.TrimSpace(b)), 10, 64)
	return n, err == nil && n > 0
}

// checkSize refuses a result of n elements of size bytes each that exceeds
// the file's read limit.
func (f *File) checkSize(n, size int) error {
	if size > 0 && n > math.MaxInt/size || int64(n)*int64(size) > f.maxRead {
		return fmt.Errorf("%w: %d elements of %d bytes exceed the read limit of %d bytes (raise it with h5.WithMaxReadBytes or lindi cat --max-bytes)", ErrTooLarge, n, size, f.maxRead)
	}
	return nil
}
