package h5grove

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostileFiles asks for files outside the served directory in every
// way a query can: each is refused with 403 or 404, and no answer names the
// directory or anything outside it.
func TestHostileFiles(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.h5")
	copyFile(t, filepath.Join(conformance, "fixture.h5"), secret)
	dir := t.TempDir()
	copyFile(t, filepath.Join(conformance, "fixture.h5"), filepath.Join(dir, "ok.h5"))
	if err := os.Symlink(secret, filepath.Join(dir, "escape.h5")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "escape_dir")); err != nil {
		t.Fatal(err)
	}
	ts := serve(t, Dir(dir))
	for _, name := range []string{
		"../" + filepath.Base(outside) + "/secret.h5", secret, "/etc/passwd", "..", "../..",
		"escape.h5", "escape_dir/secret.h5", "a/../../x.h5", `..\secret.h5`, "nope.h5", "",
		"ok.h5/../../" + filepath.Base(outside) + "/secret.h5", "http://127.0.0.1:1/x.h5", "\x00",
	} {
		for _, endpoint := range []string{"/meta", "/data", "/attr", "/paths", "/stats"} {
			a := get(t, ts, endpoint, "file", name, "path", "/misc/u4")
			if a.status != 403 && a.status != 404 {
				t.Errorf("%s file=%q: status %d, want 403 or 404: %s", endpoint, name, a.status, a.body)
				continue
			}
			msg := a.message(t)
			if strings.Contains(msg, dir) || strings.Contains(msg, outside) {
				t.Errorf("%s file=%q: message %q names a directory", endpoint, name, msg)
			}
		}
	}
	if a := get(t, ts, "/meta", "file", "ok.h5"); a.status != 200 {
		t.Errorf("ok.h5: status %d: %s", a.status, a.body)
	}
	if a := get(t, ts, "/meta"); a.status != 422 {
		t.Errorf("no file argument: status %d, want 422", a.status)
	}
}

// TestRemoteDocument serves a LINDI JSON document from another server
// whose refs name a local file: the server reads nothing local for it.
func TestRemoteDocument(t *testing.T) {
	local, err := filepath.Abs(filepath.Join(conformance, "fixture.h5"))
	if err != nil {
		t.Fatal(err)
	}
	doc := fmt.Sprintf(`{"version": 1, "refs": {".zgroup": {"zarr_format": 2},
		"x/.zarray": {"chunks": [4], "compressor": null, "dtype": "|u1", "fill_value": 0, "filters": null, "order": "C", "shape": [4], "zarr_format": 2},
		"x/0": [%q, 0, 4]}}`, local)
	remote := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/r.lindi.json" {
			http.NotFound(w, r) // the ref, resolved against the document's URL
			return
		}
		io.WriteString(w, doc)
	}))
	defer remote.Close()
	ts := serve(t, Files{"r.lindi.json": remote.URL + "/r.lindi.json"})
	a := get(t, ts, "/data", "file", "r.lindi.json", "path", "/x", "format", "bin")
	if a.status == 200 {
		t.Fatalf("a remote document read the local file: %q", a.body)
	}
	if strings.Contains(string(a.body), "\x89HDF") {
		t.Errorf("the answer holds the local file's bytes: %q", a.body)
	}
}

// TestHostileSelections sends selections h5grove's syntax refuses or that
// fall outside the dataset: each is a 422 with a message.
func TestHostileSelections(t *testing.T) {
	ts := serve(t, Dir(conformance))
	for _, sel := range []string{
		"a", "1:2:0", "1,2,3", "0,0", ":::", "1:2:3:4", "--1", "1_", "99999999999999999999",
		"[1, 2]", "...", "1.5", "", " ", "0x10", "1e3", "-9223372036854775808", "91", "-91",
		"5:1:-0", "\x00", "1,", ",1",
	} {
		a := get(t, ts, "/data", "file", "fixture.h5", "path", "/misc/u4", "selection", sel)
		if a.status != 422 {
			t.Errorf("selection %q: status %d, want 422: %s", sel, a.status, a.body)
			continue
		}
		a.message(t)
	}
	got := get(t, ts, "/data", "file", "fixture.h5", "path", "/misc/u4", "selection", " 1_0 : 20 : +3 ").ok(t, "spaces")
	if fmt.Sprint(got) != fmt.Sprint(flatNumbersOf(t, ts, "10:20:3")) {
		t.Errorf("Python's int syntax: %v", got)
	}
}

func flatNumbersOf(t *testing.T, ts *httptest.Server, sel string) any {
	return get(t, ts, "/data", "file", "fixture.h5", "path", "/misc/u4", "selection", sel).ok(t, sel)
}

// TestLimit refuses a read over the size limit before reading it.
func TestLimit(t *testing.T) {
	ts := serve(t, Dir(conformance), WithMaxBytes(1000))
	a := get(t, ts, "/data", "file", "fixture.h5", "path", "/acquisition/ElectricalSeries/data")
	if a.status != http.StatusRequestEntityTooLarge || !strings.Contains(a.message(t), "limit") {
		t.Errorf("over the limit: status %d: %s", a.status, a.body)
	}
	if a := get(t, ts, "/data", "file", "fixture.h5", "path", "/acquisition/ElectricalSeries/data", "selection", "0:10, 0:10"); a.status != 200 {
		t.Errorf("under the limit: status %d: %s", a.status, a.body)
	}
	if a := get(t, ts, "/stats", "file", "fixture.h5", "path", "/acquisition/ElectricalSeries/data"); a.status != http.StatusRequestEntityTooLarge {
		t.Errorf("stats over the limit: status %d", a.status)
	}
	if _, err := New(Dir("."), WithMaxBytes(0)); err == nil {
		t.Error("WithMaxBytes(0) accepted")
	}
}

// TestFormats checks the encodings byte by byte where h5grove fixes them:
// npy's header, csv's %.18e, a TIFF's directory, bin in a big-endian
// dataset's order and dtype=safe's float16 → float32, flatten, and the
// refusals of non-numeric data.
func TestFormats(t *testing.T) {
	ts := serve(t, Dir(conformance))
	q := func(kv ...string) answer {
		return get(t, ts, "/data", append([]string{"file", "fixture.h5"}, kv...)...)
	}

	a := q("path", "/misc/u1", "selection", "0:2, 0:3", "format", "csv")
	if string(a.body) != "6.900000000000000000e+01,1.100000000000000000e+02,2.350000000000000000e+02\n1.230000000000000000e+02,4.900000000000000000e+01,2.150000000000000000e+02\n" {
		t.Errorf("csv: %q", a.body)
	}
	if a.header.Get("Content-Type") != "text/csv" || !strings.Contains(a.header.Get("Content-Disposition"), "data.csv") {
		t.Errorf("csv headers: %v", a.header)
	}
	a = q("path", "/misc/u1", "selection", "0:2, 0:3", "format", "npy")
	n, err := readNpy(a.body)
	if err != nil || n.descr != "|u1" || fmt.Sprint(n.shape) != "[2 3]" || fmt.Sprint(n.values) != "[69 110 235 123 49 215]" || (len(a.body)%64) != 6 {
		t.Errorf("npy: %v %+v, %d bytes", err, n, len(a.body))
	}
	a = q("path", "/misc/big_endian_i4", "selection", "0:3", "format", "bin")
	be, _ := decodeNumbers(">i4", a.body)
	want := get(t, ts, "/data", "file", "fixture.h5", "path", "/misc/big_endian_i4", "selection", "0:3").ok(t, "json")
	if fmt.Sprint(be) != fmt.Sprint(want) {
		t.Errorf("bin of >i4: %v, want %v", be, want)
	}
	a = q("path", "/misc/big_endian_i4", "selection", "0:3", "format", "bin", "dtype", "safe")
	le, _ := decodeNumbers("<i4", a.body)
	if fmt.Sprint(le) != fmt.Sprint(want) {
		t.Errorf("bin of >i4, dtype=safe: %v, want %v", le, want)
	}
	a = q("path", "/misc/f4_2d_edge", "selection", "0:3, 0:4", "format", "tiff")
	checkTIFF(t, a.body, 4, 3, 32, 3)
	a = q("path", "/misc/u1", "selection", "0:2, 0:3", "flatten", "true")
	if string(a.body) != "[69,110,235,123,49,215]" {
		t.Errorf("flatten: %s", a.body)
	}
	a = q("path", "/misc/u1", "selection", "0:2, 0:3", "flatten", "False")
	if string(a.body) != "[[69,110,235],[123,49,215]]" {
		t.Errorf("flatten=False: %s", a.body)
	}
	a = q("path", "/misc/scalar_int", "flatten", "true")
	if a.status != 200 || strings.HasPrefix(string(a.body), "[") {
		t.Errorf("a scalar, flattened: %s", a.body)
	}
	for _, c := range [][]string{
		{"path", "/misc/vlen_strings", "format", "npy"},
		{"path", "/misc/vlen_strings", "dtype", "safe"},
		{"path", "/misc/vlen_strings", "format", "bin"},
		{"path", "/misc/scalar_int", "format", "csv"},
		{"path", "/misc/u4", "format", "tiff"},
		{"path", "/misc/u4", "format", "xml"},
		{"path", "/misc/u4", "dtype", "float"},
		{"path", "/misc", "format", "json"},
	} {
		if a := q(c...); a.status != 422 {
			t.Errorf("%v: status %d, want 422: %s", c, a.status, a.body)
		}
	}
	z := serve(t, Dir("../testdata/zarr3"))
	a = get(t, z, "/data", "file", "fixture.zarr3", "path", "/dtypes/float16", "format", "bin", "dtype", "safe", "selection", "0, 0:4")
	f4, _ := decodeNumbers("<f4", a.body)
	f2 := get(t, z, "/data", "file", "fixture.zarr3", "path", "/dtypes/float16", "selection", "0, 0:4").ok(t, "f2")
	if !equalJSON(anySlice(f4), f2) || len(a.body) != 16 {
		t.Errorf("float16 as safe: %v (%d bytes), want %v", f4, len(a.body), f2)
	}
	a = get(t, z, "/data", "file", "fixture.zarr3", "path", "/dtypes/float16", "format", "bin", "selection", "0, 0:4")
	if len(a.body) != 8 {
		t.Errorf("float16 as origin: %d bytes, want 8", len(a.body))
	}
}

func anySlice(v []float64) []any {
	out := make([]any, len(v))
	for i, x := range v {
		out[i] = x
		if math.IsNaN(x) {
			out[i] = nil
		}
	}
	return out
}

// checkTIFF reads a TIFF's first directory and its strip.
func checkTIFF(t *testing.T, b []byte, width, height, bits, format int) {
	t.Helper()
	if len(b) < 8 || string(b[:4]) != "II*\x00" {
		t.Fatalf("not a little-endian TIFF: %q", b[:min(8, len(b))])
	}
	le := binary.LittleEndian
	ifd := int(le.Uint32(b[4:]))
	tags := map[uint16]int{}
	for i := range int(le.Uint16(b[ifd:])) {
		e := b[ifd+2+12*i:]
		v := int(le.Uint32(e[8:]))
		if le.Uint16(e[2:]) == 3 {
			v = int(le.Uint16(e[8:]))
		}
		tags[le.Uint16(e)] = v
	}
	if tags[256] != width || tags[257] != height || tags[258] != bits || tags[339] != format || tags[262] != 1 {
		t.Errorf("TIFF tags %v", tags)
	}
	if off, n := tags[273], tags[279]; off+n != len(b) || n != width*height*bits/8 {
		t.Errorf("TIFF strip at %d, %d bytes, in %d", off, n, len(b))
	}
}

// TestProtocol checks "/", the page, CORS, methods and unknown endpoints,
// and that endpoints answer with or without a trailing slash.
func TestProtocol(t *testing.T) {
	ts := serve(t, Files{"fixture.h5": filepath.Join(conformance, "fixture.h5")})
	if a := get(t, ts, "/"); !strings.Contains(string(a.body), "open "+ts.URL+"/ in a web browser") || a.header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("/: %q %v", a.body, a.header)
	}
	for _, ep := range []string{"/meta", "/meta/", "/paths/", "/attr/"} {
		if a := get(t, ts, ep, "file", "fixture.h5"); a.status != 200 {
			t.Errorf("%s: status %d", ep, a.status)
		}
	}
	a := get(t, ts, "/meta", "file", "other.h5")
	if a.status != 404 || !strings.Contains(a.message(t), "File not found") {
		t.Errorf("an error: status %d, headers %v, %s", a.status, a.header, a.body)
	}
	if a := get(t, ts, "/nope"); a.status != 404 {
		t.Errorf("/nope: status %d", a.status)
	}
	open := serve(t, Files{"fixture.h5": filepath.Join(conformance, "fixture.h5")}, WithAllowOrigin("http://example.org"))
	req, _ := http.NewRequest(http.MethodOptions, open.URL+"/data", nil)
	req.Header.Set("Origin", "http://example.org")
	req.Header.Set("Access-Control-Request-Method", "GET")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 204 || !strings.Contains(res.Header.Get("Access-Control-Allow-Methods"), "GET") || res.Header.Get("Access-Control-Allow-Origin") != "http://example.org" {
		t.Errorf("preflight: %d %v", res.StatusCode, res.Header)
	}
	res, err = http.Post(ts.URL+"/data", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 405 {
		t.Errorf("POST: status %d", res.StatusCode)
	}

	page := func(path string, hdr ...string) *http.Response {
		req, _ := http.NewRequest(http.MethodGet, ts.URL+path, nil)
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		res, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	res = page("/", "Accept", "text/html,application/xhtml+xml")
	res.Body.Close()
	if res.StatusCode != 302 || res.Header.Get("Location") != "/?file=fixture.h5" {
		t.Errorf("the page of the only file: %d %v", res.StatusCode, res.Header)
	}
	res = page("/?file=fixture.h5", "Accept", "text/html")
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !bytes.Contains(body, []byte(`<script src="assets/app.js">`)) {
		t.Errorf("the page: %s", body)
	}
	res = page("/assets/app.js", "Accept-Encoding", "gzip")
	zipped, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.Header.Get("Content-Encoding") != "gzip" || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/javascript") {
		t.Errorf("app.js, gzip: %v", res.Header)
	}
	zr, err := gzip.NewReader(bytes.NewReader(zipped))
	if err != nil {
		t.Fatal(err)
	}
	js, _ := io.ReadAll(zr)
	res = page("/assets/app.js")
	plain, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if !bytes.Equal(js, plain) || !bytes.Contains(plain, []byte("/meta")) {
		t.Errorf("app.js without gzip: %d bytes, gzipped %d", len(plain), len(js))
	}
	if res := page("/assets/../page.go"); res.StatusCode != 404 {
		t.Errorf("an asset outside: status %d", res.StatusCode)
	}
}

// TestDirAtRequestTime serves a file copied into the directory after the
// server started, and sees a file replaced.
func TestDirAtRequestTime(t *testing.T) {
	dir := t.TempDir()
	ts := serve(t, Dir(dir))
	if a := get(t, ts, "/meta", "file", "late.h5"); a.status != 404 {
		t.Fatalf("before the copy: status %d", a.status)
	}
	copyFile(t, filepath.Join(conformance, "fixture.h5"), filepath.Join(dir, "late.h5"))
	if a := get(t, ts, "/meta", "file", "late.h5", "path", "/misc/u4"); a.status != 200 {
		t.Fatalf("after the copy: status %d: %s", a.status, a.body)
	}
	copyFile(t, "../testdata/parity/features.h5", filepath.Join(dir, "late.h5"))
	if a := get(t, ts, "/meta", "file", "late.h5", "path", "/ext"); a.status != 200 {
		t.Errorf("after replacing the file: status %d: %s", a.status, a.body)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
