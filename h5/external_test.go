package h5

import "testing"

func TestResolveExternal(t *testing.T) {
	for _, tc := range []struct{ from, file, want string }{
		{"dir/a.h5", "b.h5", "dir/b.h5"},
		{"dir/a.h5", "../c/b.h5", "c/b.h5"},
		{"dir/a.h5", "/abs/b.h5", "/abs/b.h5"},
		{"dir/a.h5", "https://h/b.h5", "https://h/b.h5"},
		{"https://h/d/a.h5", "b.h5", "https://h/d/b.h5"},
		{"https://h/d/a.h5", "./sub/b.h5", "https://h/d/sub/b.h5"},
		{"https://h/d/a.h5", "/abs/b.h5", "https://h/abs/b.h5"}, // stays on the server
		{"https://h/d/a.h5", "https://o/b.h5", "https://o/b.h5"},
	} {
		got, err := resolveExternal(tc.from, tc.file)
		if err != nil || got != tc.want {
			t.Errorf("resolveExternal(%q, %q) = %q, %v; want %q", tc.from, tc.file, got, err, tc.want)
		}
	}
	for _, file := range []string{"file:///etc/passwd", ""} {
		if got, err := resolveExternal("https://h/d/a.h5", file); err == nil {
			t.Errorf("resolveExternal from a URL to %q = %q, want an error", file, got)
		}
	}
}
