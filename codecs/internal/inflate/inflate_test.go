package inflate

import (
	"bytes"
	stdgzip "compress/gzip"
	"io"
	"testing"
)

func TestZlib(t *testing.T) {
	raw, enc := zlibChunk(t)
	bad := bytes.Clone(enc)
	bad[len(bad)-1] ^= 1 // Adler-32 trailer
	tests := []struct {
		name    string
		src     []byte
		wantErr bool
	}{
		{"whole", enc, false},
		{"bad checksum", bad, true},
		{"truncated", enc[:len(enc)/2], true},
		{"not zlib", []byte("hello, world"), true},
		{"empty", nil, true},
	}
	// Twice, so that the second round reuses readers that failed.
	for range 2 {
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := readZlib(tt.src)
				if tt.wantErr {
					if err == nil {
						t.Fatal("no error")
					}
					return
				}
				if err != nil || !bytes.Equal(got, raw) {
					t.Fatalf("got %d bytes, err %v; want %d bytes", len(got), err, len(raw))
				}
			})
		}
	}
}

// readZlib decodes src through a pooled reader.
func readZlib(src []byte) ([]byte, error) {
	zr, err := Zlib(bytes.NewReader(src))
	if err != nil {
		return nil, err
	}
	defer PutZlib(zr)
	return io.ReadAll(zr)
}

func TestZlibLeavesTrailer(t *testing.T) {
	_, enc := zlibChunk(t)
	br := bytes.NewReader(append(bytes.Clone(enc), "tail"...))
	zr, err := Zlib(br)
	if err != nil {
		t.Fatal(err)
	}
	defer PutZlib(zr)
	if _, err := io.Copy(io.Discard, zr); err != nil {
		t.Fatal(err)
	}
	if br.Len() != len("tail") {
		t.Fatalf("%d bytes left after the stream, want 4", br.Len())
	}
}

func TestGzip(t *testing.T) {
	raw := noisyInt16(100 << 10)
	var buf bytes.Buffer
	w := stdgzip.NewWriter(&buf)
	if _, err := w.Write(raw); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		zr := Gzip()
		if err := zr.Reset(bytes.NewReader(buf.Bytes())); err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(zr)
		PutGzip(zr)
		if err != nil || !bytes.Equal(got, raw) {
			t.Fatalf("got %d bytes, err %v; want %d bytes", len(got), err, len(raw))
		}
	}
}
