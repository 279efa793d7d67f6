package h5

import (
	"context"
	"strings"
	"testing"
)

// TestMessagesSayItOnce: a missing member is named once.
func TestMessagesSayItOnce(t *testing.T) {
	ctx := context.Background()
	f, err := OpenRefs(ctx, map[string]any{
		".zgroup": map[string]any{"zarr_format": 2},
	}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = f.Get(ctx, "nowhere")
	if err == nil || strings.Count(err.Error(), "nowhere") != 1 {
		t.Errorf("missing member: %v", err)
	}
}
