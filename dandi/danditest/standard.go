package danditest

import (
	_ "embed"
	"encoding/binary"
	"strings"
	"testing"
)

// tables.nwb is a small NWB file (an ElectricalSeries, tables); its LINDI
// JSON names it "./tables.nwb".
var (
	//go:embed testdata/tables.nwb
	nwbFile []byte
	//go:embed testdata/tables.nwb.lindi.json
	nwbLINDI string
)

// NWB returns the bytes of the small NWB file the standard archive serves
// (a copy: the caller may change it).
func NWB() []byte { return append([]byte(nil), nwbFile...) }

// The standard archive's dandisets and versions.
const (
	Public    = "000409"        // public, with a published version
	Embargoed = "000123"        // embargoed: readable with Key only
	Published = "0.230101.1200" // Public's published version
)

// The standard archive's assets of Public's draft.
const (
	Ecephys  = "sub-01/sub-01_ecephys.nwb"  // NWB; a good precomputed LINDI file
	Behavior = "sub-01/sub-01_behavior.nwb" // NWB; a tampered precomputed file (a ref to another host)
	Sub02    = "sub-02/sub-02_ecephys.nwb"  // NWB; no precomputed file (404)
	ZarrPath = "sub-03/sub-03.ome.zarr"     // a Zarr v2 store: group with array "data", int16 [1 2 3 4]
	Secret   = "secret.nwb"                 // Embargoed's only asset
)

// Standard starts the standard stand-in archive: Public's draft holds
// Ecephys, Behavior, Sub02 (the same NWB file, NWB()), sub-02/notes.txt,
// README.md and ZarrPath; its Published version holds Ecephys alone;
// Embargoed holds Secret. With the default page size the draft lists in
// two pages.
func Standard(tb testing.TB) *Server {
	tb.Helper()
	good := strings.ReplaceAll(nwbLINDI, `"./tables.nwb"`, `"`+BlobURL+`"`)
	i := strings.LastIndex(good, `"`+BlobURL+`"`) // a chunk ref's, not the metadata's sourceUrl
	tampered := good[:i] + `"https://elsewhere.example.org/x.nwb"` + good[i+len(BlobURL)+2:]
	return New(tb,
		Dandiset{ID: Public, Draft: []Asset{
			{Path: Ecephys, Data: nwbFile, Precomputed: []byte(good)},
			{Path: Behavior, Data: nwbFile, Precomputed: []byte(tampered)},
			{Path: Sub02, Data: nwbFile},
			{Path: "sub-02/notes.txt", Data: []byte("notes\n")},
			{Path: "README.md", Data: []byte("# 000409\n")},
			{Path: ZarrPath, Zarr: smallZarr()},
		}, Published: map[string][]Asset{Published: {{Path: Ecephys, Data: nwbFile}}}},
		Dandiset{ID: Embargoed, Embargoed: true, Draft: []Asset{{Path: Secret, Data: nwbFile}}},
	)
}

// smallZarr is a Zarr v2 group with one array, "data": int16 [1 2 3 4].
func smallZarr() map[string][]byte {
	chunk := make([]byte, 8)
	for i := range 4 {
		binary.LittleEndian.PutUint16(chunk[2*i:], uint16(i+1))
	}
	return map[string][]byte{
		".zgroup":      []byte(`{"zarr_format": 2}`),
		".zattrs":      []byte(`{}`),
		"data/.zarray": []byte(`{"chunks": [4], "compressor": null, "dtype": "<i2", "fill_value": 0, "filters": null, "order": "C", "shape": [4], "zarr_format": 2}`),
		"data/.zattrs": []byte(`{}`),
		"data/0":       chunk,
	}
}
