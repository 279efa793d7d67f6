package h5grove

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const conformance = "../testdata/conformance"

// serve starts a loopback server of src, closed with the test.
func serve(t *testing.T, src Source, opts ...Option) *httptest.Server {
	t.Helper()
	s, err := New(src, opts...)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(func() { ts.Close(); s.Close() })
	return ts
}

type answer struct {
	status int
	header http.Header
	body   []byte
}

// get asks the server for endpoint with the query arguments kv (name,
// value, name, value, …).
func get(t *testing.T, ts *httptest.Server, endpoint string, kv ...string) answer {
	t.Helper()
	q := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		q.Add(kv[i], kv[i+1])
	}
	res, err := http.Get(ts.URL + endpoint + "?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return answer{res.StatusCode, res.Header, b}
}

// ok decodes a JSON answer that must have status 200.
func (a answer) ok(t *testing.T, what string) any {
	t.Helper()
	if a.status != 200 {
		t.Fatalf("%s: status %d: %s", what, a.status, a.body)
	}
	var v any
	if err := json.Unmarshal(a.body, &v); err != nil {
		t.Fatalf("%s: %v: %.200s", what, err, a.body)
	}
	return v
}

// message is the error message of an error answer.
func (a answer) message(t *testing.T) string {
	t.Helper()
	var m struct{ Message string }
	if err := json.Unmarshal(a.body, &m); err != nil || m.Message == "" {
		t.Fatalf("error answer %d is not {\"message\": …}: %s", a.status, a.body)
	}
	return m.Message
}

// loadExpected reads testdata/expected.json, written by testdata/gen.py.
func loadExpected(t *testing.T) map[string]any {
	t.Helper()
	b, err := os.ReadFile("testdata/expected.json")
	if err != nil {
		t.Fatal(err)
	}
	var e map[string]any
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	return e
}

// npyFile is a decoded .npy file: its values as float64 (NaN kept), its shape
// and typestr.
type npyFile struct {
	descr  string
	shape  []int
	values []float64
}

var npyHeader = regexp.MustCompile(`'descr': '([^']+)', 'fortran_order': (False|True), 'shape': \(([^)]*)\)`)

func readNpy(b []byte) (*npyFile, error) {
	if len(b) < 10 || string(b[:6]) != "\x93NUMPY" {
		return nil, fmt.Errorf("not a .npy file")
	}
	var hlen, start int
	if b[6] == 1 {
		hlen, start = int(binary.LittleEndian.Uint16(b[8:])), 10
	} else {
		hlen, start = int(binary.LittleEndian.Uint32(b[8:])), 12
	}
	m := npyHeader.FindStringSubmatch(string(b[start : start+hlen]))
	if m == nil {
		return nil, fmt.Errorf("header %q", b[start:start+hlen])
	}
	n := &npyFile{descr: m[1], shape: []int{}}
	for _, d := range strings.Split(m[3], ",") {
		if d = strings.TrimSpace(d); d != "" {
			v, _ := strconv.Atoi(d)
			n.shape = append(n.shape, v)
		}
	}
	vals, err := decodeNumbers(n.descr, b[start+hlen:])
	if err == nil && m[2] == "True" {
		vals = fromFortran(vals, n.shape)
	}
	n.values = vals
	return n, err
}

// fromFortran reorders values stored in Fortran order into C order.
func fromFortran(v []float64, shape []int) []float64 {
	out := make([]float64, len(v))
	idx := make([]int, len(shape))
	for c := range out {
		f, stride := 0, 1
		for k := range shape {
			f += idx[k] * stride
			stride *= shape[k]
		}
		out[c] = v[f]
		for k := len(shape) - 1; k >= 0; k-- {
			if idx[k]++; idx[k] < shape[k] {
				break
			}
			idx[k] = 0
		}
	}
	return out
}

// decodeNumbers reads numbers of a numpy typestr (bool, int, uint, float).
func decodeNumbers(descr string, b []byte) ([]float64, error) {
	var order binary.ByteOrder = binary.LittleEndian
	if descr[0] == '>' {
		order = binary.BigEndian
	}
	size, err := strconv.Atoi(descr[2:])
	if err != nil || size == 0 || len(b)%size != 0 {
		return nil, fmt.Errorf("dtype %s over %d bytes", descr, len(b))
	}
	out := make([]float64, len(b)/size)
	for i := range out {
		e := b[i*size : (i+1)*size]
		switch descr[1:2] + strconv.Itoa(size) {
		case "b1", "u1":
			out[i] = float64(e[0])
		case "i1":
			out[i] = float64(int8(e[0]))
		case "i2":
			out[i] = float64(int16(order.Uint16(e)))
		case "u2":
			out[i] = float64(order.Uint16(e))
		case "i4":
			out[i] = float64(int32(order.Uint32(e)))
		case "u4":
			out[i] = float64(order.Uint32(e))
		case "i8":
			out[i] = float64(int64(order.Uint64(e)))
		case "u8":
			out[i] = float64(order.Uint64(e))
		case "f2":
			out[i] = half(order.Uint16(e))
		case "f4":
			out[i] = float64(math.Float32frombits(order.Uint32(e)))
		case "f8":
			out[i] = math.Float64frombits(order.Uint64(e))
		default:
			return nil, fmt.Errorf("dtype %s", descr)
		}
	}
	return out, nil
}

// half decodes an IEEE half-precision number, independently of zarrmeta.
func half(h uint16) float64 {
	sign, exp, frac := float64(1), int(h>>10&0x1f), float64(h&0x3ff)
	if h&0x8000 != 0 {
		sign = -1
	}
	switch exp {
	case 0:
		return sign * frac * math.Pow(2, -24)
	case 31:
		if frac != 0 {
			return math.NaN()
		}
		return sign * math.Inf(1)
	}
	return sign * (1 + frac/1024) * math.Pow(2, float64(exp-15))
}

// flatNumbers flattens nested JSON lists of numbers (null → NaN).
func flatNumbers(v any, out []float64) []float64 {
	switch v := v.(type) {
	case []any:
		for _, x := range v {
			out = flatNumbers(x, out)
		}
	case float64:
		out = append(out, v)
	case bool:
		out = append(out, map[bool]float64{false: 0, true: 1}[v])
	case nil:
		out = append(out, math.NaN())
	}
	return out
}

func sameNumbers(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(math.IsNaN(a[i]) && math.IsNaN(b[i])) {
			return false
		}
	}
	return true
}
