package blosc

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// npyArray is what the tests need from a .npy file.
type npyArray struct {
	descr   string // numpy dtype string, e.g. "<f8"
	fortran bool
	shape   []int
	data    []byte // the raw array bytes, in the file's order
}

var (
	npyDescr   = regexp.MustCompile(`'descr':\s*'([^']*)'`)
	npyFortran = regexp.MustCompile(`'fortran_order':\s*(True|False)`)
	npyShape   = regexp.MustCompile(`'shape':\s*\(([^)]*)\)`)
)

// readNPY reads a .npy file (format versions 1 to 3) with a plain dtype.
func readNPY(t testing.TB, path string) npyArray {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("\x93NUMPY")) || len(b) < 10 {
		t.Fatalf("%s: not a .npy file", path)
	}
	var hlen, off int
	switch b[6] {
	case 1:
		hlen, off = int(binary.LittleEndian.Uint16(b[8:10])), 10
	case 2, 3:
		hlen, off = int(binary.LittleEndian.Uint32(b[8:12])), 12
	default:
		t.Fatalf("%s: npy version %d", path, b[6])
	}
	if off+hlen > len(b) {
		t.Fatalf("%s: header runs past the file", path)
	}
	header := string(b[off : off+hlen])
	a := npyArray{data: b[off+hlen:]}
	m := npyDescr.FindStringSubmatch(header)
	if m == nil {
		t.Fatalf("%s: no descr in %q", path, header)
	}
	a.descr = m[1]
	if m := npyFortran.FindStringSubmatch(header); m != nil {
		a.fortran = m[1] == "True"
	}
	m = npyShape.FindStringSubmatch(header)
	if m == nil {
		t.Fatalf("%s: no shape in %q", path, header)
	}
	for _, f := range strings.Split(m[1], ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("%s: shape %q: %v", path, m[1], err)
		}
		a.shape = append(a.shape, n)
	}
	if want := a.size() * a.itemsize(t); want != len(a.data) {
		t.Fatalf("%s: %d data bytes, shape %v of %s wants %d", path, len(a.data), a.shape, a.descr, want)
	}
	return a
}

func (a npyArray) size() int {
	n := 1
	for _, d := range a.shape {
		n *= d
	}
	return n
}

var npyItemsize = regexp.MustCompile(`^[<>|=][a-zA-Z](\d+)`)

func (a npyArray) itemsize(t testing.TB) int {
	t.Helper()
	m := npyItemsize.FindStringSubmatch(a.descr)
	if m == nil {
		t.Fatalf("npy dtype %q not supported by the test reader", a.descr)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

func TestReadNPY(t *testing.T) {
	a := readNPY(t, "../../testdata/numcodecs/blosc/array.02.npy")
	if a.descr != "<f8" || a.fortran || fmt.Sprint(a.shape) != "[100 10]" || len(a.data) != 8000 {
		t.Fatalf("got descr %q fortran %v shape %v, %d bytes", a.descr, a.fortran, a.shape, len(a.data))
	}
	b := readNPY(t, "../../testdata/numcodecs/blosc/array.03.npy")
	if b.descr != "|b1" || !b.fortran || len(b.data) != 1000 {
		t.Fatalf("got descr %q fortran %v, %d bytes", b.descr, b.fortran, len(b.data))
	}
}
