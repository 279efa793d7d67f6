package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// maxGenKeys bounds the refs that the "gen" entries of one document may
// define, against a hostile file that names a huge product of ranges.
const maxGenKeys = 1 << 22

// genEntry is one entry of a kerchunk reference file's "gen" list: refs made
// from templates for every combination of values of its dimensions.
type genEntry struct {
	Key        string                     `json:"key"`
	URL        string                     `json:"url"`
	Offset     json.RawMessage            `json:"offset"`
	Length     json.RawMessage            `json:"length"`
	Dimensions map[string]json.RawMessage `json:"dimensions"`
}

// expandGen turns kerchunk "gen" entries into refs, as fsspec's
// ReferenceFileSystem does: each dimension is a list of values or a range
// {"start", "stop", "step"}; for every combination the templates key, url,
// offset and length are rendered with the dimensions and the document's
// templates as variables. The templates are jinja2 in Python; this renders
// the part of it kerchunk's files use — "{{ expr }}" where expr is a name, an
// integer or quoted string, and + - * // % with parentheses — and refuses
// anything else, so that no key reads as missing because it was not
// understood.
func expandGen(raw json.RawMessage, tmpl map[string]string) (map[string]json.RawMessage, error) {
	var entries []genEntry
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, fmt.Errorf("gen: not a list of {key, url, offset, length, dimensions}: %v", err)
	}
	out := map[string]json.RawMessage{}
	for i, e := range entries {
		if err := e.expand(out, tmpl); err != nil {
			return nil, fmt.Errorf("gen[%d] (key %q): %w", i, e.Key, err)
		}
	}
	return out, nil
}

func (e *genEntry) expand(out map[string]json.RawMessage, tmpl map[string]string) error {
	if e.Key == "" || e.URL == "" {
		return fmt.Errorf("needs a \"key\" and a \"url\"")
	}
	if (e.Offset == nil) != (e.Length == nil) {
		return fmt.Errorf("both \"offset\" and \"length\" are required when either is given")
	}
	names := slices.Sorted(maps.Keys(e.Dimensions))
	dims := make([][]genValue, len(names))
	total := 1
	for i, name := range names {
		vals, err := dimensionValues(e.Dimensions[name])
		if err != nil {
			return fmt.Errorf("dimension %q: %w", name, err)
		}
		dims[i] = vals
		if total *= len(vals); total > maxGenKeys || len(out)+total > maxGenKeys {
			return fmt.Errorf("defines more than %d refs", maxGenKeys)
		}
	}
	vars := map[string]genValue{}
	for k, v := range tmpl {
		vars[k] = genValue{s: v, str: true}
	}
	idx := make([]int, len(names))
	for range total {
		for i, name := range names {
			vars[name] = dims[i][idx[i]]
		}
		if err := e.one(out, vars); err != nil {
			return err
		}
		for i := len(idx) - 1; i >= 0; i-- { // the next combination, last dimension fastest
			if idx[i]++; idx[i] < len(dims[i]) {
				break
			}
			idx[i] = 0
		}
	}
	return nil
}

// one renders the ref of one combination of dimension values.
func (e *genEntry) one(out map[string]json.RawMessage, vars map[string]genValue) error {
	key, err := render(e.Key, vars)
	if err != nil {
		return fmt.Errorf("key: %w", err)
	}
	url, err := render(e.URL, vars)
	if err != nil {
		return fmt.Errorf("url: %w", err)
	}
	ref := []any{url}
	if e.Offset != nil {
		off, err := renderInt(e.Offset, vars)
		if err != nil {
			return fmt.Errorf("offset: %w", err)
		}
		n, err := renderInt(e.Length, vars)
		if err != nil {
			return fmt.Errorf("length: %w", err)
		}
		ref = append(ref, off, n)
	}
	b, err := json.Marshal(ref)
	if err != nil {
		return err
	}
	out[key] = b
	return nil
}

// renderInt renders an offset or length: a JSON integer, or a string
// template that renders to one.
func renderInt(raw json.RawMessage, vars map[string]genValue) (int64, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		s = string(bytes.TrimSpace(raw))
	} else if s, err = render(s, vars); err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not an integer", s)
	}
	return n, nil
}

// dimensionValues lists the values of one dimension: a JSON list of
// integers and strings, or a range {"start": 0, "stop": n, "step": 1}.
func dimensionValues(raw json.RawMessage) ([]genValue, error) {
	var list []any
	if err := json.Unmarshal(raw, &list); err == nil {
		vals := make([]genValue, len(list))
		for i, x := range list {
			switch v := x.(type) {
			case string:
				vals[i] = genValue{s: v, str: true}
			case float64:
				if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
					return nil, fmt.Errorf("value %v is not an integer", v)
				}
				vals[i] = genValue{n: int64(v)}
			default:
				return nil, fmt.Errorf("value %v is neither an integer nor a string", x)
			}
		}
		return vals, nil
	}
	var r struct {
		Start *int64
		Stop  *int64
		Step  *int64
	}
	if err := json.Unmarshal(raw, &r); err != nil || r.Stop == nil {
		return nil, fmt.Errorf("neither a list nor a range with a \"stop\"")
	}
	start, step := int64(0), int64(1)
	if r.Start != nil {
		start = *r.Start
	}
	if r.Step != nil {
		step = *r.Step
	}
	if step == 0 {
		return nil, fmt.Errorf("range step is 0")
	}
	var vals []genValue
	for v := start; step > 0 && v < *r.Stop || step < 0 && v > *r.Stop; v += step {
		if len(vals) >= maxGenKeys {
			return nil, fmt.Errorf("more than %d values", maxGenKeys)
		}
		vals = append(vals, genValue{n: v})
	}
	return vals, nil
}

// genValue is a value in a template expression: an integer or a string.
type genValue struct {
	n   int64
	s   string
	str bool
}

func (v genValue) String() string {
	if v.str {
		return v.s
	}
	return strconv.FormatInt(v.n, 10)
}

// render substitutes every "{{ expr }}" of t.
func render(t string, vars map[string]genValue) (string, error) {
	var sb strings.Builder
	for {
		i := strings.Index(t, "{{")
		if i < 0 {
			sb.WriteString(t)
			return sb.String(), nil
		}
		j := strings.Index(t[i:], "}}")
		if j < 0 {
			return "", fmt.Errorf("unterminated {{ in %q", t)
		}
		sb.WriteString(t[:i])
		v, err := evalExpr(t[i+2:i+j], vars)
		if err != nil {
			return "", fmt.Errorf("{{%s}}: %w", t[i+2:i+j], err)
		}
		sb.WriteString(v.String())
		t = t[i+j+2:]
	}
}

// exprParser evaluates the expressions render understands, by recursive
// descent over the text.
type exprParser struct {
	s    string
	vars map[string]genValue
}

func evalExpr(s string, vars map[string]genValue) (genValue, error) {
	p := &exprParser{s: s, vars: vars}
	v, err := p.sum()
	if err != nil {
		return genValue{}, err
	}
	if p.skip(); p.s != "" {
		return genValue{}, fmt.Errorf("%w: jinja2 syntax %q is not supported (only names, numbers, strings, + - * // %% and parentheses)", ErrFormat, p.s)
	}
	return v, nil
}

func (p *exprParser) skip() { p.s = strings.TrimLeft(p.s, " \t\r\n") }

// take consumes op if the text starts with it (and, for "/", not "//").
func (p *exprParser) take(op string) bool {
	p.skip()
	if !strings.HasPrefix(p.s, op) || op == "/" && strings.HasPrefix(p.s, "//") {
		return false
	}
	p.s = p.s[len(op):]
	return true
}

func (p *exprParser) sum() (genValue, error) {
	v, err := p.product()
	for err == nil {
		switch {
		case p.take("+"):
			var w genValue
			if w, err = p.product(); err == nil {
				v, err = arith('+', v, w)
			}
		case p.take("-"):
			var w genValue
			if w, err = p.product(); err == nil {
				v, err = arith('-', v, w)
			}
		default:
			return v, nil
		}
	}
	return genValue{}, err
}

func (p *exprParser) product() (genValue, error) {
	v, err := p.unary()
	for err == nil {
		var op byte
		switch {
		case p.take("*"):
			op = '*'
		case p.take("//"):
			op = '/'
		case p.take("%"):
			op = '%'
		default:
			return v, nil
		}
		var w genValue
		if w, err = p.unary(); err == nil {
			v, err = arith(op, v, w)
		}
	}
	return genValue{}, err
}

func (p *exprParser) unary() (genValue, error) {
	if p.take("-") {
		v, err := p.unary()
		if err != nil {
			return v, err
		}
		return arith('-', genValue{}, v)
	}
	return p.primary()
}

func (p *exprParser) primary() (genValue, error) {
	p.skip()
	if p.take("(") {
		v, err := p.sum()
		if err != nil {
			return v, err
		}
		if !p.take(")") {
			return genValue{}, fmt.Errorf("%w: missing )", ErrFormat)
		}
		return v, nil
	}
	if p.s == "" {
		return genValue{}, fmt.Errorf("%w: expression ends early", ErrFormat)
	}
	c := p.s[0]
	switch {
	case c >= '0' && c <= '9':
		n := len(p.s) - len(strings.TrimLeft(p.s, "0123456789"))
		v, err := strconv.ParseInt(p.s[:n], 10, 64)
		p.s = p.s[n:]
		if err != nil {
			return genValue{}, fmt.Errorf("%w: %v", ErrFormat, err)
		}
		return genValue{n: v}, nil
	case c == '\'' || c == '"':
		end := strings.IndexByte(p.s[1:], c)
		if end < 0 {
			return genValue{}, fmt.Errorf("%w: unterminated string", ErrFormat)
		}
		v := genValue{s: p.s[1 : end+1], str: true}
		p.s = p.s[end+2:]
		return v, nil
	case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		n := len(p.s) - len(strings.TrimLeft(p.s, "_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"))
		name := p.s[:n]
		p.s = p.s[n:]
		v, ok := p.vars[name]
		if !ok {
			return genValue{}, fmt.Errorf("%w: %q is neither a dimension nor a template", ErrFormat, name)
		}
		return v, nil
	}
	return genValue{}, fmt.Errorf("%w: jinja2 syntax %q is not supported", ErrFormat, p.s)
}

// arith applies a binary operator with Python's semantics: + joins two
// strings; // and % floor.
func arith(op byte, a, b genValue) (genValue, error) {
	if a.str || b.str {
		if op == '+' && a.str && b.str {
			return genValue{s: a.s + b.s, str: true}, nil
		}
		return genValue{}, fmt.Errorf("%w: %q %c %q mixes strings and numbers", ErrFormat, a, op, b)
	}
	x, y := a.n, b.n
	switch op {
	case '+':
		return genValue{n: x + y}, nil
	case '-':
		return genValue{n: x - y}, nil
	case '*':
		return genValue{n: x * y}, nil
	}
	if y == 0 {
		return genValue{}, fmt.Errorf("%w: division by zero", ErrFormat)
	}
	q, r := x/y, x%y
	if r != 0 && (r < 0) != (y < 0) {
		q, r = q-1, r+y
	}
	if op == '/' {
		return genValue{n: q}, nil
	}
	return genValue{n: r}, nil
}
