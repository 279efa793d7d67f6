package hugemem

import (
	"syscall"
	"unsafe"
)

// pageSize is the size of a transparent huge page on Linux (x86-64, arm64).
const pageSize = 2 << 20

// minAdvised is the smallest slice advised: below a few huge pages the
// rounding leaves little to gain.
const minAdvised = 4 * pageSize

// madvHugePage is MADV_HUGEPAGE, which package syscall does not name.
const madvHugePage = 14

// Alloc returns a zeroed slice of n bytes; when it is large, the huge-page
// aligned part of it is advised to the kernel as huge-page memory.
func Alloc(n int) []byte {
	b := make([]byte, n)
	if n < minAdvised {
		return b
	}
	start := uintptr(unsafe.Pointer(&b[0]))
	lo := (start + pageSize - 1) &^ (pageSize - 1)
	hi := (start + uintptr(n)) &^ (pageSize - 1)
	if hi > lo {
		// A hint: an error (a kernel without THP) changes nothing.
		_ = syscall.Madvise(b[lo-start:hi-start], madvHugePage)
	}
	return b
}
