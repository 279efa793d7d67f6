//go:build !unix

package lindibeam

// processRunning reports that every process may still run where this
// package cannot ask, so that no temporary is removed that is not provably
// abandoned.
func processRunning(int) bool { return true }
