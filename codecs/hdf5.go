package codecs

import (
	"encoding/json"
	"fmt"
)

// HDF5Filter returns the codec configuration that undoes HDF5 filter id with
// the given client data, for a registry to build; it is the table from HDF5
// filter pipelines to this package's codecs. elemSize is the dataset's
// element size in bytes, which shuffle uses when its client data does not
// give one.
//
// The filters with a codec are deflate (1, zlib), shuffle (2), fletcher32
// (3), LZF (32000), blosc (32001), HDF5-LZ4 (32004, imagecodecs_lz4h5),
// bitshuffle (32008: imagecodecs_bitshuffle, or hdf5_bitshuffle_lz4 with its
// LZ4) and zstd (32015). Any other id, szip (4),
// nbit (5) and scaleoffset (6) included, is an error wrapping
// ErrUnknownCodec that names the filter; a shuffle without a positive
// element size wraps ErrConfig.
func HDF5Filter(id uint16, clientData []uint32, elemSize int) (config []byte, err error) {
	var cfg map[string]any
	switch id {
	case 1:
		level := uint32(6) // H5Pset_deflate's usual level; decoding ignores it
		if len(clientData) > 0 {
			level = clientData[0]
		}
		cfg = map[string]any{"id": "zlib", "level": level}
	case 2:
		size := elemSize
		if len(clientData) > 0 {
			size = int(clientData[0])
		}
		if size <= 0 {
			return nil, errConfig("shuffle", "HDF5 shuffle filter with element size %d", size)
		}
		cfg = map[string]any{"id": "shuffle", "elementsize": size}
	case 3:
		cfg = map[string]any{"id": "fletcher32"}
	case 32000:
		cfg = map[string]any{"id": "lzf"}
	case 32001:
		cfg = map[string]any{"id": "blosc"}
	case 32015:
		cfg = map[string]any{"id": "zstd"}
	case 32004:
		cfg = map[string]any{"id": "imagecodecs_lz4h5"}
	case 32008:
		return bitshuffleFilter(clientData, elemSize)
	default:
		return nil, fmt.Errorf("%w: HDF5 filter %d%s", ErrUnknownCodec, id, hdf5FilterName(id))
	}
	return json.Marshal(cfg)
}

// hdf5FilterName returns " (name)" for the HDF5 library's filters without a
// codec, to make errors readable, and "" for other ids.
func hdf5FilterName(id uint16) string {
	switch id {
	case 4:
		return " (szip)"
	case 5:
		return " (nbit)"
	case 6:
		return " (scaleoffset)"
	}
	return ""
}

// bitshuffleFilter reads the bitshuffle filter's client data: its version
// (2 values), the element size, the block size in elements (0: the
// default) and the compression (0 none, 2 LZ4, 3 zstd, which is not read).
func bitshuffleFilter(cd []uint32, elemSize int) ([]byte, error) {
	const id = "imagecodecs_bitshuffle"
	size, block, compression := elemSize, 0, uint32(0)
	if len(cd) > 2 {
		size = int(cd[2])
	}
	if len(cd) > 3 {
		block = int(cd[3])
	}
	if len(cd) > 4 {
		compression = cd[4]
	}
	if err := checkBitshuffle(id, size, block); err != nil {
		return nil, err
	}
	var cfg map[string]any
	switch compression {
	case 0:
		cfg = map[string]any{"id": id, "itemsize": size, "blocksize": block}
	case 2:
		cfg = map[string]any{"id": "hdf5_bitshuffle_lz4", "itemsize": size}
	default:
		return nil, fmt.Errorf("%w: HDF5 filter 32008 (bitshuffle) with compression %d (3 is zstd)", ErrUnknownCodec, compression)
	}
	return json.Marshal(cfg)
}
