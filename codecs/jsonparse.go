package codecs

import (
	"encoding/json"
	"unicode/utf8"
)

// maxJSONDepth bounds nesting so hostile input cannot exhaust the stack; it
// matches the limit of encoding/json.
const maxJSONDepth = 10000

// jsonParser reads JSON as Python's json module writes it with allow_nan:
// standard JSON plus the bare tokens NaN, Infinity and -Infinity. Values are
// nil, bool, string, json.Number (the special tokens as json.Number("NaN"),
// json.Number("Infinity"), json.Number("-Infinity"), which Float64 parses),
// []any and map[string]any.
type jsonParser struct {
	id  string
	src []byte
	pos int
}

// parseJSON parses one JSON document, rejecting trailing non-space bytes.
func parseJSON(id string, src []byte) (any, error) {
	p := &jsonParser{id: id, src: src}
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.pos != len(p.src) {
		return nil, p.fail("unexpected bytes after the JSON value")
	}
	return v, nil
}

func (p *jsonParser) fail(what string) error {
	return errCorrupt(p.id, "JSON at byte %d: %s", p.pos, what)
}

func (p *jsonParser) space() {
	for p.pos < len(p.src) {
		switch p.src[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// literal consumes word if the input continues with it.
func (p *jsonParser) literal(word string) bool {
	if len(p.src)-p.pos >= len(word) && string(p.src[p.pos:p.pos+len(word)]) == word {
		p.pos += len(word)
		return true
	}
	return false
}

func (p *jsonParser) value(depth int) (any, error) {
	if depth > maxJSONDepth {
		return nil, p.fail("nesting too deep")
	}
	p.space()
	if p.pos >= len(p.src) {
		return nil, p.fail("unexpected end of input")
	}
	switch c := p.src[p.pos]; {
	case c == '[':
		return p.array(depth)
	case c == '{':
		return p.object(depth)
	case c == '"':
		return p.str()
	case c == '-' && p.literal("-Infinity"):
		return json.Number("-Infinity"), nil
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	case p.literal("true"):
		return true, nil
	case p.literal("false"):
		return false, nil
	case p.literal("null"):
		return nil, nil
	case p.literal("NaN"):
		return json.Number("NaN"), nil
	case p.literal("Infinity"):
		return json.Number("Infinity"), nil
	}
	return nil, p.fail("unexpected character")
}

func (p *jsonParser) array(depth int) (any, error) {
	p.pos++ // '['
	items := []any{}
	p.space()
	if p.pos < len(p.src) && p.src[p.pos] == ']' {
		p.pos++
		return items, nil
	}
	for {
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		items = append(items, v)
		p.space()
		if p.pos >= len(p.src) {
			return nil, p.fail("unterminated array")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return items, nil
		default:
			return nil, p.fail("expected ',' or ']'")
		}
	}
}

func (p *jsonParser) object(depth int) (any, error) {
	p.pos++ // '{'
	obj := map[string]any{}
	p.space()
	if p.pos < len(p.src) && p.src[p.pos] == '}' {
		p.pos++
		return obj, nil
	}
	for {
		p.space()
		if p.pos >= len(p.src) || p.src[p.pos] != '"' {
			return nil, p.fail("expected a string key")
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.pos >= len(p.src) || p.src[p.pos] != ':' {
			return nil, p.fail("expected ':'")
		}
		p.pos++
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		obj[k.(string)] = v
		p.space()
		if p.pos >= len(p.src) {
			return nil, p.fail("unterminated object")
		}
		switch p.src[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return obj, nil
		default:
			return nil, p.fail("expected ',' or '}'")
		}
	}
}

// str reads a string; plain ones are converted directly, ones with escapes
// are handed to encoding/json, which knows every escape and surrogate rule.
func (p *jsonParser) str() (any, error) {
	start := p.pos
	p.pos++ // '"'
	plain := true
	for p.pos < len(p.src) {
		c := p.src[p.pos]
		switch {
		case c == '"':
			p.pos++
			raw := p.src[start:p.pos]
			if plain && utf8.Valid(raw) {
				return string(raw[1 : len(raw)-1]), nil
			}
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				p.pos = start
				return nil, p.fail("bad string: " + err.Error())
			}
			return s, nil
		case c == '\\':
			plain = false
			p.pos += 2
		case c < 0x20:
			return nil, p.fail("control character in string")
		default:
			p.pos++
		}
	}
	return nil, p.fail("unterminated string")
}

// number reads a number in strict JSON syntax.
func (p *jsonParser) number() (any, error) {
	start := p.pos
	p.literal("-")
	switch {
	case p.literal("0"):
	case p.digits() == 0:
		return nil, p.fail("bad number")
	}
	if p.literal(".") && p.digits() == 0 {
		return nil, p.fail("bad number: no digits after '.'")
	}
	if p.literal("e") || p.literal("E") {
		if !p.literal("+") {
			p.literal("-")
		}
		if p.digits() == 0 {
			return nil, p.fail("bad number: no exponent digits")
		}
	}
	return json.Number(p.src[start:p.pos]), nil
}

// digits consumes decimal digits and returns how many.
func (p *jsonParser) digits() int {
	n := 0
	for p.pos < len(p.src) && p.src[p.pos] >= '0' && p.src[p.pos] <= '9' {
		p.pos++
		n++
	}
	return n
}
