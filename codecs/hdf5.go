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
// LZ4), zstd (32015) and scale-offset (6, hdf5_scaleoffset, which needs the
// 20 client data values the HDF5 library stores). Any other id, szip (4)
// and nbit (5) included, is an error wrapping ErrUnknownCodec that names
// the filter; a shuffle without a positive element size, and client data
// a filter cannot use, wrap ErrConfig.
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
	case 6:
		return scaleOffsetFilter(clientData)
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

// scaleOffsetFilter names the client data the HDF5 library stores for the
// scale-offset filter: the scale type and factor, the elements of a chunk,
// the type's class (0 integer, 1 float), size, sign (0 unsigned, 1 two's
// complement) and byte order (0 little-endian, 1 big-endian), whether a
// fill value is defined, and from value 8 on the fill value's bits, 32 of
// them per value from the least significant.
func scaleOffsetFilter(cd []uint32) ([]byte, error) {
	const id = "hdf5_scaleoffset"
	if len(cd) != 20 {
		return nil, errConfig(id, "HDF5 scale-offset filter with %d client data values, want 20", len(cd))
	}
	class, size, sign, order := cd[3], cd[4], cd[5], cd[6]
	var kind byte
	switch {
	case class == 0 && sign == 0:
		kind = 'u'
	case class == 0 && sign == 1:
		kind = 'i'
	case class == 1:
		kind = 'f'
	default:
		return nil, errConfig(id, "HDF5 scale-offset filter of type class %d, sign %d", class, sign)
	}
	if order > 1 || size == 0 || size > 8 {
		return nil, errConfig(id, "HDF5 scale-offset filter of %d-byte elements in byte order %d", size, order)
	}
	dtype := fmt.Sprintf("%c%c%d", "<>"[order], kind, size)
	if size == 1 {
		dtype = fmt.Sprintf("|%c1", kind)
	}
	cfg := map[string]any{"id": id, "dtype": dtype, "scale_type": cd[0], "scale_factor": int32(cd[1]), "count": cd[2]}
	switch cd[7] {
	case 0:
	case 1:
		fill := uint64(cd[8]) | uint64(cd[9])<<32
		if size < 8 {
			fill &= 1<<(8*size) - 1
		}
		cfg["fill"] = fill
	default:
		return nil, errConfig(id, "HDF5 scale-offset filter with fill value flag %d", cd[7])
	}
	return configJSON(cfg), nil // "<i4" unescaped
}
