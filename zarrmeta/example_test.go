package zarrmeta_test

import (
	"encoding/json"
	"fmt"

	"github.com/lindigo/lindi/zarrmeta"
)

func ExampleParseArray() {
	a, err := zarrmeta.ParseArray([]byte(`{"zarr_format": 2, "shape": [5946, 24], "chunks": [689, 24],
		"dtype": "<i2", "compressor": null, "fill_value": 0, "order": "C",
		"filters": [{"elementsize": 2, "id": "shuffle"}, {"id": "zlib", "level": 4}]}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(a.Shape, a.Chunks, a.DType, a.Grid(), a.ChunkKey([]int{8, 0}), len(a.Filters), a.Fill.Bytes)
	// Output: [5946 24] [689 24] <i2 [9 1] 8.0 2 [0 0]
}

func ExampleParseDType() {
	d, err := zarrmeta.ParseDType(json.RawMessage(`[["x", "<i4"], ["y", ">f8", [2]]]`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.Kind, d.Size, d)
	for _, f := range d.Fields {
		fmt.Println(f.Name, f.DType, f.Offset, f.Shape)
	}
	// Output:
	// struct 20 [('x', '<i4'), ('y', '>f8', (2,))]
	// x <i4 0 []
	// y >f8 4 [2]
}

func ExampleDType_SwapToNative() {
	d, _ := zarrmeta.ParseDType(json.RawMessage(`">u2"`))
	buf := []byte{0x01, 0x02, 0x03, 0x04} // 258 and 772, big-endian
	if d.NeedsSwap() {
		if err := d.SwapToNative(buf); err != nil {
			fmt.Println(err)
			return
		}
		d = d.Native()
	}
	fmt.Println(d.Order == zarrmeta.NativeOrder)
	// Output: true
}

func ExampleParseFill() {
	d, _ := zarrmeta.ParseDType(json.RawMessage(`"<f4"`))
	f, _ := zarrmeta.ParseFill(json.RawMessage(`"NaN"`), d)
	fmt.Printf("% x %v\n", f.Bytes, f.Null)
	f, _ = zarrmeta.ParseFill(json.RawMessage(`null`), d)
	fmt.Printf("% x %v\n", f.Bytes, f.Null)
	// Output:
	// 00 00 c0 7f false
	// 00 00 00 00 true
}

func ExampleParseAttrs() {
	a, err := zarrmeta.ParseAttrs([]byte(`{"_SCALAR": true, "rate": 30000.0, "offset": NaN,
		"table": {"_REFERENCE": {"object_id": null, "path": "/units", "source": ".", "source_object_id": null}}}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(a.Names(), a.Scalar())
	rate, _ := a.Get("rate")
	fmt.Printf("%T %v\n", rate, rate)
	v, _ := a.Get("table")
	if ref, ok, err := zarrmeta.AsReference(v); ok && err == nil {
		fmt.Println(ref.Path)
	}
	// Output:
	// [offset rate table] true
	// float64 30000
	// /units
}

func ExampleAttrs_ExternalArrayLink() {
	a, _ := zarrmeta.ParseAttrs([]byte(`{"_EXTERNAL_ARRAY_LINK": {"link_type": "hdf5_dataset",
		"name": "acquisition/data", "url": "./sub-01.nwb"}}`))
	if l, ok := a.ExternalArrayLink(); ok {
		fmt.Println(l.URL, l.Name)
	}
	// Output: ./sub-01.nwb acquisition/data
}

func ExampleParseCompoundDType() {
	v, _ := zarrmeta.DecodeJSON([]byte(`[["x", "int32"], ["y", "float64"], ["ref", "<REFERENCE>"]]`))
	d, err := zarrmeta.ParseCompoundDType(v)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, f := range d.Fields {
		fmt.Println(f.Name, f.DType.Kind, f.Offset)
	}
	// Output:
	// x int 0
	// y float 4
	// ref reference 12
}

func ExampleParseGroup() {
	fmt.Println(zarrmeta.ParseGroup([]byte(`{"zarr_format": 2}`)))
	// Output: <nil>
}
