package codecs

import "sync"

// NewRegistry returns a new registry holding every built-in codec under its
// numcodecs id (and "lzf" for h5py's LZF filter). The caller owns it and may
// register more codecs or replace built-in ones; other registries are not
// affected.
func NewRegistry() *Registry {
	r := new(Registry)
	for id, c := range map[string]Codec{
		"bz2":        bz2Codec{},
		"lzf":        lzfCodec{},
		"packbits":   packBitsCodec{},
		"fletcher32": fletcher32Codec{},
	} {
		r.codec(id, func([]byte) (Codec, error) { return c, nil })
	}
	r.codec("zlib", newZlib)
	r.codec("gzip", newGzip)
	r.codec("zstd", newZstd)
	r.codec("lz4", newLZ4)
	r.codec("imagecodecs_lz4h5", func([]byte) (Codec, error) { return lz4H5Codec{}, nil })
	r.codec("imagecodecs_bitshuffle", newBitshuffle)
	r.codec("hdf5_bitshuffle_lz4", newBitshuffleLZ4)
	r.codec("hdf5_scaleoffset", newScaleOffset)
	r.codec("blosc", newBlosc)
	r.codec("shuffle", newShuffle)
	r.codec("delta", newDelta)
	r.codec("fixedscaleoffset", newFixedScaleOffset)
	r.codec("quantize", newQuantize)
	r.codec("bitround", newBitRound)
	r.codec("astype", newAsType)
	r.codec("categorize", newCategorizeText)
	r.codec("crc32", newChecksum("crc32", true, crc32Sum))
	r.codec("adler32", newChecksum("adler32", true, adler32Sum))
	r.codec("crc32c", newChecksum("crc32c", false, crc32cSum))
	r.object("categorize", newCategorizeObjects)
	r.object("vlen-utf8", newVLenUTF8)
	r.object("vlen-bytes", newVLenBytes)
	r.object("vlen-array", newVLenArray)
	r.object("json2", newJSON2)
	r.object("json", newJSON)
	r.object("pickle", newPickle)
	return r
}

// Builtin returns the shared registry of the built-in codecs, the same one
// on every call, built on the first. It is read-only, so that no package can
// change what another decodes: registering on it fails with ErrReadOnly.
// Extend a registry from NewRegistry instead.
func Builtin() *Registry { return builtin() }

var builtin = sync.OnceValue(func() *Registry {
	r := NewRegistry()
	r.readOnly = true
	return r
})

// codec and object register built-ins, whose ids and constructors are known
// to be valid.
func (r *Registry) codec(id string, build func([]byte) (Codec, error)) {
	_ = r.RegisterCodec(id, build)
}

func (r *Registry) object(id string, build func([]byte) (ObjectCodec, error)) {
	_ = r.RegisterObjectCodec(id, build)
}
