package zarr3_test

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lindigo/lindi/codecs"
	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/selection"
)

// writeStore writes files (key → content) as a directory store.
func writeStore(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for k, v := range files {
		p := filepath.Join(dir, filepath.FromSlash(k))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const rootGroup = `{"zarr_format": 3, "node_type": "group"}`

// array returns the zarr.json of a 1-d int16 array of 8 elements in chunks
// of 4 with the given codecs (JSON) and an extra member (JSON, or "").
func array(codecs, extra string) string {
	if extra != "" {
		extra = ", " + extra
	}
	return `{"zarr_format": 3, "node_type": "array", "shape": [8], "data_type": "int16",
	"chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
	"chunk_key_encoding": {"name": "default"}, "fill_value": 7, "codecs": ` + codecs + extra + `}`
}

func TestUnknownExtension(t *testing.T) {
	dir := writeStore(t, map[string]string{
		"zarr.json":   rootGroup,
		"a/zarr.json": array(`[{"name": "bytes", "configuration": {"endian": "little"}}]`, `"fancy_extension": {"must_understand": true}`),
	})
	_, err := h5.Open(ctx, dir)
	if err == nil || !strings.Contains(err.Error(), `"fancy_extension"`) {
		t.Fatalf("err %v, want one naming fancy_extension", err)
	}
	dir = writeStore(t, map[string]string{
		"zarr.json":   rootGroup,
		"a/zarr.json": array(`[{"name": "bytes", "configuration": {"endian": "little"}}]`, `"fancy_extension": {"must_understand": false}`),
	})
	if _, err := h5.Open(ctx, dir); err != nil {
		t.Fatal(err)
	}
}

func TestUnknownCodec(t *testing.T) {
	dir := writeStore(t, map[string]string{
		"zarr.json":   rootGroup,
		"a/zarr.json": array(`[{"name": "bytes"}, {"name": "mystery", "configuration": {}}]`, ""),
		"b/zarr.json": array(`[{"name": "bytes"}]`, ""),
	})
	f, err := h5.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	d, err := f.Dataset(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Err(); !errors.Is(err, codecs.ErrUnknownCodec) || !strings.Contains(err.Error(), `"mystery"`) {
		t.Fatalf("err %v, want one naming the codec", err)
	}
	// The rest of the store reads: b's chunks are all missing, so fill.
	b, err := f.Dataset(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	got, err := h5.Read[int16](ctx, b, selection.Selection{selection.All()})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Data, []int16{7, 7, 7, 7, 7, 7, 7, 7}) {
		t.Fatalf("got %v", got.Data)
	}
}

func TestBadMetadata(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{`{"zarr_format": 2, "node_type": "array"}`, "zarr_format 2"},
		{`{"zarr_format": 3, "node_type": "table"}`, "node_type"},
		{array(`[]`, ""), "empty codecs"},
		{array(`[{"name": "transpose", "configuration": {"order": [0]}}]`, ""), "no array→bytes codec"},
		{array(`[{"name": "mystery"}, "bytes"]`, ""), `"mystery"`},
		{array(`[{"name": "gzip"}]`, ""), "before the array→bytes codec"},
		{strings.Replace(array(`["bytes"]`, ""), `"int16"`, `"int12"`, 1), `"int12"`},
		{strings.Replace(array(`["bytes"]`, ""), `"fill_value": 7`, `"fill_value": 70000`, 1), "fill_value"},
		{strings.Replace(array(`["bytes"]`, ""), `"regular"`, `"rectilinear"`, 1), `"rectilinear"`},
		{strings.Replace(array(`["bytes"]`, ""), `[4]`, `[4, 4]`, 1), "chunk_shape"},
		{array(`["bytes"]`, `"storage_transformers": [{"name": "x"}]`), "storage_transformers"},
	} {
		dir := writeStore(t, map[string]string{"zarr.json": rootGroup, "a/zarr.json": tc.doc})
		f, err := h5.Open(ctx, dir)
		if err == nil {
			var d *h5.Dataset
			if d, err = f.Dataset(ctx, "a"); err == nil {
				err = d.Err()
			}
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err %v, want one saying %s", tc.doc, err, tc.want)
		}
	}
}

// shardDoc is a 1-d uint16 array of 8 in one shard of two inner chunks of 4.
const shardDoc = `{"zarr_format": 3, "node_type": "array", "shape": [8], "data_type": "uint16",
	"chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [8]}},
	"chunk_key_encoding": {"name": "default"}, "fill_value": 9,
	"codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": [4],
		"codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
		"index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]}}]}`

// shard builds a shard holding inner chunk 1 only, its index at the end.
func shard() []byte {
	var b []byte
	for i := range 4 {
		b = binary.LittleEndian.AppendUint16(b, uint16(100+i))
	}
	var idx []byte
	idx = binary.LittleEndian.AppendUint64(idx, math.MaxUint64)
	idx = binary.LittleEndian.AppendUint64(idx, math.MaxUint64)
	idx = binary.LittleEndian.AppendUint64(idx, 0)
	idx = binary.LittleEndian.AppendUint64(idx, 8)
	idx = binary.LittleEndian.AppendUint32(idx, crc32.Checksum(idx, crc32.MakeTable(crc32.Castagnoli)))
	return append(b, idx...)
}

func TestShardIndex(t *testing.T) {
	good := shard()
	read := func(t *testing.T, content []byte) ([]uint16, error) {
		dir := writeStore(t, map[string]string{"zarr.json": rootGroup, "a/zarr.json": shardDoc, "a/c/0": string(content)})
		f, err := h5.Open(ctx, dir)
		if err != nil {
			t.Fatal(err)
		}
		d, err := f.Dataset(ctx, "a")
		if err != nil {
			t.Fatal(err)
		}
		a, err := h5.Read[uint16](ctx, d, selection.Selection{selection.All()})
		if err != nil {
			return nil, err
		}
		return a.Data, nil
	}
	got, err := read(t, good)
	if err != nil || !reflect.DeepEqual(got, []uint16{9, 9, 9, 9, 100, 101, 102, 103}) {
		t.Fatalf("got %v, %v", got, err)
	}
	bad := append([]byte(nil), good...)
	bad[len(bad)-10] ^= 1 // an index entry, under the checksum
	if _, err := read(t, bad); !errors.Is(err, codecs.ErrCorrupt) || !strings.Contains(err.Error(), "crc32c") {
		t.Errorf("corrupt index: err %v", err)
	}
	// An entry past the end of the shard.
	past := append([]byte(nil), good[:8]...)
	var idx []byte
	idx = binary.LittleEndian.AppendUint64(idx, 0)
	idx = binary.LittleEndian.AppendUint64(idx, 800)
	idx = binary.LittleEndian.AppendUint64(idx, 0)
	idx = binary.LittleEndian.AppendUint64(idx, 8)
	idx = binary.LittleEndian.AppendUint32(idx, crc32.Checksum(idx, crc32.MakeTable(crc32.Castagnoli)))
	if _, err := read(t, append(past, idx...)); !errors.Is(err, codecs.ErrCorrupt) || !strings.Contains(err.Error(), "800 bytes at 0") {
		t.Errorf("entry out of bounds: err %v", err)
	}
	if _, err := read(t, good[:10]); err == nil || !strings.Contains(err.Error(), "shorter than its 36-byte index") {
		t.Errorf("short shard: err %v", err)
	}
}

// TestAttributes checks attribute values through h5: integers, special
// floats as bare tokens, unicode escapes (zarrmeta tests exact 64-bit
// integers: h5 turns a list of mixed numbers into floats).
func TestAttributes(t *testing.T) {
	f, err := h5.Open(ctx, filepath.Join(fixtures, "fixture-consolidated.zarr3"))
	if err != nil {
		t.Fatal(err)
	}
	if v, err := f.Root().Attrs().Int("fixture_version"); err != nil || v != 1 {
		t.Errorf("fixture_version %v, %v", v, err)
	}
	if u, err := f.Root().Attrs().String("unicode"); err != nil || u != "µm ✓ 日本 🧠" {
		t.Errorf("unicode %q, %v", u, err)
	}
	g, err := f.Group(ctx, "attrs/bare_tokens")
	if err != nil {
		t.Fatal(err)
	}
	if x, err := g.Attrs().Float("nan"); err != nil || !math.IsNaN(x) {
		t.Errorf("bare NaN: %v, %v", x, err)
	}
	if x, err := g.Attrs().Float("ninf"); err != nil || !math.IsInf(x, -1) {
		t.Errorf("bare -Infinity: %v, %v", x, err)
	}
}

// TestRootArray opens a store whose root is an array: it reads as the
// member "data" of a root group.
func TestRootArray(t *testing.T) {
	dir := writeStore(t, map[string]string{
		"zarr.json": array(`[{"name": "bytes", "configuration": {"endian": "little"}}]`, `"attributes": {"units": "mV"}`),
		"c/1":       "\x01\x00\x02\x00\x03\x00\x04\x00",
	})
	f, err := h5.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	d, err := f.Dataset(ctx, "data")
	if err != nil {
		t.Fatal(err)
	}
	if u, err := d.Attrs().String("units"); err != nil || u != "mV" {
		t.Errorf("units %q, %v", u, err)
	}
	got, err := h5.Read[int16](ctx, d, selection.Selection{selection.All()})
	if err != nil || !reflect.DeepEqual(got.Data, []int16{7, 7, 7, 7, 1, 2, 3, 4}) {
		t.Fatalf("got %v, %v", got, err)
	}
}

// index encodes a shard index of (offset, nbytes) pairs, little-endian with
// a crc32c.
func index(pairs ...uint64) []byte {
	var b []byte
	for _, p := range pairs {
		b = binary.LittleEndian.AppendUint64(b, p)
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)))
}

func u16s(vs ...uint16) []byte {
	var b []byte
	for _, v := range vs {
		b = binary.LittleEndian.AppendUint16(b, v)
	}
	return b
}

// TestNestedSharding reads an array of 16 in one shard of two chunks of 8,
// each a shard of two inner chunks of 4 (index at its start in the first,
// at its end in the second): one inner chunk missing, one nested shard
// missing, and a 0-d sharded array.
func TestNestedSharding(t *testing.T) {
	const m = math.MaxUint64
	doc := func(shape, outer, mid, inner string) string {
		return `{"zarr_format": 3, "node_type": "array", "shape": ` + shape + `, "data_type": "uint16",
		"chunk_grid": {"name": "regular", "configuration": {"chunk_shape": ` + outer + `}},
		"chunk_key_encoding": {"name": "default"}, "fill_value": 9,
		"codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": ` + mid + `,
			"index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
			"codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": ` + inner + `, "index_location": "start",
				"index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}],
				"codecs": [{"name": "bytes", "configuration": {"endian": "little"}}]}}]}}]}`
	}
	// The first nested shard: its index (36 bytes) at the start, then inner chunk 1; chunk 0 is missing.
	sub0 := append(index(m, m, 36, 8), u16s(4, 5, 6, 7)...)
	// The outer shard: the nested shard 0, then its index; nested shard 1 missing.
	outer := append(append([]byte(nil), sub0...), index(0, uint64(len(sub0)), m, m)...)
	// The second outer shard: nested shard 0 missing, nested shard 1 with both inner chunks.
	sub1 := append(index(36, 8, 44, 8), u16s(8, 9, 10, 11, 12, 13, 14, 15)...)
	outer2 := append(append([]byte(nil), sub1...), index(m, m, 0, uint64(len(sub1)))...)
	scalar := append(index(20, 2), u16s(42)...) // a 1-entry index is 20 bytes
	dir := writeStore(t, map[string]string{
		"zarr.json":   rootGroup,
		"a/zarr.json": doc("[32]", "[16]", "[8]", "[4]"),
		"a/c/0":       string(outer),
		"a/c/1":       string(outer2),
		"s/zarr.json": doc("[]", "[]", "[]", "[]"),
		"s/c":         string(append(append([]byte(nil), scalar...), index(0, uint64(len(scalar)))...)),
	})
	f, err := h5.Open(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	d, err := f.Dataset(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Err(); err != nil {
		t.Fatal(err)
	}
	got, err := h5.Read[uint16](ctx, d, selection.Selection{selection.All()})
	want := []uint16{9, 9, 9, 9, 4, 5, 6, 7, 9, 9, 9, 9, 9, 9, 9, 9,
		9, 9, 9, 9, 9, 9, 9, 9, 8, 9, 10, 11, 12, 13, 14, 15}
	if err != nil || !reflect.DeepEqual(got.Data, want) {
		t.Fatalf("got %v, %v\nwant %v", got, err, want)
	}
	if !reflect.DeepEqual(d.Chunks(), []int{4}) {
		t.Errorf("chunks %v", d.Chunks())
	}
	s, err := f.Dataset(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	sv, err := h5.Read[uint16](ctx, s, nil)
	if err != nil || !reflect.DeepEqual(sv.Data, []uint16{42}) {
		t.Fatalf("scalar %v, %v", sv, err)
	}
}
