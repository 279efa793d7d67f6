package zstdec

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// frame encodes data as one frame, declaring its size or not.
func frame(t *testing.T, data []byte, withSize bool) []byte {
	t.Helper()
	var buf bytes.Buffer
	w, err := zstd.NewWriter(&buf, zstd.WithSingleSegment(withSize))
	if err != nil {
		t.Fatal(err)
	}
	if withSize {
		return w.EncodeAll(data, nil)
	}
	if _, err := w.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestDecodeAll(t *testing.T) {
	data := bytes.Repeat([]byte("lindi "), 10000)
	enc := frame(t, data, true)
	tests := []struct {
		name    string
		room    int
		wantErr error
	}{
		{"exact room", len(data), nil},
		{"more room", 2 * len(data), nil},
		{"one byte short", len(data) - 1, ErrTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := make([]byte, 3, 3+tt.room)
			out, err := DecodeAll(dst, enc)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("err %v, want %v", err, tt.wantErr)
				}
				return
			}
			if err != nil || !bytes.Equal(out[3:], data) {
				t.Fatalf("got %d bytes, err %v", len(out)-3, err)
			}
		})
	}
	if _, err := DecodeAll(nil, []byte("not zstd")); err == nil {
		t.Fatal("garbage decoded without error")
	}
}

func TestReader(t *testing.T) {
	data := bytes.Repeat([]byte("lindi "), 10000)
	enc := frame(t, data, false)
	for range 2 { // the second round reuses the pooled decoder
		d, err := Reader(bytes.NewReader(enc))
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(d)
		PutReader(d)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("got %d bytes, err %v", len(got), err)
		}
	}
	d, err := Reader(bytes.NewReader(enc[:len(enc)/2]))
	if err == nil {
		_, err = io.ReadAll(d)
		PutReader(d)
	}
	if err == nil {
		t.Fatal("truncated stream read without error")
	}
}
