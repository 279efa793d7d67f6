package hdf5

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/lindigo/lindi/internal/npy"
)

const conformance = "../testdata/conformance"

// memSource is an in-memory source.Source that counts its reads.
type memSource struct {
	name  string
	data  []byte
	reads atomic.Int64
}

func (m *memSource) ReadAt(ctx context.Context, p []byte, off int64) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	m.reads.Add(1)
	if off < 0 {
		return 0, fmt.Errorf("negative offset %d", off)
	}
	if off >= int64(len(m.data)) {
		return 0, io.EOF
	}
	n := copy(p, m.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (m *memSource) Size(context.Context) (int64, error) { return int64(len(m.data)), nil }
func (m *memSource) Name() string                        { return m.name }

// readFixture returns the bytes of a conformance fixture.
func readFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(conformance, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// openBytes opens an HDF5 image held in memory.
func openBytes(t testing.TB, name string, b []byte) *File {
	t.Helper()
	f, err := Open(context.Background(), &memSource{name: name, data: b})
	if err != nil {
		t.Fatalf("Open(%s): %v", name, err)
	}
	return f
}

// npyArray is a decoded .npy file.
type npyArray struct {
	descr string
	shape []int
	data  []byte
}

// readNPY reads a .npy file in C order with internal/npy.
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
	if a.Fortran {
		t.Fatalf("%s: Fortran order", path)
	}
	return npyArray{descr: a.Descr, shape: a.Shape, data: a.Data}
}

// values decodes the array's elements into float64, int64, uint64, bool
// or string slices, by its descr.
func (a npyArray) values(t testing.TB) any {
	t.Helper()
	order := binary.ByteOrder(binary.LittleEndian)
	if a.descr[0] == '>' {
		order = binary.BigEndian
	}
	size, err := strconv.Atoi(a.descr[2:])
	if err != nil {
		t.Fatalf("descr %q: %v", a.descr, err)
	}
	kind := a.descr[1]
	if kind == 'U' {
		size *= 4
	}
	n := len(a.data) / size
	switch kind {
	case 'U':
		out := make([]string, n)
		for i := range out {
			var sb strings.Builder
			for j := 0; j < size; j += 4 {
				r := rune(order.Uint32(a.data[i*size+j:]))
				if r == 0 {
					break
				}
				sb.WriteRune(r)
			}
			out[i] = sb.String()
		}
		return out
	case 'b':
		out := make([]bool, n)
		for i := range out {
			out[i] = a.data[i] != 0
		}
		return out
	case 'f':
		out := make([]float64, n)
		for i := range out {
			p := a.data[i*size:]
			switch size {
			case 4:
				out[i] = float64(math.Float32frombits(order.Uint32(p)))
			case 8:
				out[i] = math.Float64frombits(order.Uint64(p))
			}
		}
		return out
	case 'i':
		out := make([]int64, n)
		for i := range out {
			out[i] = int64(uintOf(a.data[i*size:(i+1)*size], order == binary.BigEndian)<<(64-8*size)) >> (64 - 8*size)
		}
		return out
	case 'u':
		out := make([]uint64, n)
		for i := range out {
			out[i] = uintOf(a.data[i*size:(i+1)*size], order == binary.BigEndian)
		}
		return out
	}
	t.Fatalf("descr %q not handled", a.descr)
	return nil
}
