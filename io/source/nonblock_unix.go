//go:build unix

package source

import "syscall"

// nonBlock opens a FIFO without waiting for a writer, so that a root can
// refuse it instead of blocking; it changes nothing for a regular file.
const nonBlock = syscall.O_NONBLOCK
