//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// processMemory returns the peak resident memory in MB and the minor page
// faults of a finished process.
func processMemory(ps *os.ProcessState) (float64, int64) {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, 0
	}
	rss := float64(ru.Maxrss) * 1024 // kilobytes on Linux
	if runtime.GOOS == "darwin" {
		rss = float64(ru.Maxrss) // bytes on macOS
	}
	return rss / 1e6, int64(ru.Minflt)
}
