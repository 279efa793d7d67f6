package blosc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const (
	corpusDir = "../../testdata/numcodecs/blosc"
	zarrDir   = "../../testdata/conformance/fixture.zarr"
	casesFile = "../../testdata/conformance/cases.json"
)

// corpusFiles lists the encoded chunks of the numcodecs corpus.
func corpusFiles(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(corpusDir, "codec.*", "encoded.*.dat"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no corpus files under %s", corpusDir)
	}
	return files
}

// TestCorpus decodes every chunk numcodecs encoded with blosc and compares
// it with the original array, byte for byte.
func TestCorpus(t *testing.T) {
	for _, f := range corpusFiles(t) {
		codec := filepath.Base(filepath.Dir(f))
		nn := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "encoded."), ".dat")
		t.Run(codec+"/"+nn, func(t *testing.T) {
			want := readNPY(t, filepath.Join(corpusDir, "array."+nn+".npy")).data
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			prefix := []byte("prefix")
			got, err := Decode(bytes.Clone(prefix), src, len(want))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(got, prefix) {
				t.Fatal("Decode did not keep dst's bytes")
			}
			if !bytes.Equal(got[len(prefix):], want) {
				t.Fatalf("decoded %d bytes differ from the %d-byte array", len(got)-len(prefix), len(want))
			}
			if _, err := Decode(nil, src, len(want)-1); err == nil {
				t.Fatal("no error with a limit one byte short")
			}
		})
	}
}

type zarrMeta struct {
	Chunks     []int    `json:"chunks"`
	Shape      []int    `json:"shape"`
	DType      string   `json:"dtype"`
	Order      string   `json:"order"`
	Compressor struct{} `json:"compressor"`
}

// fullCase finds the expected .npy holding the whole of dataset.
func fullCase(t *testing.T, dataset string) string {
	t.Helper()
	b, err := os.ReadFile(casesFile)
	if err != nil {
		t.Fatal(err)
	}
	var cases struct {
		Cases []struct {
			Dataset, Kind, Expected string
		}
	}
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases.Cases {
		if c.Dataset == dataset && c.Kind == "full" {
			return filepath.Join(filepath.Dir(casesFile), c.Expected)
		}
	}
	t.Fatalf("no full case for %s", dataset)
	return ""
}

// TestZarrFixture decodes every chunk of the blosc arrays of the Zarr
// fixture (2-D, C order) and compares the part inside the array with the
// values zarr-python read.
func TestZarrFixture(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join(zarrDir, "blosc_*"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no blosc arrays under %s (%v)", zarrDir, err)
	}
	for _, dir := range dirs {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			var meta zarrMeta
			b, err := os.ReadFile(filepath.Join(dir, ".zarray"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &meta); err != nil {
				t.Fatal(err)
			}
			if len(meta.Shape) != 2 || meta.Order != "C" {
				t.Fatalf("test handles 2-D C-order arrays, got shape %v order %s", meta.Shape, meta.Order)
			}
			want := readNPY(t, fullCase(t, name))
			isz := want.itemsize(t)
			if want.descr != meta.DType || fmt.Sprint(want.shape) != fmt.Sprint(meta.Shape) {
				t.Fatalf("expected array is %s %v, .zarray says %s %v", want.descr, want.shape, meta.DType, meta.Shape)
			}
			rows, cols := meta.Chunks[0], meta.Chunks[1]
			chunkBytes := rows * cols * isz
			n := 0
			for ci := 0; ci*rows < meta.Shape[0]; ci++ {
				for cj := 0; cj*cols < meta.Shape[1]; cj++ {
					key := strconv.Itoa(ci) + "." + strconv.Itoa(cj)
					src, err := os.ReadFile(filepath.Join(dir, key))
					if os.IsNotExist(err) {
						continue // missing chunk: fill value
					}
					if err != nil {
						t.Fatal(err)
					}
					h, err := ParseHeader(src)
					if err != nil {
						t.Fatalf("chunk %s: %v", key, err)
					}
					if h.TypeSize != isz || h.NBytes != chunkBytes {
						t.Fatalf("chunk %s: header typesize %d nbytes %d, want %d %d", key, h.TypeSize, h.NBytes, isz, chunkBytes)
					}
					got, err := Decode(nil, src, chunkBytes)
					if err != nil {
						t.Fatalf("chunk %s: %v", key, err)
					}
					if len(got) != chunkBytes {
						t.Fatalf("chunk %s: %d bytes, want %d", key, len(got), chunkBytes)
					}
					for r := 0; r < rows && ci*rows+r < meta.Shape[0]; r++ {
						c1 := min(cols, meta.Shape[1]-cj*cols)
						row := ci*rows + r
						w := want.data[(row*meta.Shape[1]+cj*cols)*isz : (row*meta.Shape[1]+cj*cols+c1)*isz]
						g := got[r*cols*isz : (r*cols+c1)*isz]
						if !bytes.Equal(g, w) {
							t.Fatalf("chunk %s row %d differs from the expected values", key, r)
						}
					}
					n++
				}
			}
			if n == 0 {
				t.Fatal("no chunk decoded")
			}
		})
	}
}
