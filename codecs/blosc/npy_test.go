package blosc

import (
	"fmt"
	"os"
	"testing"

	"github.com/lindigo/lindi/internal/npy"
)

// npyArray is what the tests need from a .npy file.
type npyArray struct {
	descr   string // numpy dtype string, e.g. "<f8"
	fortran bool
	shape   []int
	data    []byte // the raw array bytes, in the file's order
}

// readNPY reads a .npy file with internal/npy.
func readNPY(t testing.TB, path string) npyArray {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	a, err := npy.Read(fh)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return npyArray{descr: a.Descr, fortran: a.Fortran, shape: a.Shape, data: a.Data}
}

// itemsize is the size of one element: the data divided among the elements.
func (a npyArray) itemsize(t testing.TB) int {
	t.Helper()
	if a.size() == 0 {
		t.Fatalf("npy array of shape %v has no elements to size", a.shape)
	}
	return len(a.data) / a.size()
}

func (a npyArray) size() int {
	n := 1
	for _, d := range a.shape {
		n *= d
	}
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
