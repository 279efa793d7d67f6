package hdf5

// Stats counts the metadata reads of a File since it was opened. Raw data
// read through a Locator's offsets is not counted: the caller reads it.
type Stats struct {
	// Requests is the number of reads sent to the source.
	Requests int64
	// BytesRead is the number of bytes those reads returned.
	BytesRead int64
	// Hits is the number of page lookups the metadata cache served.
	Hits int64
	// Misses is the number of page lookups that needed a request.
	Misses int64
}

// Stats returns how many requests the metadata reader has sent to the
// source and how the page cache fared.
func (f *File) Stats() Stats {
	s := f.r.Stats()
	return Stats{Requests: s.Requests, BytesRead: s.BytesRead, Hits: s.Hits, Misses: s.Misses}
}
