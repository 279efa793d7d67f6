package source

import (
	"bytes"
	"context"
	"io"
	"testing"
)

func TestReaderAt(t *testing.T) {
	data := readFixture(t)
	r := io.NewSectionReader(NewReaderAt(context.Background(), NewBytes("f", data)), 100, 50)
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, data[100:150]) {
		t.Fatalf("ReadAll: %v", err)
	}
}
