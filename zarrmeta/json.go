package zarrmeta

import (
	"encoding/json"
	"fmt"
	"iter"
	"math"
	"strconv"
	"unicode/utf8"
)

// maxJSONDepth bounds nesting so hostile metadata cannot exhaust the stack.
const maxJSONDepth = 128

// DecodeJSON decodes one JSON value, tolerating the bare NaN, Infinity and
// -Infinity tokens Python's json module writes (outside strings only). It
// returns nil, bool, string, []any, map[string]any or a number: int64 for an
// integer literal in range, uint64 for a larger integer literal that fits,
// and float64 otherwise (including literals with a fraction or exponent,
// so 2.0 stays a float64). Nesting is limited to 128 levels.
func DecodeJSON(b []byte) (any, error) {
	d := &jsonDecoder{b: b}
	v, err := d.value(0)
	if err != nil {
		return nil, err
	}
	d.skipSpace()
	if d.pos != len(d.b) {
		return nil, d.errorf("unexpected %q after the value", d.b[d.pos])
	}
	return v, nil
}

type jsonDecoder struct {
	b   []byte
	pos int
}

func (d *jsonDecoder) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: at offset %d: %s", ErrJSON, d.pos, fmt.Sprintf(format, args...))
}

func (d *jsonDecoder) skipSpace() {
	for d.pos < len(d.b) {
		switch d.b[d.pos] {
		case ' ', '\t', '\n', '\r':
			d.pos++
		default:
			return
		}
	}
}

func (d *jsonDecoder) value(depth int) (any, error) {
	if depth > maxJSONDepth {
		return nil, d.errorf("nesting deeper than %d", maxJSONDepth)
	}
	d.skipSpace()
	if d.pos >= len(d.b) {
		return nil, d.errorf("unexpected end of input")
	}
	switch c := d.b[d.pos]; {
	case c == '{':
		return d.object(depth)
	case c == '[':
		return d.array(depth)
	case c == '"':
		return d.str()
	case c == '-' || c >= '0' && c <= '9':
		return d.number()
	}
	return d.literal()
}

var jsonLiterals = []struct {
	text string
	v    any
}{
	{"true", true}, {"false", false}, {"null", nil},
	{"NaN", math.NaN()}, {"Infinity", math.Inf(1)}, {"-Infinity", math.Inf(-1)},
}

func (d *jsonDecoder) literal() (any, error) {
	for _, l := range jsonLiterals {
		if hasWordAt(d.b, d.pos, l.text) {
			d.pos += len(l.text)
			return l.v, nil
		}
	}
	return nil, d.errorf("unexpected character %q", d.b[d.pos])
}

// hasWordAt reports whether b holds word at i, not followed by more of an
// identifier.
func hasWordAt(b []byte, i int, word string) bool {
	if len(b)-i < len(word) || string(b[i:i+len(word)]) != word {
		return false
	}
	end := i + len(word)
	return end == len(b) || !isWordByte(b[end])
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

func (d *jsonDecoder) number() (any, error) {
	if hasWordAt(d.b, d.pos, "-Infinity") {
		d.pos += len("-Infinity")
		return math.Inf(-1), nil
	}
	start := d.pos
	integral := true
	if d.b[d.pos] == '-' {
		d.pos++
	}
	for d.pos < len(d.b) {
		c := d.b[d.pos]
		if c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-' {
			integral = false
		} else if c < '0' || c > '9' {
			break
		}
		d.pos++
	}
	text := string(d.b[start:d.pos])
	if !validNumber(text) {
		return nil, d.errorf("bad number %q", text)
	}
	if integral {
		if n, err := strconv.ParseInt(text, 10, 64); err == nil {
			return n, nil
		}
		if n, err := strconv.ParseUint(text, 10, 64); err == nil {
			return n, nil
		}
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && !isRangeErr(err) {
		return nil, d.errorf("bad number %q", text)
	}
	return f, nil
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// validNumber checks the JSON number grammar, which is stricter than
// strconv's (no leading zeros, no leading '+', digits around the point).
func validNumber(s string) bool {
	i := 0
	if i < len(s) && s[i] == '-' {
		i++
	}
	digits := func() int {
		n := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			n++
		}
		return n
	}
	first := i
	if n := digits(); n == 0 || (n > 1 && s[first] == '0') {
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if digits() == 0 {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if digits() == 0 {
			return false
		}
	}
	return i == len(s)
}

func (d *jsonDecoder) str() (string, error) {
	start := d.pos
	d.pos++
	simple := true
	for d.pos < len(d.b) {
		c := d.b[d.pos]
		switch {
		case c == '"':
			d.pos++
			raw := d.b[start:d.pos]
			if simple && utf8.Valid(raw) {
				return string(raw[1 : len(raw)-1]), nil
			}
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				return "", d.errorf("bad string: %v", err)
			}
			return s, nil
		case c == '\\':
			simple = false
			d.pos += 2
			continue
		case c < 0x20:
			return "", d.errorf("control character in string")
		}
		d.pos++
	}
	return "", d.errorf("unterminated string")
}

func (d *jsonDecoder) array(depth int) ([]any, error) {
	d.pos++ // '['
	items := []any{}
	d.skipSpace()
	if d.pos < len(d.b) && d.b[d.pos] == ']' {
		d.pos++
		return items, nil
	}
	for {
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		items = append(items, v)
		if done, err := d.next(']'); err != nil || done {
			return items, err
		}
	}
}

// next consumes a ',' (done false) or the closing byte end (done true).
func (d *jsonDecoder) next(end byte) (bool, error) {
	d.skipSpace()
	if d.pos >= len(d.b) {
		return false, d.errorf("unexpected end of input")
	}
	switch d.b[d.pos] {
	case ',':
		d.pos++
		return false, nil
	case end:
		d.pos++
		return true, nil
	}
	return false, d.errorf("expected ',' or %q, found %q", end, d.b[d.pos])
}

func (d *jsonDecoder) object(depth int) (map[string]any, error) {
	d.pos++ // '{'
	m := map[string]any{}
	d.skipSpace()
	if d.pos < len(d.b) && d.b[d.pos] == '}' {
		d.pos++
		return m, nil
	}
	for {
		d.skipSpace()
		if d.pos >= len(d.b) || d.b[d.pos] != '"' {
			return nil, d.errorf("expected a string key")
		}
		k, err := d.str()
		if err != nil {
			return nil, err
		}
		d.skipSpace()
		if d.pos >= len(d.b) || d.b[d.pos] != ':' {
			return nil, d.errorf("expected ':' after key %q", k)
		}
		d.pos++
		v, err := d.value(depth + 1)
		if err != nil {
			return nil, err
		}
		m[k] = v
		if done, err := d.next('}'); err != nil || done {
			return m, err
		}
	}
}

// NonFinite yields the offset and spelling of each bare NaN, Infinity and
// -Infinity token outside strings in the JSON text b: the tokens Python's
// json module writes and encoding/json refuses.
func NonFinite(b []byte) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		inString := false
		for i := 0; i < len(b); i++ {
			c := b[i]
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
			if i > 0 && isWordByte(b[i-1]) {
				continue
			}
			for _, w := range []string{"NaN", "Infinity", "-Infinity"} {
				if hasWordAt(b, i, w) {
					if !yield(i, w) {
						return
					}
					i += len(w) - 1
					break
				}
			}
		}
	}
}

// quoteNonFinite returns b with bare NaN, Infinity and -Infinity tokens
// outside strings replaced by the JSON strings "NaN", "Infinity" and
// "-Infinity", the spelling zarr uses for such fill values, so that
// encoding/json accepts the document. b is returned as is when it holds no
// such token.
func quoteNonFinite(b []byte) []byte {
	var out []byte
	last := 0
	for i, w := range NonFinite(b) {
		out = append(out, b[last:i]...)
		out = append(out, '"')
		out = append(out, w...)
		out = append(out, '"')
		last = i + len(w)
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

// MapJSON copies the JSON value v (lists []any and objects map[string]any,
// at any depth) with each value replaced as leaf says: leaf sees every
// value, lists and objects included, before the walk goes into them; when it
// returns true its result takes the value's place, otherwise lists and
// objects are copied member by member and other values kept. It is the one
// walk over decoded JSON that the packages replacing values in attributes
// share (non-finite floats here, zarr3's non-finite-attributes strings,
// h5grove's attribute encoding). Nesting is bounded by DecodeJSON's.
func MapJSON(v any, leaf func(any) (any, bool)) any {
	if x, ok := leaf(v); ok {
		return x
	}
	switch v := v.(type) {
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = MapJSON(x, leaf)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = MapJSON(x, leaf)
		}
		return out
	}
	return v
}
