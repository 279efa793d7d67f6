package codecs

import (
	"strings"
	"testing"
)

func TestHDF5Filter(t *testing.T) {
	tests := []struct {
		name       string
		id         uint16
		clientData []uint32
		elemSize   int
		want       string
		wantErr    error
		errHas     string
	}{
		{"deflate", 1, []uint32{4}, 2, `{"id":"zlib","level":4}`, nil, ""},
		{"deflate without level", 1, nil, 2, `{"id":"zlib","level":6}`, nil, ""},
		{"shuffle from client data", 2, []uint32{8}, 2, `{"elementsize":8,"id":"shuffle"}`, nil, ""},
		{"shuffle from element size", 2, nil, 4, `{"elementsize":4,"id":"shuffle"}`, nil, ""},
		{"shuffle of size 0", 2, []uint32{0}, 4, "", ErrConfig, "element size 0"},
		{"shuffle without any size", 2, nil, 0, "", ErrConfig, "element size 0"},
		{"fletcher32", 3, nil, 4, `{"id":"fletcher32"}`, nil, ""},
		{"lzf", 32000, []uint32{0, 2, 4000}, 4, `{"id":"lzf"}`, nil, ""},
		{"blosc", 32001, []uint32{2, 2, 4, 4000, 5, 1, 1}, 4, `{"id":"blosc"}`, nil, ""},
		{"zstd", 32015, []uint32{3}, 4, `{"id":"zstd"}`, nil, ""},
		{"szip", 4, []uint32{141, 32, 2, 1024}, 2, "", ErrUnknownCodec, "HDF5 filter 4 (szip)"},
		{"nbit", 5, nil, 2, "", ErrUnknownCodec, "HDF5 filter 5 (nbit)"},
		{"scaleoffset without its client data", 6, nil, 2, "", ErrConfig, "0 client data values"},
		{"unregistered", 0, nil, 2, "", ErrUnknownCodec, "HDF5 filter 0"},
		{"unknown plugin", 32013, nil, 2, "", ErrUnknownCodec, "HDF5 filter 32013"},
		{"lz4", 32004, []uint32{0}, 2, `{"id":"imagecodecs_lz4h5"}`, nil, ""},
		{"bitshuffle", 32008, []uint32{0, 3, 2, 0, 0}, 2, `{"blocksize":0,"id":"imagecodecs_bitshuffle","itemsize":2}`, nil, ""},
		{"bitshuffle lz4", 32008, []uint32{0, 3, 4, 64, 2}, 2, `{"id":"hdf5_bitshuffle_lz4","itemsize":4}`, nil, ""},
		{"bitshuffle zstd", 32008, []uint32{0, 4, 4, 0, 3, 1}, 4, "", ErrUnknownCodec, "compression 3"},
		{"bitshuffle odd blocks", 32008, []uint32{0, 3, 4, 12, 0}, 4, "", ErrConfig, "blocksize 12"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := HDF5Filter(tc.id, tc.clientData, tc.elemSize)
			wantErr(t, err, tc.wantErr)
			if err != nil {
				if !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("error %q does not say %q", err, tc.errHas)
				}
				return
			}
			if string(got) != tc.want {
				t.Fatalf("config %s, want %s", got, tc.want)
			}
			// Every configuration in the table builds a codec.
			if _, err := Builtin().NewCodec(got); err != nil {
				t.Fatalf("NewCodec(%s): %v", got, err)
			}
		})
	}
}

// TestHDF5FilterPipeline decodes an h5py-style shuffle, deflate, fletcher32
// chunk through configurations from the table.
func TestHDF5FilterPipeline(t *testing.T) {
	data := signal(10_000)
	z := encodeZlib(t, shuffleBytes(data, 2))
	chunk := withChecksum(z, fletcher32(z))
	var filters [][]byte
	for _, id := range []uint16{2, 1, 3} {
		cfg, err := HDF5Filter(id, nil, 2)
		if err != nil {
			t.Fatal(err)
		}
		filters = append(filters, cfg)
	}
	p, err := Builtin().Pipeline(nil, filters)
	if err != nil {
		t.Fatal(err)
	}
	got, err := p.Decode(nil, chunk, len(data))
	if err != nil || string(got) != string(data) {
		t.Fatalf("decoded %d bytes, err %v", len(got), err)
	}
}
