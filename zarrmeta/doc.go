// Package zarrmeta parses Zarr v2 metadata and the LINDI conventions layered
// on it. It is pure data: no I/O.
//
// ParseArray reads a .zarray document (shape, chunks, dtype, compressor,
// filters, fill_value, order, dimension_separator), ParseAttrs a .zattrs
// document and ParseGroup a .zgroup document. ParseDType understands numpy
// dtype descriptions as Zarr stores them ("<i2", "|S8", "<U17", "|O",
// structured lists); a DType can describe itself back in numpy's .npy header
// syntax (String) or Zarr's JSON (MarshalJSON), and byte-swap a buffer of its
// items to native order. ParseFill decodes a fill_value into the bytes of one
// item.
//
// LINDI stores HDF5 features Zarr lacks as special attributes: _SCALAR,
// _SOFT_LINK, _COMPOUND_DTYPE and _EXTERNAL_ARRAY_LINK are markers that Attrs
// exposes through methods and hides from Names and Get, exactly as LINDI's
// own h5py layer does (it also hides a top-level _REFERENCE key). Object
// references ({"_REFERENCE": {...}}) appear as values inside attributes and
// object datasets; AsReference recognises them in any decoded JSON value.
//
// This module adds forms for what HDF5 has and LINDI cannot write: the
// markers _EMPTY (a null dataspace) and _DATATYPE (a group that is a
// committed datatype, CommittedType), hidden like LINDI's; the .zarray key
// _NAMED_TYPE (ArrayMeta.NamedType); and opaque attribute values, lists
// that start with "_OPAQUE" (Opaque, AsOpaque).
//
// Python's json module writes non-finite floats as bare NaN, Infinity and
// -Infinity. ParseAttrs and DecodeJSON decode them as float64 values;
// ParseArray reads them as the strings zarr uses for such fill values.
//
// Every function is safe for concurrent use. Parsed values are plain data
// and are not synchronised; the package never retains a caller's buffer.
//
// Errors wrap one of the sentinels ErrJSON, ErrDType, ErrArray, ErrFill,
// ErrGroup, ErrAttrs and ErrReference, with detail naming what was wrong.
package zarrmeta
