package source

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
)

// TestReader reads an io.ReaderAt within the size given: io.EOF past it,
// io.ErrUnexpectedEOF when the reader holds less than it claimed.
func TestReader(t *testing.T) {
	ctx := context.Background()
	r, err := NewReader("mem", bytes.NewReader([]byte("0123456789")), 8)
	if err != nil {
		t.Fatal(err)
	}
	p := make([]byte, 4)
	if n, err := r.ReadAt(ctx, p, 2); n != 4 || err != nil || string(p) != "2345" {
		t.Errorf("ReadAt(2) = %d, %v, %q", n, err, p)
	}
	if n, err := r.ReadAt(ctx, p, 6); n != 2 || err != io.EOF || string(p[:2]) != "67" {
		t.Errorf("ReadAt(6) = %d, %v: want 2 bytes and io.EOF at the size given", n, err)
	}
	if _, err := r.ReadAt(ctx, p, -1); !errors.Is(err, ErrRange) {
		t.Errorf("negative offset: %v", err)
	}
	short, _ := NewReader("short", bytes.NewReader([]byte("01")), 8)
	if _, err := short.ReadAt(ctx, p, 0); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("a reader shorter than its size: %v, want io.ErrUnexpectedEOF", err)
	}
	if _, err := NewReader("x", nil, 1); err == nil {
		t.Error("a nil reader was accepted")
	}
	if _, err := NewReader("x", bytes.NewReader(nil), -1); err == nil {
		t.Error("a negative size was accepted")
	}
	if s := r.Stats(); s.Requests != 2 {
		t.Errorf("Stats = %+v, want 2 reads", s)
	}
}
