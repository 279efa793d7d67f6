// Package shuffle undoes the byte shuffle and the bit shuffle filters of
// c-blosc 1.x and numcodecs, and applies the byte shuffle for encoders.
//
// A byte shuffle stores byte j of every element together (stream j), so that
// similar bytes sit next to each other; a bit shuffle does the same for each
// bit of each byte. Unshuffle and BitUnshuffle reverse them on one buffer,
// which for blosc is one block; Shuffle is Unshuffle's inverse.
//
// Both functions are pure: they read src, write dst, allocate nothing and are
// safe to call from many goroutines on disjoint buffers. The hot loops use
// word-at-a-time transposes; their benchmarks are in shuffle_test.go.
//
// Errors: BitUnshuffle reports a bad typesize or mismatched buffer lengths;
// Shuffle and Unshuffle cannot fail and panic on a dst shorter than src, like copy
// would if it checked.
package shuffle
