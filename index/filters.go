package index

import "github.com/lindigo/lindi/hdf5"

// bloscNames are blosc's compressor codes, as the HDF5 blosc filter stores them.
var bloscNames = []string{"blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"}

// numcodecs maps a dataset's HDF5 filters onto numcodecs configurations as
// lindi's h5_filters_to_codecs does; ok is false for a filter numcodecs has
// no codec for (lzf, szip, nbit, scaleoffset, lz4, bitshuffle, …).
func numcodecs(ds *hdf5.Dataset) ([]any, bool) {
	var out []any
	for _, f := range ds.Filters() {
		cd := f.Options
		switch f.ID {
		case 1: // deflate
			level := uint32(6)
			if len(cd) > 0 {
				level = cd[0]
			}
			out = append(out, map[string]any{"id": "zlib", "level": level})
		case 2:
			out = append(out, map[string]any{"id": "shuffle", "elementsize": ds.Datatype().Size})
		case 3:
			out = append(out, map[string]any{"id": "fletcher32"})
		case 32001:
			if len(cd) < 7 || int(cd[6]) >= len(bloscNames) {
				return nil, false
			}
			out = append(out, map[string]any{"id": "blosc", "blocksize": cd[3], "clevel": cd[4], "shuffle": cd[5], "cname": bloscNames[cd[6]]})
		case 32015:
			level := uint32(0)
			if len(cd) > 0 {
				level = cd[0]
			}
			out = append(out, map[string]any{"id": "zstd", "level": level})
		default:
			return nil, false
		}
	}
	return out, true
}
