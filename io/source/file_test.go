package source

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

const fixture = "../../testdata/conformance/fixture.h5"

func readFixture(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// checkReads runs the same table of reads against any source of want.
func checkReads(t *testing.T, s Source, want []byte) {
	t.Helper()
	size := int64(len(want))
	mid := min(4096, size-size/3)
	tests := []struct {
		name     string
		off, len int64
		n        int
		eof      bool
	}{
		{"start", 0, 8, 8, false},
		{"middle", size / 3, mid, int(mid), false},
		{"last byte", size - 1, 1, 1, false},
		{"whole", 0, size, int(size), false},
		{"across end", size - 10, 20, 10, true},
		{"at end", size, 5, 0, true},
		{"past end", size + 100, 5, 0, true},
		{"empty", 17, 0, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := make([]byte, tt.len)
			n, err := s.ReadAt(context.Background(), p, tt.off)
			if n != tt.n {
				t.Fatalf("n = %d, want %d (err %v)", n, tt.n, err)
			}
			if tt.eof != errors.Is(err, io.EOF) || (!tt.eof && err != nil) {
				t.Fatalf("err = %v, want EOF %v", err, tt.eof)
			}
			if n > 0 && !bytes.Equal(p[:n], want[tt.off:tt.off+int64(n)]) {
				t.Fatal("bytes differ from the file")
			}
		})
	}
	t.Run("negative offset", func(t *testing.T) {
		if _, err := s.ReadAt(context.Background(), make([]byte, 1), -1); !errors.Is(err, ErrRange) {
			t.Fatalf("err = %v, want ErrRange", err)
		}
	})
	t.Run("size", func(t *testing.T) {
		n, err := s.Size(context.Background())
		if err != nil || n != size {
			t.Fatalf("Size = %d, %v; want %d", n, err, size)
		}
	})
}

func TestFile(t *testing.T) {
	want := readFixture(t)
	f, err := OpenFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	checkReads(t, f, want)
	if f.Name() != fixture {
		t.Errorf("Name = %q", f.Name())
	}
	if st := f.Stats(); st.Requests == 0 || st.Bytes == 0 {
		t.Errorf("Stats = %+v, want counts", st)
	}
}

func TestOpenFileErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		path string
		is   error
	}{
		{"missing", filepath.Join(dir, "nope"), os.ErrNotExist},
		{"directory", dir, ErrIsDir},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := OpenFile(tt.path); !errors.Is(err, tt.is) {
				t.Fatalf("err = %v, want %v", err, tt.is)
			}
		})
	}
}

func TestFileCancelled(t *testing.T) {
	f, err := OpenFile(fixture)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := f.ReadAt(ctx, make([]byte, 4), 0); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want Canceled", err)
	}
}

func TestBytes(t *testing.T) {
	want := readFixture(t)
	s := NewBytes("mem", want)
	checkReads(t, s, want)
	if s.Name() != "mem" {
		t.Errorf("Name = %q", s.Name())
	}
}

func TestOpen(t *testing.T) {
	abs, err := filepath.Abs(fixture)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		in      string
		wantErr error
		check   func(Source) bool
	}{
		{"path", fixture, nil, func(s Source) bool { _, ok := s.(*File); return ok }},
		{"file URL", "file://" + abs, nil, func(s Source) bool { _, ok := s.(*File); return ok }},
		{"http", "http://127.0.0.1:1/x.h5", nil, func(s Source) bool { _, ok := s.(*HTTP); return ok }},
		{"https", "HTTPS://example.org/x.h5", nil, func(s Source) bool { _, ok := s.(*HTTP); return ok }},
		{"gs", "gs://bucket/key", ErrScheme, nil},
		{"missing", filepath.Join(t.TempDir(), "x"), os.ErrNotExist, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Open(context.Background(), tt.in)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err = %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer s.(io.Closer).Close()
			if !tt.check(s) {
				t.Fatalf("got %T", s)
			}
		})
	}
	t.Run("remote file URL", func(t *testing.T) {
		if _, err := Open(context.Background(), "file://elsewhere/x"); err == nil {
			t.Fatal("no error")
		}
	})
	t.Run("bad option", func(t *testing.T) {
		if _, err := Open(context.Background(), fixture, WithTimeout(-1)); err == nil {
			t.Fatal("no error")
		}
	})
}

// TestOpenSchemes: a name with a scheme is never taken for a relative path
// (issue 13 (1): "file:/etc/x" was opened as the relative file "file:/etc/x").
func TestOpenSchemes(t *testing.T) {
	dir := t.TempDir()
	abs := filepath.Join(dir, "f")
	if err := os.WriteFile(abs, []byte("data"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"gs://b/x", "s3://b/x", "C:/x", "mailto:x", "x:y"} {
		if filepath.VolumeName(name) != "" {
			continue
		}
		if _, err := Open(context.Background(), name); !errors.Is(err, ErrScheme) {
			t.Errorf("Open(%q): got %v, want ErrScheme", name, err)
		}
	}
	if filepath.Separator == '/' {
		for _, name := range []string{"file:" + abs, "file://" + abs, "file://localhost" + abs} {
			s, err := Open(context.Background(), name)
			if err != nil {
				t.Errorf("Open(%q): %v", name, err)
				continue
			}
			if n, err := s.Size(context.Background()); err != nil || n != 4 {
				t.Errorf("Open(%q).Size = %d, %v", name, n, err)
			}
		}
	}
	if _, err := Open(context.Background(), "file:rel/x"); err == nil {
		t.Error("Open(file:rel/x) succeeded: a file URL needs an absolute path")
	}
}
