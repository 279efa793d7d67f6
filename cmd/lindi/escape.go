package main

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// printable returns s with what could drive a terminal escaped as in Go
// source: control characters (C0, DEL, C1), bidirectional formatting marks
// and bytes that are not UTF-8, plus the backslash so that an escape cannot
// be forged. Names come from files that may be hostile: a dataset named
// "ev\x1b]0;PWNED\x07il" must not retitle the user's terminal.
func printable(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\\':
			b.WriteString(`\\`)
		case r < 0x80 && unicode.IsControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func needsEscape(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || r == '\\' || unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) {
			return true
		}
	}
	return false
}

// jsonEscape replaces, in encoded JSON, the characters encoding/json leaves
// raw that a terminal may act on (DEL, C1 controls, bidirectional marks) by
// \u escapes: the JSON means the same and prints safely.
func jsonEscape(b []byte) []byte {
	if !needsEscape(string(b)) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r != utf8.RuneError && r >= 0x7f && (unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r)) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}
