//go:build !linux

package hugemem

// Alloc returns a zeroed slice of n bytes.
func Alloc(n int) []byte { return make([]byte, n) }
