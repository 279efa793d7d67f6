// Package store is the key-value view of a Zarr v2 hierarchy that the h5 package
// builds its tree from: LINDI JSON reference files (bare, or the lindi.json of a
// .lindi.tar or .lindi.d container, whose "./" refs name its members) and Zarr
// v2 stores.
//
// A key is a Zarr key such as "acquisition/data/.zarray" or "acquisition/data/0.0".
// Get tells where its bytes live: in memory (metadata objects and inline chunks of a
// LINDI file) or as a byte range of a local file or URL, which the caller reads
// through package io/source. Stores do no chunk I/O themselves, so a read can plan
// and fetch all of its chunks concurrently.
//
// A document read over HTTP resolves every ref to an http(s) URL: it cannot
// name local files. A Dir refuses keys whose symbolic links lead out of it.
//
// Stores are safe for concurrent use once opened. Errors wrap ErrNotFound for
// absent keys, ErrFormat for malformed reference files and refs, and
// ErrOutside for Dir keys leading out of the store.
package store
