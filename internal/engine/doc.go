// Package engine is the one read path of lindi-go: given a stored chunked array
// and a resolved selection, it visits only the chunks the selection touches,
// fetches their bytes concurrently through io/fetch (missing chunks cost no I/O),
// decodes them on a bounded pool of workers and scatters the selected parts
// straight into the caller's output.
//
// Chunks are planned, located, fetched and decoded in batches of a few
// thousand, so a read holds its output plus a few megabytes however many
// chunks it touches. Within a batch, fetching and decoding overlap: a chunk is
// decoded as soon as its bytes arrive.
// Each worker writes a disjoint part of the output, so the hot path takes no
// locks. A cancelled context stops the read promptly, and Read returns only
// after every goroutine it started has ended.
//
// A virtual HDF5 dataset (Virtual) is read the same way: its chunks are
// made when a decoder takes them (Chunk.Make), each from the reads of its
// mappings' source datasets through this same engine.
//
// Errors name the chunk (grid coordinates and where its bytes came from) and wrap
// the cause; a chunk whose decoded size is not the chunk size is an error, never
// silently wrong data.
package engine
