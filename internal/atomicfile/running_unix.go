//go:build unix

package atomicfile

import (
	"errors"
	"syscall"
)

// running reports whether a process of that pid runs on this host (one of
// another user's counts: EPERM).
func running(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || !errors.Is(err, syscall.ESRCH)
}
