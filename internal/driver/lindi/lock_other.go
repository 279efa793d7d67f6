//go:build !unix

package lindi

import "os"

// lock is a no-op where the platform has no flock: there, keeping to one
// writer at a time is the caller's responsibility.
func lock(*os.File, string) (stale bool, err error) { return false, nil }

// unlock releases the lock lock took.
func unlock(*os.File) error { return nil }

// locks says that lock keeps other processes out.
const locks = false
