package hugemem

import (
	"syscall"
	"unsafe"
)

// pageSize is the size of a transparent huge page on Linux (x86-64, arm64).
const pageSize = 2 << 20

// minAdvised is the smallest slice advised: two huge pages. A huge page
// fault zeroes 2 MiB at once, so below that the rounding can cost more
// than the small faults it saves.
const minAdvised = 2 * pageSize

// madvHugePage is MADV_HUGEPAGE, which package syscall does not name.
const madvHugePage = 14

// Alloc returns a zeroed slice of n bytes; when it is large, it starts on a
// huge-page boundary and is advised to the kernel as huge-page memory. The
// allocation is a huge page larger than n, to align the start; the spare
// part is never touched, so it costs address space, not memory.
func Alloc(n int) []byte {
	if n < minAdvised {
		return make([]byte, n)
	}
	b := make([]byte, n+pageSize)
	start := uintptr(unsafe.Pointer(&b[0]))
	lo := int((start+pageSize-1)&^(pageSize-1) - start)
	b = b[lo : lo+n : lo+n]
	// A hint: an error (a kernel without THP) changes nothing.
	_ = syscall.Madvise(b, madvHugePage)
	return b
}

// Slice returns a zeroed slice of n numbers of type T, allocated as Alloc
// allocates bytes.
func Slice[T Number](n int) []T {
	size := int(unsafe.Sizeof(*new(T)))
	if n < minAdvised/size {
		return make([]T, n)
	}
	b := Alloc(n * size)
	return unsafe.Slice((*T)(unsafe.Pointer(unsafe.SliceData(b))), n)
}
