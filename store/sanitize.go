package store

// sanitizeJSON returns data with the bare NaN, Infinity and -Infinity tokens
// that Python's json module writes replaced by numbers of the same length, so
// that encoding/json can find where every value starts and ends. Offsets into
// the result are offsets into data; callers slice the original bytes, which
// keep the tokens for parsers that understand them (zarrmeta). data is returned
// unchanged when it holds no such token.
func sanitizeJSON(data []byte) []byte {
	var out []byte
	inString := false
	for i := 0; i < len(data); i++ {
		c := data[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		if c == '"' {
			inString = true
			continue
		}
		for _, tok := range nonFinite {
			if hasTokenAt(data, i, tok.name) {
				if out == nil {
					out = append([]byte(nil), data...)
				}
				copy(out[i:], tok.same)
				i += len(tok.name) - 1
				break
			}
		}
	}
	if out == nil {
		return data
	}
	return out
}

var nonFinite = []struct{ name, same string }{
	{"NaN", "0e0"},
	{"Infinity", "0.000000"},
	{"-Infinity", "-0.000000"},
}

// hasTokenAt reports whether data holds the bare token tok at i.
func hasTokenAt(data []byte, i int, tok string) bool {
	if len(data)-i < len(tok) || string(data[i:i+len(tok)]) != tok {
		return false
	}
	if i > 0 && isIdent(data[i-1]) {
		return false
	}
	end := i + len(tok)
	return end == len(data) || !isIdent(data[end])
}

func isIdent(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.'
}
