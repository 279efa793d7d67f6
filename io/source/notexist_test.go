package source

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
)

// TestIsNotExist: a missing local file and an HTTP 404 do not exist; a
// file outside a root, another status, are other errors.
func TestIsNotExist(t *testing.T) {
	_, err := Open(context.Background(), filepath.Join(t.TempDir(), "none.h5"))
	if !IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
	if !IsNotExist(fmt.Errorf("open: %w", &HTTPError{URL: "https://h/x", Status: 404})) {
		t.Error("HTTP 404")
	}
	if IsNotExist(&HTTPError{URL: "https://h/x", Status: 403}) || IsNotExist(ErrOutside) || IsNotExist(nil) {
		t.Error("403, ErrOutside or nil said not to exist")
	}
}
