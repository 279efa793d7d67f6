//go:build !race

package codecs

const raceEnabled = false
