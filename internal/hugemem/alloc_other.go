//go:build !linux

package hugemem

// Alloc returns a zeroed slice of n bytes.
func Alloc(n int) []byte { return make([]byte, n) }

// Slice returns a zeroed slice of n numbers of type T.
func Slice[T Number](n int) []T { return make([]T, n) }
