package source

import (
	"path/filepath"
	"strings"
)

// Scheme returns the lower-cased URL scheme of name ("http" for
// "HTTP://host/x", "file" for "file:/etc/x", "c" for "C:/data") and whether
// name has one: letters, digits, '+', '-' or '.' after a leading letter, then
// a colon, as RFC 3986 spells it. A name with a scheme is never a local path,
// except a drive-letter path on Windows.
func Scheme(name string) (string, bool) {
	i := strings.IndexByte(name, ':')
	if i <= 0 || filepath.VolumeName(name) != "" {
		return "", false
	}
	for j, c := range []byte(name[:i]) {
		letter := 'a' <= c|0x20 && c|0x20 <= 'z'
		if !letter && (j == 0 || !('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return "", false
		}
	}
	return strings.ToLower(name[:i]), true
}

// IsURL reports whether name is a remote URL, one whose scheme is http, https
// or s3 (in any case), rather than a local path or a file: URL. These are the
// schemes Open reaches over the network.
func IsURL(name string) bool {
	s, ok := Scheme(name)
	return ok && (s == "http" || s == "https" || s == "s3")
}
