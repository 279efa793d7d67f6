//go:build race

package h5grove

// raceEnabled is set when the race detector runs, whose shadow memory says
// nothing of the server's.
const raceEnabled = true
