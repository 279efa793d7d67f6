package source

import "testing"

func TestIsURL(t *testing.T) {
	for _, c := range []struct {
		name string
		want bool
	}{
		{"http://host/x.nwb", true},
		{"HTTPS://host/x.nwb", true},
		{"s3://bucket/key", true},
		{"file:/etc/x", false},
		{"gs://bucket/key", false},
		{"x.nwb", false},
		{"./http://x", false},
		{"/data/https:x", false},
		{"", false},
		{"://x", false},
	} {
		if got := IsURL(c.name); got != c.want {
			t.Errorf("IsURL(%q) = %v, want %v", c.name, got, c.want)
		}
	}
}
