// Package zstdec is the one Zstandard decoder of package codecs and package
// blosc, with one memory cap for both.
//
// DecodeAll shares a single decoder among all goroutines (its DecodeAll is
// safe for concurrent use and keeps GOMAXPROCS block decoders warm) and
// never writes past the capacity of the destination, so a caller bounds the
// output of a hostile frame by the capacity it passes. Reader hands out
// pooled synchronous streaming decoders for frames that do not declare their
// size, so the output can grow with the data instead of being reserved up
// front; there the caller bounds what it reads.
//
// Beyond the caller's bound, every decoder refuses to produce more than
// MaxMemory bytes in one call or to use a window larger than MaxMemory.
package zstdec
