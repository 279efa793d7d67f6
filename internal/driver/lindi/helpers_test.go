package lindi_test

import (
	"archive/tar"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// file is a member of a test tar.
type file struct {
	name string
	data []byte
}

// indexFile is an entry of .tar_index.json.
type indexFile struct {
	N string `json:"n"`
	O int64  `json:"o"`
	D int64  `json:"d"`
	S int64  `json:"s"`
}

// layout says how to build a test tar.
type layout struct {
	files     []file // after the entry (and the index, unless indexLast)
	indexLast bool   // the index moved to the end, as lindi does when it outgrows its room
	// editIndex and editEntry change the index and the entry before they are written.
	editIndex func([]indexFile) []indexFile
	editEntry func(indexFile) string
}

// buildTar writes a LINDI tar the way Python lindi does: .tar_entry.json first
// (1024 bytes of data at 512), the index padded to 8 KiB, every member listed
// in the index by its header offset, data offset and size.
func buildTar(t *testing.T, l layout) []byte {
	t.Helper()
	const indexSize = 8192
	names := []file{{".tar_entry.json", make([]byte, 1024)}}
	index := file{".tar_index.json", make([]byte, indexSize)}
	if !l.indexLast {
		names = append(names, index)
	}
	names = append(names, l.files...)
	if l.indexLast {
		names = append(names, index)
	}
	var listed []indexFile
	var pos int64
	for _, f := range names {
		listed = append(listed, indexFile{N: f.name, O: pos, D: pos + 512, S: int64(len(f.data))})
		pos += 512 + (int64(len(f.data))+511)/512*512
	}
	self := listed[0]
	for _, f := range listed {
		if f.N == ".tar_index.json" {
			self = f
		}
	}
	entry := fmt.Sprintf(`{"index": {"d": %d, "n": ".tar_index.json", "o": %d, "s": %d}}`, self.D, self.O, self.S)
	if l.editEntry != nil {
		entry = l.editEntry(self)
	}
	if l.editIndex != nil {
		listed = l.editIndex(listed)
	}
	idx, err := json.Marshal(map[string]any{"files": listed})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := tar.NewWriter(&buf)
	for _, f := range names {
		data := f.data
		switch f.name {
		case ".tar_entry.json":
			data = padded(t, entry, 1024)
		case ".tar_index.json":
			data = padded(t, string(idx), indexSize)
		}
		hdr := &tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(data)), Format: tar.FormatUSTAR, ModTime: time.Unix(0, 0)}
		if err := w.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func padded(t *testing.T, s string, n int) []byte {
	t.Helper()
	if len(s) > n {
		t.Fatalf("%d bytes do not fit in %d", len(s), n)
	}
	return []byte(s + strings.Repeat(" ", n-len(s)))
}

// doc is a LINDI document with one dataset x of eight int32, 0…7, in two
// chunks; refs maps the chunk keys x/0 and x/1 to their refs.
func doc(refs map[string]string) []byte {
	s := `{"version": 1, "refs": {".zgroup": {"zarr_format": 2},
	"x/.zarray": {"chunks": [4], "compressor": null, "dtype": "<i4", "fill_value": 0, "filters": null, "order": "C", "shape": [8], "zarr_format": 2}`
	for k, v := range refs {
		s += fmt.Sprintf(",\n%q: %s", k, v)
	}
	return []byte(s + "}}")
}

// ints encodes int32s little-endian.
func ints(v ...int32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(x))
	}
	return b
}

// counter serves files and counts the requests for each path.
type counter struct {
	next  http.Handler
	total atomic.Int64
}

func (c *counter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.total.Add(1)
	c.next.ServeHTTP(w, r)
}

// serveBytes serves data at /name and returns the server's URL and counter.
func serveBytes(t *testing.T, name string, data []byte) (string, *counter) {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/"+name, func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, name, time.Unix(0, 0), bytes.NewReader(data))
	})
	c := &counter{next: mux}
	srv := httptest.NewServer(c)
	t.Cleanup(srv.Close)
	return srv.URL + "/" + name, c
}
