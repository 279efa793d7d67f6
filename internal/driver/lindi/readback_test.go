package lindi

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/io/source"
	"github.com/lindigo/lindi/store"
)

var ctx = context.Background()

// state is a container as the read path sees it: its document and the
// bytes of every range ref.
type state struct {
	doc    []byte
	chunks map[string][]byte
}

// readState opens the container at path read-only, as a reader does (no
// lock, no repair), and reads every range ref of its document.
func readState(path string) (*state, error) {
	var doc []byte
	var m store.Members
	if st, err := os.Stat(path); err != nil {
		return nil, err
	} else if st.IsDir() {
		d := &dir{root: path}
		if doc, err = os.ReadFile(d.join(jsonName)); err != nil {
			return nil, err
		}
		m = d
	} else {
		src, err := source.OpenFile(path)
		if err != nil {
			return nil, err
		}
		defer src.Close()
		head := make([]byte, min(st.Size(), driver.HeadSize))
		if _, err := src.ReadAt(ctx, head, 0); err != nil {
			return nil, err
		}
		t, err := openTar(ctx, src, head, driver.DefaultMaxMetadataBytes)
		if err != nil {
			return nil, err
		}
		doc, m = t.doc, t
	}
	st, err := store.ParseContainer(path, doc, m)
	if err != nil {
		return nil, err
	}
	keys, _, err := rangeKeys(doc)
	if err != nil {
		return nil, err
	}
	out := &state{doc: trimPadding(doc), chunks: map[string][]byte{}}
	for _, k := range keys {
		v, err := st.Get(ctx, k)
		if err != nil {
			return nil, err
		}
		if out.chunks[k], err = readValue(v); err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
	}
	return out, nil
}

func readValue(v store.Value) ([]byte, error) {
	f, err := os.Open(v.URL)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if v.Len < 0 {
		st, err := f.Stat()
		if err != nil {
			return nil, err
		}
		v.Len = st.Size() - v.Off
	}
	b := make([]byte, v.Len)
	if _, err := f.ReadAt(b, v.Off); err != nil {
		return nil, err
	}
	return b, nil
}

// mustState is readState failing the test on an error.
func mustState(t *testing.T, path string) *state {
	t.Helper()
	s, err := readState(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return s
}

// checkTail checks what Python lindi needs to append to a tar: it ends with
// 1024 zero bytes, right after its last committed member.
func checkTail(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, _, err := readCommitted(f)
	if err != nil {
		t.Fatal(err)
	}
	st, _ := f.Stat()
	end := committedEnd(recs)
	if st.Size() != end+tailSize {
		t.Fatalf("%s: %d bytes, want %d (the last member ends at %d)", path, st.Size(), end+tailSize, end)
	}
	tail := make([]byte, tailSize)
	f.ReadAt(tail, end)
	if !bytes.Equal(tail, make([]byte, tailSize)) {
		t.Fatalf("%s does not end with %d zero bytes", path, tailSize)
	}
}
