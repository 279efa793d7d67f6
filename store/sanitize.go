package store

import "github.com/lindigo/lindi/zarrmeta"

// sanitizeJSON returns data with the bare NaN, Infinity and -Infinity tokens
// that Python's json module writes replaced by numbers of the same length, so
// that encoding/json can find where every value starts and ends. Offsets into
// the result are offsets into data; callers slice the original bytes, which
// keep the tokens for parsers that understand them (zarrmeta). data is returned
// unchanged when it holds no such token.
func sanitizeJSON(data []byte) []byte {
	var out []byte
	for i, tok := range zarrmeta.NonFinite(data) {
		if out == nil {
			out = append([]byte(nil), data...)
		}
		copy(out[i:], sameLength[tok])
	}
	if out == nil {
		return data
	}
	return out
}

// sameLength spells a number as long as each non-finite token.
var sameLength = map[string]string{"NaN": "0e0", "Infinity": "0.000000", "-Infinity": "-0.000000"}
