package npy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// testdataNPY lists every .npy file under the repository's testdata.
func testdataNPY(t testing.TB) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir("../../testdata", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".npy") {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no .npy files under testdata")
	}
	return files
}

func TestReadTestdata(t *testing.T) {
	objects, read := 0, 0
	for _, path := range testdataNPY(t) {
		t.Run(path, func(t *testing.T) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			a, err := Read(bytes.NewReader(raw))
			if bytes.Contains(raw[:128], []byte("'|O'")) {
				objects++
				if !errors.Is(err, ErrObject) {
					t.Fatalf("object array: got %v, want ErrObject", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			read++
			// The data is the tail of the file.
			if !bytes.Equal(a.Data, raw[len(raw)-len(a.Data):]) {
				t.Fatal("data is not the tail of the file")
			}
			var out bytes.Buffer
			if err := Write(&out, a); err != nil {
				t.Fatal(err)
			}
			// numpy >= 1.? aligns to 64 bytes, as Write does: those files
			// must come out byte for byte.
			hlen := int(binary.LittleEndian.Uint16(raw[8:10]))
			if (10+hlen)%64 == 0 && !bytes.Equal(out.Bytes(), raw) {
				t.Errorf("rewrite differs:\n got %q\nwant %q", out.Bytes()[:10+hlen], raw[:10+hlen])
			}
			b, err := Read(&out)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(a, b) {
				t.Fatalf("round trip: got %+v, want %+v", b.Shape, a.Shape)
			}
		})
	}
	if objects == 0 || read == 0 {
		t.Fatalf("read %d arrays and %d object arrays; want both", read, objects)
	}
}

// file builds a .npy file with the given version, header text and data.
func file(major byte, header string, data []byte) []byte {
	b := []byte(magic)
	b = append(b, major, 0)
	if major == 1 {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(header)))
	} else {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(header)))
	}
	b = append(b, header...)
	return append(b, data...)
}

func TestRead(t *testing.T) {
	tests := []struct {
		name string
		in   []byte
		want Array
	}{
		{"v1 scalar", file(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (), }\n", make([]byte, 8)),
			Array{Descr: "<f8", Shape: []int{}, Data: make([]byte, 8)}},
		{"v2", file(2, "{'descr': '>i2', 'fortran_order': True, 'shape': (2, 3), }\n", make([]byte, 12)),
			Array{Descr: ">i2", Shape: []int{2, 3}, Fortran: true, Data: make([]byte, 12)}},
		{"v3 utf8", file(3, "{'descr': [('é', '<u1')], 'fortran_order': False, 'shape': (2,), }\n", []byte{1, 2}),
			Array{Descr: "[('é', '<u1')]", Shape: []int{2}, Data: []byte{1, 2}}},
		{"python2 longs and key order", file(1, "{'shape': (2L, 1L), 'fortran_order': False, 'descr': '|b1'}", []byte{0, 1}),
			Array{Descr: "|b1", Shape: []int{2, 1}, Data: []byte{0, 1}}},
		{"v1 latin1 name", file(1, "{'descr': [('\xe9', '<u1')], 'fortran_order': False, 'shape': (1,), }\n", []byte{7}),
			Array{Descr: "[('é', '<u1')]", Shape: []int{1}, Data: []byte{7}}},
		{"double quotes", file(1, `{"descr": "<U2", "fortran_order": False, "shape": (1,)}`, make([]byte, 8)),
			Array{Descr: "<U2", Shape: []int{1}, Data: make([]byte, 8)}},
		{"structured with subarray and titles", file(1, "{'descr': [('a', '<i4'), (('t', 'b'), '<f8', (2,)), ('c', [('x', '|S3')], 2)], 'fortran_order': False, 'shape': (1,), }", make([]byte, 4+16+6)),
			Array{Descr: "[('a', '<i4'), (('t', 'b'), '<f8', (2,)), ('c', [('x', '|S3')], 2)]", Shape: []int{1}, Data: make([]byte, 26)}},
		{"datetime", file(1, "{'descr': '<M8[ns]', 'fortran_order': False, 'shape': (1,), }", make([]byte, 8)),
			Array{Descr: "<M8[ns]", Shape: []int{1}, Data: make([]byte, 8)}},
		{"empty", file(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 5), }", nil),
			Array{Descr: "<f4", Shape: []int{0, 5}, Data: []byte{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Read(bytes.NewReader(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(*got, tt.want) {
				t.Fatalf("got %+v, want %+v", *got, tt.want)
			}
			var out bytes.Buffer
			if err := Write(&out, got); err != nil {
				t.Fatal(err)
			}
			back, err := Read(&out)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(back, got) {
				t.Fatalf("round trip: got %+v, want %+v", back, got)
			}
		})
	}
}

func TestReadErrors(t *testing.T) {
	ok := "{'descr': '<i2', 'fortran_order': False, 'shape': (2,), }"
	huge := binary.LittleEndian.AppendUint32([]byte(magic+"\x02\x00"), MaxHeaderLen+1)
	tests := []struct {
		name string
		in   []byte
		want error
	}{
		{"empty input", nil, ErrHeader},
		{"bad magic", []byte("\x93NUMPX\x01\x00\x00\x00"), ErrHeader},
		{"truncated preamble", file(1, ok, nil)[:7], ErrHeader},
		{"unknown version", append([]byte(magic), 4, 0, 0, 0), ErrHeader},
		{"header too long", huge, ErrHeader},
		{"truncated header", file(1, ok, nil)[:20], ErrHeader},
		{"object", file(1, "{'descr': '|O', 'fortran_order': False, 'shape': (2,), }", make([]byte, 16)), ErrObject},
		{"object field", file(1, "{'descr': [('a', '|O')], 'fortran_order': False, 'shape': (2,), }", make([]byte, 16)), ErrObject},
		{"short data", file(1, ok, make([]byte, 3)), ErrData},
		{"trailing data", file(1, ok, make([]byte, 5)), ErrData},
		{"huge shape no data", file(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000000, 1000000000), }", nil), ErrData},
		{"overflowing shape", file(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904, 4), }", nil), ErrHeader},
		{"negative dim", file(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (-1,), }", nil), ErrHeader},
		{"missing key", file(1, "{'descr': '<f8', 'shape': (1,), }", make([]byte, 8)), ErrHeader},
		{"extra key", file(1, "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'x': 1}", make([]byte, 8)), ErrHeader},
		{"duplicate key", file(1, "{'descr': '<f8', 'descr': '<f8', 'fortran_order': False, 'shape': (1,)}", make([]byte, 8)), ErrHeader},
		{"shape list", file(1, "{'descr': '<f8', 'fortran_order': False, 'shape': [1]}", make([]byte, 8)), ErrHeader},
		{"fortran int", file(1, "{'descr': '<f8', 'fortran_order': 0, 'shape': (1,)}", make([]byte, 8)), ErrHeader},
		{"unknown kind", file(1, "{'descr': '<q8', 'fortran_order': False, 'shape': (1,)}", make([]byte, 8)), ErrHeader},
		{"descr without size", file(1, "{'descr': '<f', 'fortran_order': False, 'shape': (1,)}", make([]byte, 8)), ErrHeader},
		{"huge item size", file(1, "{'descr': '|V99999999999', 'fortran_order': False, 'shape': (1,)}", nil), ErrHeader},
		{"deep nesting", file(1, "{'descr': "+strings.Repeat("[", 100)+"}", nil), ErrHeader},
		{"unterminated string", file(1, "{'descr': '<f8", nil), ErrHeader},
		{"not a dict", file(1, "['<f8']", nil), ErrHeader},
		{"garbage after dict", file(1, ok+" x", make([]byte, 4)), ErrHeader},
		{"v3 not utf8", file(3, "{'descr': [('\xff', '<u1')], 'fortran_order': False, 'shape': (1,)}", []byte{1}), ErrHeader},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := Read(bytes.NewReader(tt.in))
			if !errors.Is(err, tt.want) {
				t.Fatalf("got (%v, %v), want error %v", a, err, tt.want)
			}
			if a, err := Parse(tt.in); !errors.Is(err, tt.want) {
				t.Fatalf("Parse: got (%v, %v), want error %v", a, err, tt.want)
			}
		})
	}
}

func TestWriteErrors(t *testing.T) {
	tests := []struct {
		name string
		a    Array
		want error
	}{
		{"length mismatch", Array{Descr: "<i4", Shape: []int{2}, Data: make([]byte, 7)}, ErrData},
		{"object", Array{Descr: "|O", Shape: []int{1}, Data: make([]byte, 8)}, ErrObject},
		{"quote injection", Array{Descr: "<i4', 'x': '", Shape: []int{}, Data: make([]byte, 4)}, ErrHeader},
		{"bad struct", Array{Descr: "[('a')]", Shape: []int{}, Data: nil}, ErrHeader},
		{"negative shape", Array{Descr: "<i4", Shape: []int{-1}}, ErrHeader},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := Write(&bytes.Buffer{}, &tt.a); !errors.Is(err, tt.want) {
				t.Fatalf("got %v, want %v", err, tt.want)
			}
		})
	}
}

func TestWriteVersion2(t *testing.T) {
	// A structured dtype with many fields needs a header over 64 KiB.
	var b strings.Builder
	b.WriteString("[")
	for i := range 5000 {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("('field_" + strings.Repeat("x", 5) + string(rune('a'+i%26)) + "', '|u1')")
	}
	b.WriteString("]")
	a := &Array{Descr: b.String(), Shape: []int{1}, Data: make([]byte, 5000)}
	var out bytes.Buffer
	if err := Write(&out, a); err != nil {
		t.Fatal(err)
	}
	raw := out.Bytes()
	if raw[6] != 2 {
		t.Fatalf("version %d.%d, want 2.0", raw[6], raw[7])
	}
	if (12+int(binary.LittleEndian.Uint32(raw[8:12])))%64 != 0 {
		t.Fatal("data not 64-byte aligned")
	}
	back, err := Read(&out)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, a) {
		t.Fatal("round trip differs")
	}
}

func FuzzRead(f *testing.F) {
	for _, path := range testdataNPY(f) {
		raw, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		if len(raw) < 4096 {
			f.Add(raw)
		}
	}
	f.Add(file(1, "{'descr': [('a', '<i4'), ('b', [('c', '<f8', (2, 1))])], 'fortran_order': False, 'shape': (1,), }", make([]byte, 20)))
	f.Fuzz(func(t *testing.T, in []byte) {
		a, err := Read(bytes.NewReader(in))
		p, perr := Parse(in)
		if (err == nil) != (perr == nil) {
			t.Fatalf("Read: %v, Parse: %v", err, perr)
		}
		if err != nil {
			return
		}
		if p.Descr != a.Descr || !reflect.DeepEqual(p.Shape, a.Shape) || p.Fortran != a.Fortran || !bytes.Equal(a.Data, p.Data) {
			t.Fatal("Parse differs from Read")
		}
		var out bytes.Buffer
		if err := Write(&out, a); err != nil {
			t.Fatalf("Write of a read array: %v", err)
		}
		b, err := Read(&out)
		if err != nil {
			t.Fatalf("reading back: %v", err)
		}
		if b.Descr != a.Descr || !reflect.DeepEqual(b.Shape, a.Shape) || b.Fortran != a.Fortran || !bytes.Equal(a.Data, b.Data) {
			t.Fatal("round trip differs")
		}
	})
}

func BenchmarkRead(b *testing.B) {
	var buf bytes.Buffer
	a := &Array{Descr: "<f8", Shape: []int{1 << 17}, Data: make([]byte, 8<<17)}
	if err := Write(&buf, a); err != nil {
		b.Fatal(err)
	}
	raw := buf.Bytes()
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Read(bytes.NewReader(raw)); err != nil {
			b.Fatal(err)
		}
	}
}

func TestWriteVersion3(t *testing.T) {
	a := &Array{Descr: "[('größe', '<u2')]", Shape: []int{2}, Data: []byte{1, 2, 3, 4}}
	var out bytes.Buffer
	if err := Write(&out, a); err != nil {
		t.Fatal(err)
	}
	raw := out.Bytes()
	if raw[6] != 3 || (12+int(binary.LittleEndian.Uint32(raw[8:12])))%64 != 0 {
		t.Fatalf("version %d.%d, header not aligned", raw[6], raw[7])
	}
	back, err := Read(&out)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, a) {
		t.Fatalf("round trip: got %+v", back)
	}
}

func TestDescrJSON(t *testing.T) {
	tests := []struct{ in, want string }{
		{"<i2", `"<i2"`},
		{"|S8", `"|S8"`},
		{"[('a', '<i4'), ('b', '<f8', (2,))]", `[["a","<i4"],["b","<f8",[2]]]`},
		{"[(('title', 'a'), [('x', '|u1')], 3), ('', '|V4')]", `[[["title","a"],[["x","|u1"]],3],["","|V4"]]`},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := DescrJSON(tt.in)
			if err != nil || string(got) != tt.want {
				t.Fatalf("got %s, %v; want %s", got, err, tt.want)
			}
		})
	}
	for _, bad := range []string{"|O", "[('a', '|O')]", "<q4", "[('a')]", "'<i2'"} {
		if got, err := DescrJSON(bad); err == nil {
			t.Errorf("DescrJSON(%q) = %s, want an error", bad, got)
		}
	}
	if err := Write(&bytes.Buffer{}, nil); !errors.Is(err, ErrData) {
		t.Errorf("Write(nil) = %v", err)
	}
}
