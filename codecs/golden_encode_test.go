package codecs

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/lindigo/lindi/codecs/blosc"
)

var update = flag.Bool("update", false, "rewrite testdata/encode/ours with our encoders' output (then run check_ours.py)")

const goldenDir = "testdata/encode"

// goldenManifest is testdata/encode/manifest.json, written by gen.py.
type goldenManifest struct {
	Inputs map[string]struct {
		DType    string `json:"dtype"`
		ItemSize int    `json:"itemsize"`
		NBytes   int    `json:"nbytes"`
	} `json:"inputs"`
	Configs map[string]struct {
		Config     json.RawMessage `json:"config"`
		DecodeOnly bool            `json:"decode_only"`
	} `json:"configs"`
	Frames []struct {
		Config string `json:"config"`
		Input  string `json:"input"`
	} `json:"frames"`
}

// goldenObject is one entry of objects.json.
type goldenObject struct {
	config []byte
	items  []any
	shape  []int
}

func loadManifest(t *testing.T) goldenManifest {
	t.Helper()
	var m goldenManifest
	if err := json.Unmarshal(readFile(t, filepath.Join(goldenDir, "manifest.json")), &m); err != nil {
		t.Fatal(err)
	}
	if len(m.Frames) == 0 {
		t.Fatal("manifest lists no frames")
	}
	return m
}

// loadObjects reads objects.json with the codecs JSON parser, which takes
// the bare NaN and Infinity tokens json2 writes.
func loadObjects(t *testing.T) map[string]goldenObject {
	t.Helper()
	v, err := parseJSON("objects.json", readFile(t, filepath.Join(goldenDir, "objects.json")))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]goldenObject{}
	for name, e := range v.(map[string]any) {
		entry := e.(map[string]any)
		config, _ := json.Marshal(entry["config"])
		o := goldenObject{config: config, items: entry["items"].([]any)}
		for _, d := range entry["shape"].([]any) {
			n, _ := d.(json.Number).Int64()
			o.shape = append(o.shape, int(n))
		}
		if idOf(config) == "vlen-bytes" { // hex in objects.json
			for i, it := range o.items {
				b, err := hex.DecodeString(it.(string))
				if err != nil {
					t.Fatal(err)
				}
				o.items[i] = b
			}
		}
		out[name] = o
	}
	return out
}

func goldenInput(t *testing.T, name string) []byte {
	t.Helper()
	return readFile(t, filepath.Join(goldenDir, "inputs", name+".bin"))
}

// TestDecodeNumcodecsFrames decodes every frame numcodecs 0.11 wrote for
// the golden inputs and compares it with the input. It also checks that the
// blosc frames cover the layouts the encoders must handle.
func TestDecodeNumcodecsFrames(t *testing.T) {
	m := loadManifest(t)
	seen := map[string]bool{}
	for _, f := range m.Frames {
		cfg := m.Configs[f.Config]
		src := goldenInput(t, f.Input)
		frame := readFile(t, filepath.Join(goldenDir, "numcodecs", f.Config, f.Input+".dat"))
		c, err := Builtin().NewCodec(cfg.Config)
		if err != nil {
			t.Fatalf("%s: %v", f.Config, err)
		}
		got, err := c.Decode(nil, frame, len(src))
		if err != nil || !bytes.Equal(got, src) {
			t.Errorf("%s/%s: decode differs from the input: %v", f.Config, f.Input, err)
		}
		if idOf(cfg.Config) == "blosc" {
			for _, k := range bloscLayout(t, frame) {
				seen[k] = true
			}
		}
	}
	for _, k := range []string{"memcpyed", "one block", "leftover", "split", "unsplit", "raw stream", "typesize 1 for 300"} {
		if !seen[k] {
			t.Errorf("no numcodecs blosc frame shows %q", k)
		}
	}
}

// bloscLayout names the layout features of a blosc frame.
func bloscLayout(t *testing.T, frame []byte) []string {
	t.Helper()
	h, err := blosc.ParseHeader(frame)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	if h.Memcpyed() {
		return append(out, "memcpyed")
	}
	nblocks := (h.NBytes + h.BlockSize - 1) / h.BlockSize
	if nblocks == 1 {
		out = append(out, "one block")
	}
	if h.NBytes%h.BlockSize != 0 {
		out = append(out, "leftover")
	}
	split := h.Flags&blosc.FlagDontSplit == 0 && h.TypeSize > 1 && h.TypeSize <= 16 && h.BlockSize/h.TypeSize >= 128
	if split {
		out = append(out, "split")
	} else {
		out = append(out, "unsplit")
	}
	if h.TypeSize == 1 && h.NBytes%300 == 0 && h.NBytes >= 3000 {
		out = append(out, "typesize 1 for 300")
	}
	// A stream stored raw has csize equal to its decoded size.
	start := int(uint32(frame[16]) | uint32(frame[17])<<8 | uint32(frame[18])<<16 | uint32(frame[19])<<24)
	neblock := h.BlockSize
	if split {
		neblock /= h.TypeSize
	}
	if start+4 <= len(frame) {
		cs := int(uint32(frame[start]) | uint32(frame[start+1])<<8 | uint32(frame[start+2])<<16 | uint32(frame[start+3])<<24)
		if cs == neblock {
			out = append(out, "raw stream")
		}
	}
	return out
}

// TestDecodeNumcodecsObjects decodes numcodecs' object frames and compares
// the items with objects.json.
func TestDecodeNumcodecsObjects(t *testing.T) {
	for name, o := range loadObjects(t) {
		oc, err := Builtin().NewObjectCodec(o.config)
		if err != nil {
			t.Fatal(err)
		}
		frame := readFile(t, filepath.Join(goldenDir, "numcodecs", "objects", name+".dat"))
		got, err := oc.DecodeObjects(frame, len(o.items))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !reflect.DeepEqual(normalizeItems(got), normalizeItems(o.items)) {
			t.Errorf("%s: decoded %v, want %v", name, got, o.items)
		}
	}
}

// normalizeItems maps empty []byte to nil-free empties so that DeepEqual
// compares content.
func normalizeItems(items []any) []any {
	out := slices.Clone(items)
	for i, it := range out {
		if b, ok := it.([]byte); ok {
			out[i] = string(b)
		}
	}
	return out
}

// TestOursGolden encodes every golden input with our encoders. With -update
// it writes them to testdata/encode/ours (plus ours/manifest.json with our
// Config() of each label) for check_ours.py; without, it asserts that the
// encoders still produce exactly those bytes, and that check_ours.txt
// (numcodecs' verdict) covers every file with its current hash, so that an
// encoder change forces a new numcodecs check.
func TestOursGolden(t *testing.T) {
	m := loadManifest(t)
	type entry struct {
		Config string   `json:"config"`
		Inputs []string `json:"inputs"`
		Items  bool     `json:"objects,omitempty"`
	}
	manifest := map[string]*entry{}
	files := map[string][]byte{} // path relative to ours/ -> bytes
	for _, f := range m.Frames {
		cfg := m.Configs[f.Config]
		if cfg.DecodeOnly {
			continue
		}
		c, err := Builtin().NewCodec(cfg.Config)
		if err != nil {
			t.Fatal(err)
		}
		enc, ok := c.(Encoder)
		if !ok {
			t.Fatalf("%s does not encode", f.Config)
		}
		out, err := enc.Encode(nil, goldenInput(t, f.Input), m.Inputs[f.Input].ItemSize)
		if err != nil {
			t.Fatalf("%s/%s: %v", f.Config, f.Input, err)
		}
		files[filepath.Join(f.Config, f.Input+".dat")] = out
		if manifest[f.Config] == nil {
			manifest[f.Config] = &entry{Config: string(enc.Config())}
		}
		manifest[f.Config].Inputs = append(manifest[f.Config].Inputs, f.Input)
	}
	for name, o := range loadObjects(t) {
		oc, err := Builtin().NewObjectCodec(o.config)
		if err != nil {
			t.Fatal(err)
		}
		enc := oc.(ObjectEncoder)
		out, err := enc.EncodeObjects(o.items, o.shape)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		// json2 and vlen are deterministic: numcodecs' bytes exactly.
		if want := readFile(t, filepath.Join(goldenDir, "numcodecs", "objects", name+".dat")); !bytes.Equal(out, want) {
			t.Errorf("%s: ours\n%q\nnumcodecs\n%q", name, out, want)
		}
		files[filepath.Join("objects", name+".dat")] = out
		manifest["objects/"+name] = &entry{Config: string(enc.Config()), Inputs: []string{name}, Items: true}
	}
	for _, e := range manifest {
		slices.Sort(e.Inputs)
	}
	if *update {
		writeOurs(t, files, manifest)
		return
	}
	want, err := json.MarshalIndent(manifest, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(goldenDir, "ours", "manifest.json")); !bytes.Equal(bytes.TrimSpace(got), want) {
		t.Errorf("ours/manifest.json (our Config() per label) is stale: run go test -run OursGolden -update and check_ours.py")
	}
	checked := checkedHashes(t)
	for rel, out := range files {
		got, err := os.ReadFile(filepath.Join(goldenDir, "ours", rel))
		if err != nil || !bytes.Equal(got, out) {
			t.Errorf("%s: our encoder's output changed: run go test -run OursGolden -update, then check_ours.py", rel)
			continue
		}
		sum := sha256.Sum256(out)
		if checked[filepath.ToSlash(rel)] != hex.EncodeToString(sum[:]) {
			t.Errorf("%s: not verified by numcodecs at this hash: run check_ours.py", rel)
		}
	}
}

func writeOurs(t *testing.T, files map[string][]byte, manifest any) {
	t.Helper()
	dir := filepath.Join(goldenDir, "ours")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	for rel, b := range files {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := json.MarshalIndent(manifest, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// checkedHashes reads check_ours.txt: lines "OK <path> <sha256> ...".
func checkedHashes(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, line := range strings.Split(string(readFile(t, filepath.Join(goldenDir, "check_ours.txt"))), "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && f[0] == "OK" {
			out[f[1]] = f[2]
		}
	}
	if len(out) == 0 {
		t.Fatal("check_ours.txt has no OK lines")
	}
	return out
}
