// Package npy reads and writes NumPy .npy files.
//
// Read accepts format versions 1.0, 2.0 and 3.0; Write produces version 1.0,
// or 2.0 when the header does not fit in 1.0's 16-bit length field. The
// header is parsed as the small Python literal subset numpy writes (a dict of
// strings, booleans, integers, tuples and lists), never evaluated. The data
// is kept as raw bytes in the byte order and memory order (C or Fortran) the
// file declares: this package does not convert values.
//
// Hostile input is bounded: the header length is capped, every dimension
// must be non-negative, the byte count product(shape)*itemsize must not
// overflow, and the data must be exactly that long. Data is read in
// increments, so a header claiming a huge array cannot force a huge
// allocation up front. Object arrays ('|O', stored as Python pickles) are
// refused with ErrObject.
//
// Functions in this package are safe for concurrent use; an Array is not
// synchronised.
package npy
