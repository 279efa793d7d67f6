package zarr3_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/selection"
)

// FuzzArray opens a store whose one array has a fuzzed zarr.json and a
// fuzzed chunk (or shard) at c/0 and c/0/0, and reads the whole array: any
// outcome but a panic is fine.
func FuzzArray(f *testing.F) {
	for _, p := range []string{"sharding/end_gzip", "sharding/start_zstd", "codecs/transpose_4d_blosc", "strings/vlen_utf8", "scalar/float64", "misc/shorthand_codecs"} {
		meta, err := os.ReadFile(filepath.Join(fixtures, "fixture.zarr3", p, "zarr.json"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(meta, []byte(shard()))
	}
	f.Add([]byte(shardDoc), []byte(shard()))
	// One directory, rewritten by each input (a worker runs its inputs one
	// at a time): a fresh one per input costs more than the read.
	dir := f.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "a", "c", "0"), 0o755); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, meta, chunk []byte) {
		files := map[string][]byte{"zarr.json": []byte(rootGroup), "a/zarr.json": meta, "a/c/0/0": chunk, "a/c/0/1": chunk, "a/c.0": chunk, "a/0": chunk}
		for k, v := range files {
			if err := os.WriteFile(filepath.Join(dir, filepath.FromSlash(k)), v, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		file, err := h5.Open(ctx, dir, h5.WithMaxReadBytes(1<<20))
		if err != nil {
			return
		}
		defer file.Close()
		d, err := file.Dataset(ctx, "a")
		if err != nil || d.Err() != nil {
			return
		}
		d.Read(ctx, selection.Selection{selection.Ellipsis()})
	})
}
