package selection

import (
	"fmt"
	"slices"
	"strconv"
)

// SyntaxError reports text that [Parse] cannot read.
type SyntaxError struct {
	Text   string // the whole text given to Parse
	Offset int    // byte offset of the problem in Text
	Msg    string // what was wrong
}

// Error returns the message, quoting the text and naming the offset.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("selection: parse %q: at offset %d: %s", e.Text, e.Offset, e.Msg)
}

// Parse reads a selection in numpy's subscript syntax without the brackets:
// items separated by commas, each an integer ("5", "-1"), a slice
// ("10:200:3", "-8:", "::-1", bounds may be "None"), "...", an index list
// ("[1, 4, 9]"), a boolean mask ("[True, False, True]"), "None" or "newaxis"
// (a new axis of length 1), a mask over several axes as nested lists
// ("[[True, False], [False, True]]": numpy's a[mask2d]), or index arrays
// broadcast together ("vindex([0, 2], [1, 3])": the points (0, 1) and
// (2, 3), numpy's a[[0, 2], [1, 3]]). Lists on several axes outside vindex
// select orthogonally: "[0, 2], [1, 3]" is a 2×2 block. "()" is the empty
// selection, which selects everything. Whitespace between tokens is ignored
// and one trailing comma is allowed, as in Python. Integers must fit in an
// int and must not be math.MinInt. Errors are [*SyntaxError]s.
func Parse(s string) (Selection, error) {
	p := parser{text: s}
	p.space()
	if p.eof() {
		return nil, p.errorf("empty selection: use \"()\" or \"...\" for everything")
	}
	if p.peek() == '(' {
		p.pos++
		p.space()
		if p.eof() || p.peek() != ')' {
			return nil, p.errorf("expected \")\" to close \"()\", found %s", p.found())
		}
		p.pos++
		p.space()
		if !p.eof() {
			return nil, p.errorf("unexpected %s after \"()\"", p.found())
		}
		return Selection{}, nil
	}
	sel := Selection{}
	for {
		it, err := p.item()
		if err != nil {
			return nil, err
		}
		sel = append(sel, it)
		p.space()
		if p.eof() {
			return sel, nil
		}
		if p.peek() != ',' {
			return nil, p.errorf("expected \",\" between items, found %s", p.found())
		}
		p.pos++
		p.space()
		if p.eof() {
			return sel, nil // one trailing comma, as in a[1,]
		}
	}
}

type parser struct {
	text string
	pos  int
}

func (p *parser) eof() bool  { return p.pos >= len(p.text) }
func (p *parser) peek() byte { return p.text[p.pos] }

func (p *parser) space() {
	for !p.eof() {
		switch p.peek() {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

// found names the token at the current position for error messages.
func (p *parser) found() string {
	if p.eof() {
		return "end of text"
	}
	end := p.pos + 1
	if isWord(p.peek()) || isDigit(p.peek()) {
		for end < len(p.text) && (isWord(p.text[end]) || isDigit(p.text[end])) {
			end++
		}
	}
	return strconv.Quote(p.text[p.pos:end])
}

func (p *parser) errorf(format string, args ...any) error {
	return &SyntaxError{Text: p.text, Offset: p.pos, Msg: fmt.Sprintf(format, args...)}
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func isWord(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '_' }

func (p *parser) item() (Item, error) {
	if p.eof() || p.peek() == ',' {
		return Item{}, p.errorf("expected an index, slice, list or \"...\", found %s", p.found())
	}
	switch p.peek() {
	case '.':
		if len(p.text)-p.pos >= 3 && p.text[p.pos:p.pos+3] == "..." {
			p.pos += 3
			return Ellipsis(), nil
		}
		return Item{}, p.errorf("expected \"...\", found %s", p.found())
	case '[':
		if p.nested() {
			return p.maskND()
		}
		return p.list()
	case 'n':
		if p.word("newaxis") {
			return NewAxis(), nil
		}
	case 'v':
		if p.word("vindex") {
			return p.vindex()
		}
	}
	return p.slice()
}

// word consumes w if the text continues with it as a whole word.
func (p *parser) word(w string) bool {
	end := p.pos + len(w)
	if end > len(p.text) || p.text[p.pos:end] != w || end < len(p.text) && (isWord(p.text[end]) || isDigit(p.text[end])) {
		return false
	}
	p.pos = end
	return true
}

// nested reports whether the list at the current position holds lists.
func (p *parser) nested() bool {
	i := p.pos + 1
	for i < len(p.text) && (p.text[i] == ' ' || p.text[i] == '\t' || p.text[i] == '\n' || p.text[i] == '\r') {
		i++
	}
	return i < len(p.text) && p.text[i] == '['
}

// vindex reads "(" lists ")" after "vindex": index arrays broadcast together.
func (p *parser) vindex() (Item, error) {
	p.space()
	if p.eof() || p.peek() != '(' {
		return Item{}, p.errorf("expected \"(\" after vindex, found %s", p.found())
	}
	p.pos++
	var arrays [][]int
	for {
		p.space()
		if !p.eof() && p.peek() == ')' && len(arrays) > 0 {
			p.pos++
			return Vindex(arrays...), nil
		}
		if p.eof() || p.peek() != '[' {
			return Item{}, p.errorf("expected an index list in vindex(…), found %s", p.found())
		}
		it, err := p.list()
		if err != nil {
			return Item{}, err
		}
		if it.kind != kindList {
			return Item{}, p.errorf("vindex(…) takes index lists, not masks")
		}
		arrays = append(arrays, it.list)
		p.space()
		if !p.eof() && p.peek() == ',' {
			p.pos++
		}
	}
}

// maskND reads a nested list of booleans: a mask over several axes.
func (p *parser) maskND() (Item, error) {
	open := p.pos
	shape, vals, err := p.nestedBools()
	if err != nil {
		return Item{}, err
	}
	if len(shape) < 2 {
		p.pos = open
		return Item{}, p.errorf("expected a nested list of booleans")
	}
	return MaskND(shape, vals), nil
}

// nestedBools reads a list of booleans or of nested lists of one shape.
func (p *parser) nestedBools() ([]int, []bool, error) {
	if !p.nested() {
		begin := p.pos
		it, err := p.list()
		if err != nil {
			return nil, nil, err
		}
		if it.kind != kindMask {
			p.pos = begin
			return nil, nil, p.errorf("a nested list must hold booleans (a mask over several axes); for index arrays broadcast together write vindex([…], […])")
		}
		return []int{len(it.mask)}, it.mask, nil
	}
	p.pos++ // '['
	var inner []int
	var vals []bool
	rows := 0
	for {
		p.space()
		if p.eof() {
			return nil, nil, p.errorf("unclosed \"[\"")
		}
		if p.peek() == ']' {
			p.pos++
			break
		}
		begin := p.pos
		sh, v, err := p.nestedBools()
		if err != nil {
			return nil, nil, err
		}
		if inner != nil && !slices.Equal(inner, sh) {
			p.pos = begin
			return nil, nil, p.errorf("ragged mask: a row of shape %v after rows of shape %v", sh, inner)
		}
		inner, vals, rows = sh, append(vals, v...), rows+1
		p.space()
		if !p.eof() && p.peek() == ',' {
			p.pos++
		}
	}
	return append([]int{rows}, inner...), vals, nil
}

// slice reads an integer or a slice: [start] ":" [stop] [":" [step]].
func (p *parser) slice() (Item, error) {
	start, ok, err := p.bound()
	if err != nil {
		return Item{}, err
	}
	p.space()
	if p.eof() || p.peek() != ':' {
		if ok && start == None {
			return NewAxis(), nil
		}
		if !ok {
			return Item{}, p.errorf("expected an index, slice, list or \"...\", found %s", p.found())
		}
		return Index(start), nil
	}
	p.pos++
	p.space()
	stop, _, err := p.bound()
	if err != nil {
		return Item{}, err
	}
	step := None
	p.space()
	if !p.eof() && p.peek() == ':' {
		p.pos++
		p.space()
		if step, _, err = p.bound(); err != nil {
			return Item{}, err
		}
	}
	return Slice(start, stop, step), nil
}

// bound reads an optional integer or "None"; absent and None give None.
func (p *parser) bound() (v int, present bool, err error) {
	if p.eof() {
		return None, false, nil
	}
	c := p.peek()
	if isWord(c) {
		if len(p.text)-p.pos >= 4 && p.text[p.pos:p.pos+4] == "None" &&
			(len(p.text) == p.pos+4 || !isWord(p.text[p.pos+4]) && !isDigit(p.text[p.pos+4])) {
			p.pos += 4
			return None, true, nil
		}
		return 0, false, p.errorf("unexpected %s", p.found())
	}
	if !isDigit(c) && c != '-' && c != '+' {
		return None, false, nil
	}
	v, err = p.integer()
	return v, true, err
}

func (p *parser) integer() (int, error) {
	begin := p.pos
	if p.peek() == '-' || p.peek() == '+' {
		p.pos++
	}
	digits := p.pos
	for !p.eof() && isDigit(p.peek()) {
		p.pos++
	}
	if p.pos == digits {
		p.pos = begin
		return 0, p.errorf("expected digits after sign, found %s", p.foundAt(digits))
	}
	if !p.eof() && (isWord(p.peek()) || p.peek() == '.') {
		return 0, p.errorf("unexpected %s after integer %q", p.found(), p.text[begin:p.pos])
	}
	tok := p.text[begin:p.pos]
	v, err := strconv.ParseInt(tok, 10, strconv.IntSize)
	if err != nil || int(v) == None {
		p.pos = begin
		return 0, p.errorf("integer %q out of range", tok)
	}
	return int(v), nil
}

func (p *parser) foundAt(pos int) string {
	save := p.pos
	p.pos = pos
	defer func() { p.pos = save }()
	return p.found()
}

// list reads "[" elements "]" where the elements are all integers (an index
// list) or all True/False (a mask).
func (p *parser) list() (Item, error) {
	open := p.pos
	p.pos++ // '['
	var ints []int
	var bools []bool
	for {
		p.space()
		if p.eof() {
			p.pos = open
			return Item{}, p.errorf("unclosed \"[\"")
		}
		if p.peek() == ']' {
			p.pos++
			break
		}
		if err := p.element(&ints, &bools); err != nil {
			return Item{}, err
		}
		p.space()
		if p.eof() {
			p.pos = open
			return Item{}, p.errorf("unclosed \"[\"")
		}
		switch p.peek() {
		case ',':
			p.pos++
		case ']':
		default:
			return Item{}, p.errorf("expected \",\" or \"]\" in list, found %s", p.found())
		}
	}
	if bools != nil {
		return Item{kind: kindMask, mask: bools}, nil
	}
	if ints == nil {
		ints = []int{}
	}
	return Item{kind: kindList, list: ints}, nil
}

func (p *parser) element(ints *[]int, bools *[]bool) error {
	c := p.peek()
	if isWord(c) {
		begin := p.pos
		for !p.eof() && (isWord(p.peek()) || isDigit(p.peek())) {
			p.pos++
		}
		var b bool
		switch p.text[begin:p.pos] {
		case "True", "true":
			b = true
		case "False", "false":
		default:
			p.pos = begin
			return p.errorf("expected an integer or True/False in list, found %s", p.found())
		}
		if *ints != nil {
			p.pos = begin
			return p.errorf("list mixes integers and booleans at %s", p.found())
		}
		*bools = append(*bools, b)
		return nil
	}
	if !isDigit(c) && c != '-' && c != '+' {
		return p.errorf("expected an integer or True/False in list, found %s", p.found())
	}
	begin := p.pos
	v, err := p.integer()
	if err != nil {
		return err
	}
	if *bools != nil {
		p.pos = begin
		return p.errorf("list mixes booleans and integers at %s", p.found())
	}
	*ints = append(*ints, v)
	return nil
}
