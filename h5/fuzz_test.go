package h5_test

import (
	"os"
	"path/filepath"
	"runtime/metrics"
	"testing"

	"github.com/lindigo/lindi/h5"
)

// heapBytes reads the bytes of live and not yet swept heap objects, without
// stopping the world.
func heapBytes() uint64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// FuzzOpenLINDI opens a LINDI document from any bytes and reads every
// dataset whole: no panic, every read within the 1 MiB limit given, and the
// heap bounded whatever the document claims (shapes of 1e12, millions of
// chunks, deep nesting).
func FuzzOpenLINDI(f *testing.F) {
	for _, name := range []string{"fixture.lindi.json", "fixture.extlink.lindi.json"} {
		b, err := os.ReadFile(filepath.Join(conformanceDir, name))
		if err != nil {
			f.Fatal(err)
		}
		if len(b) > 64<<10 {
			b = b[:64<<10]
		}
		f.Add(b)
	}
	f.Add([]byte(lindiArray("[1000000000000]", "[1]", "<f8")))
	f.Add([]byte(lindiArray("[3000000]", "[1]", "|u1")))
	f.Add([]byte(`{"refs": {".zgroup": {"zarr_format": 2}, "a\u001b]0;x\u0007/.zgroup": {}, "d/.zarray": {"shape": [2],
	"chunks": [1], "dtype": "|O", "compressor": null, "filters": [{"id": "json2"}], "fill_value": null},
	"d/0": "[\"a\", \"|O\", [1]]", "d/1": ["file:/etc/passwd", 0, 5],
	"e/.zarray": {"shape": [4], "chunks": [2], "dtype": "<i4", "compressor": null, "fill_value": 0},
	"e/.zattrs": {"_EXTERNAL_ARRAY_LINK": {"link_type": "hdf5_dataset", "url": "C:/x.h5", "name": "e"}}}}`))
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, doc []byte) {
		name := filepath.Join(dir, "f.lindi.json")
		if err := os.WriteFile(name, doc, 0o644); err != nil {
			t.Fatal(err)
		}
		file, err := h5.Open(ctx, name, h5.WithMaxReadBytes(1<<20), h5.WithCacheBytes(0), h5.WithWorkers(1))
		if err != nil {
			return
		}
		defer file.Close()
		file.Root().Walk(ctx, func(path string, l h5.Link, obj h5.Object, err error) error {
			d, ok := obj.(*h5.Dataset)
			if err != nil || !ok {
				return nil
			}
			a, err := d.Read(ctx, nil)
			if err == nil && len(a.Data)+16*len(a.Objects) > 1<<20 {
				t.Fatalf("%s: read %d bytes and %d objects past the 1 MiB limit", path, len(a.Data), len(a.Objects))
			}
			if heap := heapBytes(); heap > 512<<20 {
				t.Fatalf("%s: heap at %d MB", path, heap>>20)
			}
			return nil
		})
	})
}
