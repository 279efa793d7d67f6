package zarrmeta

import (
	"os"
	"testing"
)

func BenchmarkParseArray(b *testing.B) {
	doc, err := os.ReadFile("../testdata/conformance/fixture.zarr/blosc_lz4_shuffle/.zarray")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseArray(doc); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseAttrs(b *testing.B) {
	doc := []byte(`{"description": "raw voltage", "neurodata_type": "ElectricalSeries", "conversion": 1.95e-07,
		"offset": NaN, "unit": "volts", "channels": [0, 1, 2, 3, 4, 5, 6, 7], "_SCALAR": true,
		"ref": {"_REFERENCE": {"object_id": null, "path": "/general", "source": ".", "source_object_id": null}}}`)
	b.SetBytes(int64(len(doc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseAttrs(doc); err != nil {
			b.Fatal(err)
		}
	}
}
