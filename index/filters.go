package index

import "github.com/lindigo/lindi/hdf5"

// bloscNames are blosc's compressor codes, as the HDF5 blosc filter stores them.
var bloscNames = []string{"blosclz", "lz4", "lz4hc", "snappy", "zlib", "zstd"}

// numcodecs maps a dataset's HDF5 filters onto numcodecs configurations as
// lindi's h5_filters_to_codecs does, and HDF5-LZ4 and bitshuffle without
// compression as imagecodecs' numcodecs codecs; ok is false for a filter no
// numcodecs codec reads (lzf, szip, nbit, scaleoffset, bitshuffle with LZ4,
// …), whose dataset the index links to its HDF5 file.
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
		case 32004: // HDF5-LZ4, as imagecodecs' numcodecs entry point reads it
			out = append(out, map[string]any{"id": "imagecodecs_lz4h5"})
		case 32008: // bitshuffle; with its LZ4 framing no numcodecs codec reads it
			if len(cd) < 5 || cd[4] != 0 {
				return nil, false
			}
			out = append(out, map[string]any{"id": "imagecodecs_bitshuffle", "itemsize": cd[2], "blocksize": cd[3]})
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
