package npy

import (
	"fmt"
	"strconv"
	"strings"
)

// pyValue is one value of the Python literal subset found in .npy headers.
// Exactly one of the fields is meaningful, selected by kind.
type pyValue struct {
	kind  pyKind
	str   string
	num   int64
	truth bool
	items []pyValue // tuple or list
	keys  []string  // dict keys, in order
	vals  []pyValue // dict values, parallel to keys
	text  string    // the literal source text of this value
}

type pyKind int

const (
	pyStr pyKind = iota
	pyInt
	pyBool
	pyNone
	pyTuple
	pyList
	pyDict
)

// maxDepth bounds nesting so a hostile header cannot exhaust the stack.
const maxDepth = 32

type pyParser struct {
	s   string
	pos int
}

// parsePy parses s as one Python literal followed only by whitespace.
func parsePy(s string) (pyValue, error) {
	p := &pyParser{s: s}
	v, err := p.value(0)
	if err != nil {
		return pyValue{}, err
	}
	p.skipSpace()
	if p.pos != len(p.s) {
		return pyValue{}, p.errorf("unexpected %q after the header dict", p.s[p.pos])
	}
	return v, nil
}

func (p *pyParser) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: at offset %d: %s", ErrHeader, p.pos, fmt.Sprintf(format, args...))
}

func (p *pyParser) skipSpace() {
	for p.pos < len(p.s) {
		switch p.s[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *pyParser) value(depth int) (pyValue, error) {
	if depth > maxDepth {
		return pyValue{}, p.errorf("nesting deeper than %d", maxDepth)
	}
	p.skipSpace()
	if p.pos >= len(p.s) {
		return pyValue{}, p.errorf("unexpected end of header")
	}
	start := p.pos
	var v pyValue
	var err error
	switch c := p.s[p.pos]; {
	case c == '\'' || c == '"':
		v.kind = pyStr
		v.str, err = p.str()
	case c == '(':
		v.kind = pyTuple
		v.items, err = p.seq(')', depth)
	case c == '[':
		v.kind = pyList
		v.items, err = p.seq(']', depth)
	case c == '{':
		v.kind = pyDict
		v.keys, v.vals, err = p.dict(depth)
	case c == '-' || c == '+' || (c >= '0' && c <= '9'):
		v.kind = pyInt
		v.num, err = p.integer()
	default:
		v, err = p.word()
	}
	if err != nil {
		return pyValue{}, err
	}
	v.text = p.s[start:p.pos]
	return v, nil
}

func (p *pyParser) word() (pyValue, error) {
	for _, w := range []struct {
		text string
		v    pyValue
	}{{"True", pyValue{kind: pyBool, truth: true}}, {"False", pyValue{kind: pyBool}}, {"None", pyValue{kind: pyNone}}} {
		if strings.HasPrefix(p.s[p.pos:], w.text) {
			p.pos += len(w.text)
			return w.v, nil
		}
	}
	return pyValue{}, p.errorf("unexpected character %q", p.s[p.pos])
}

// integer parses a decimal integer, accepting the trailing L that Python 2
// numpy wrote in shapes.
func (p *pyParser) integer() (int64, error) {
	start := p.pos
	if p.s[p.pos] == '-' || p.s[p.pos] == '+' {
		p.pos++
	}
	for p.pos < len(p.s) && p.s[p.pos] >= '0' && p.s[p.pos] <= '9' {
		p.pos++
	}
	n, err := strconv.ParseInt(p.s[start:p.pos], 10, 64)
	if err != nil {
		return 0, p.errorf("bad integer %q", p.s[start:p.pos])
	}
	if p.pos < len(p.s) && p.s[p.pos] == 'L' {
		p.pos++
	}
	return n, nil
}

// str parses a quoted string with the escapes numpy's repr can produce.
func (p *pyParser) str() (string, error) {
	q := p.s[p.pos]
	p.pos++
	var b strings.Builder
	for p.pos < len(p.s) {
		c := p.s[p.pos]
		p.pos++
		switch {
		case c == q:
			return b.String(), nil
		case c == '\n':
			return "", p.errorf("newline inside a string")
		case c != '\\':
			b.WriteByte(c)
			continue
		}
		if p.pos >= len(p.s) {
			break
		}
		e := p.s[p.pos]
		p.pos++
		switch e {
		case '\\', '\'', '"':
			b.WriteByte(e)
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'x':
			if p.pos+2 > len(p.s) {
				return "", p.errorf("short \\x escape")
			}
			n, err := strconv.ParseUint(p.s[p.pos:p.pos+2], 16, 8)
			if err != nil {
				return "", p.errorf("bad \\x escape")
			}
			b.WriteByte(byte(n))
			p.pos += 2
		default:
			return "", p.errorf("unsupported escape \\%c", e)
		}
	}
	return "", p.errorf("unterminated string")
}

func (p *pyParser) seq(end byte, depth int) ([]pyValue, error) {
	p.pos++ // opening bracket
	var items []pyValue
	for {
		p.skipSpace()
		if p.pos < len(p.s) && p.s[p.pos] == end {
			p.pos++
			return items, nil
		}
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		items = append(items, v)
		if err := p.sep(end); err != nil {
			return nil, err
		}
	}
}

// sep consumes a comma, or leaves the closing bracket for the caller.
func (p *pyParser) sep(end byte) error {
	p.skipSpace()
	if p.pos >= len(p.s) {
		return p.errorf("unexpected end of header")
	}
	switch p.s[p.pos] {
	case ',':
		p.pos++
		return nil
	case end:
		return nil
	}
	return p.errorf("expected ',' or %q, found %q", end, p.s[p.pos])
}

func (p *pyParser) dict(depth int) ([]string, []pyValue, error) {
	p.pos++ // '{'
	var keys []string
	var vals []pyValue
	for {
		p.skipSpace()
		if p.pos < len(p.s) && p.s[p.pos] == '}' {
			p.pos++
			return keys, vals, nil
		}
		k, err := p.value(depth + 1)
		if err != nil {
			return nil, nil, err
		}
		if k.kind != pyStr {
			return nil, nil, p.errorf("dict key %s is not a string", k.text)
		}
		p.skipSpace()
		if p.pos >= len(p.s) || p.s[p.pos] != ':' {
			return nil, nil, p.errorf("expected ':' after key %q", k.str)
		}
		p.pos++
		v, err := p.value(depth + 1)
		if err != nil {
			return nil, nil, err
		}
		keys = append(keys, k.str)
		vals = append(vals, v)
		if err := p.sep('}'); err != nil {
			return nil, nil, err
		}
	}
}
