package codecs_test

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"

	"github.com/lindigo/lindi/codecs"
)

// A .zarray's compressor and filters become one pipeline; Decode is told the
// chunk's decoded size.
func ExampleRegistry_Pipeline() {
	var enc bytes.Buffer
	w := zlib.NewWriter(&enc)
	w.Write([]byte{1, 2, 3, 4, 5, 6, 7, 8}) // <u2 values 0x0201, 0x0403, ...
	w.Close()

	p, err := codecs.Builtin().Pipeline([]byte(`{"id":"zlib","level":1}`), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	chunk, err := p.Decode(nil, enc.Bytes(), 8)
	fmt.Println(chunk, err, p.IDs())
	// Output: [1 2 3 4 5 6 7 8] <nil> [zlib]
}

// Unknown codec ids are named in the error.
func ExampleRegistry_NewCodec() {
	_, err := codecs.Builtin().NewCodec([]byte(`{"id":"sz3"}`))
	fmt.Println(err, errors.Is(err, codecs.ErrUnknownCodec))
	// Output: codecs: unknown codec "sz3" true
}

// Object arrays decode to items: here a LINDI-style json2 chunk.
func ExamplePipeline_DecodeObjects() {
	p, err := codecs.Builtin().Pipeline(nil, [][]byte{[]byte(`{"id":"json2"}`)})
	if err != nil {
		fmt.Println(err)
		return
	}
	items, err := p.DecodeObjects([]byte(`[["a","b"],["c",NaN],"|O",[2,2]]`), 4)
	fmt.Println(items, err)
	// Output: [a b c NaN] <nil>
}

// A decoder refuses to produce more than it is allowed.
func ExampleCodec() {
	c, _ := codecs.Builtin().NewCodec([]byte(`{"id":"lz4"}`))
	// numcodecs lz4: a 4-byte size header announcing 1 GiB.
	_, err := c.Decode(nil, []byte{0, 0, 0, 0x40, 0}, 1<<20)
	fmt.Println(errors.Is(err, codecs.ErrTooLarge))
	// Output: true
}

// A codec of your own goes into a registry made by NewRegistry, which starts
// with the built-in codecs; the shared Builtin registry is read-only.
func ExampleNewRegistry() {
	r := codecs.NewRegistry()
	err := r.RegisterCodec("invert", func([]byte) (codecs.Codec, error) { return invert{}, nil })
	fmt.Println(err)

	p, _ := r.Pipeline(nil, [][]byte{[]byte(`{"id":"invert"}`)})
	chunk, err := p.Decode(nil, []byte{0xff, 0xfe}, 2)
	fmt.Println(chunk, err)

	err = codecs.Builtin().RegisterCodec("invert", func([]byte) (codecs.Codec, error) { return invert{}, nil })
	fmt.Println(errors.Is(err, codecs.ErrReadOnly))
	// Output:
	// <nil>
	// [0 1] <nil>
	// true
}

// invert is a toy codec flipping every bit.
type invert struct{}

func (invert) Decode(dst, src []byte, limit int) ([]byte, error) {
	if len(src) > limit {
		return dst, codecs.ErrTooLarge
	}
	for _, b := range src {
		dst = append(dst, ^b)
	}
	return dst, nil
}

// The table of HDF5 filters turns a dataset's filter pipeline message into
// codec configurations.
func ExampleHDF5Filter() {
	shuffle, _ := codecs.HDF5Filter(2, nil, 4)
	deflate, _ := codecs.HDF5Filter(1, []uint32{9}, 4)
	_, err := codecs.HDF5Filter(4, nil, 4)
	fmt.Printf("%s\n%s\n%v\n", shuffle, deflate, err)
	// Output:
	// {"elementsize":4,"id":"shuffle"}
	// {"id":"zlib","level":9}
	// codecs: unknown codec: HDF5 filter 4 (szip)
}

// A writer builds the pipeline from the configuration it will store, encodes
// each chunk, and stores Configs in the .zarray.
func ExamplePipeline_Encode() {
	p, err := codecs.Builtin().Pipeline([]byte(`{"id":"blosc","cname":"zstd","clevel":3}`),
		[][]byte{[]byte(`{"id":"delta","dtype":"<i2"}`)})
	if err != nil {
		fmt.Println(err)
		return
	}
	chunk := make([]byte, 2000) // 1000 <i2 samples
	for i := range 1000 {
		chunk[2*i] = byte(i / 4)
	}
	enc, err := p.Encode(nil, chunk, 2)
	if err != nil {
		fmt.Println(err)
		return
	}
	back, err := p.Decode(nil, enc, len(chunk))
	fmt.Println(len(enc) < len(chunk), bytes.Equal(back, chunk), err)
	compressor, filters := p.Configs()
	fmt.Printf("%s %s\n", compressor, filters[0])
	// Output:
	// true true <nil>
	// {"blocksize":0,"clevel":3,"cname":"zstd","id":"blosc","shuffle":1} {"astype":"<i2","dtype":"<i2","id":"delta"}
}

// Object chunks encode as numcodecs writes them; LINDI's json2 pads edge
// chunks with zarr's fill value 0.
func ExamplePipeline_EncodeObjects() {
	p, err := codecs.Builtin().Pipeline(nil, [][]byte{[]byte(`{"id":"json2"}`)})
	if err != nil {
		fmt.Println(err)
		return
	}
	enc, err := p.EncodeObjects([]any{"c", 0, "\u00e9", 0}, []int{2, 2})
	fmt.Println(string(enc), err)
	// Output: [["c",0],["\u00e9",0],"|O",[2,2]] <nil>
}

// Encoders are asserted from the codec a configuration builds; one that
// decodes but cannot encode fails when used.
func ExampleEncoder() {
	c, err := codecs.Builtin().NewCodec([]byte(`{"id": "zlib", "level": 10}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	e := c.(codecs.Encoder)
	_, err = e.Encode(nil, []byte("data"), 1)
	fmt.Println(string(e.Config()), errors.Is(err, codecs.ErrConfig))
	c, _ = codecs.Builtin().NewCodec([]byte(`{"id":"zlib"}`))
	fmt.Println(string(c.(codecs.Encoder).Config()))
	// Output:
	// {"id":"zlib","level":10} true
	// {"id":"zlib","level":1}
}
