//go:build race

package h5_test

// raceEnabled is set when the race detector runs, which slows reads of
// millions of chunks tenfold and says nothing of their memory.
const raceEnabled = true
