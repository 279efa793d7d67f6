//go:build !race

package h5_test

const raceEnabled = false
