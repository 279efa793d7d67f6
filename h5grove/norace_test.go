//go:build !race

package h5grove

const raceEnabled = false
