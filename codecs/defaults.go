package codecs

// Default is the registry of every built-in codec, under its numcodecs id
// (and "lzf" for h5py's LZF filter). Callers may Register more codecs in it.
var Default = newDefault()

// newDefault registers the built-in codecs.
func newDefault() *Registry {
	r := new(Registry)
	stateless := map[string]any{
		"zlib":       zlibCodec{},
		"gzip":       gzipCodec{},
		"zstd":       zstdCodec{},
		"lz4":        lz4Codec{},
		"bz2":        bz2Codec{},
		"lzf":        lzfCodec{},
		"packbits":   packBitsCodec{},
		"fletcher32": fletcher32Codec{},
	}
	for id, c := range stateless {
		r.Register(id, func([]byte) (any, error) { return c, nil })
	}
	registerBlosc(r)
	r.Register("shuffle", newShuffle)
	r.Register("delta", newDelta)
	r.Register("fixedscaleoffset", newFixedScaleOffset)
	r.Register("quantize", newQuantize)
	r.Register("bitround", newBitRound)
	r.Register("astype", newAsType)
	r.Register("categorize", newCategorize)
	r.Register("crc32", newChecksum("crc32", true, crc32Sum))
	r.Register("adler32", newChecksum("adler32", true, adler32Sum))
	r.Register("crc32c", newChecksum("crc32c", false, crc32cSum))
	r.Register("vlen-utf8", newVLenUTF8)
	r.Register("vlen-bytes", newVLenBytes)
	r.Register("vlen-array", newVLenArray)
	r.Register("json2", newJSON2)
	r.Register("json", newJSON)
	return r
}
