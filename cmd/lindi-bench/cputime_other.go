//go:build !unix

package main

import "time"

// cpuTime returns 0: the process's CPU time is read only on unix systems.
func cpuTime() time.Duration { return 0 }
