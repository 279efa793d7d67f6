//go:build !unix

package source

// nonBlock is 0 where opens do not block on FIFOs.
const nonBlock = 0
