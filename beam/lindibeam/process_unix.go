//go:build unix

package lindibeam

import (
	"errors"
	"syscall"
)

// processRunning reports whether process pid of this host may still run:
// only a process the kernel says does not exist counts as gone.
func processRunning(pid int) bool {
	return !errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}
