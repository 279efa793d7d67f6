package zarrmeta

import (
	"reflect"
	"testing"
)

// TestMapJSON: leaf sees every value, its replacements stop the walk there,
// and lists and objects are copied, not changed in place.
func TestMapJSON(t *testing.T) {
	in := map[string]any{"a": []any{1.0, "x", map[string]any{"b": "x"}}, "c": "x", "d": []any{"stop"}}
	out := MapJSON(in, func(v any) (any, bool) {
		if s, ok := v.(string); ok && s == "x" {
			return "y", true
		}
		if l, ok := v.([]any); ok && len(l) == 1 {
			return "list", true
		}
		return v, false
	})
	want := map[string]any{"a": []any{1.0, "y", map[string]any{"b": "y"}}, "c": "y", "d": "list"}
	if !reflect.DeepEqual(out, want) {
		t.Errorf("MapJSON = %v, want %v", out, want)
	}
	if in["c"] != "x" || in["a"].([]any)[1] != "x" {
		t.Error("MapJSON changed its input")
	}
}
