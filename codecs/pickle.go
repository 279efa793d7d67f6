package codecs

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"
)

// pickleCodec decodes numcodecs "pickle" chunks as hdmf-zarr writes them:
// the pickle (protocols 2 to 5) of a numpy object array whose items are
// strings, bytes, numbers, None, booleans, lists and tuples of those, numpy
// scalars and hdmf-zarr's ZarrReference. It is a decoder of its own, not a
// Python unpickler: it knows the opcodes such a chunk uses and the few
// callables that rebuild the array (numpy's _reconstruct, ndarray, dtype and
// scalar) and a ZarrReference (rebuilt as the map {"source", "path", ...}
// that the JSON codec gives for the same reference). Any other opcode or
// global is an error naming it; nothing is ever called or executed. Input,
// nesting and the values built are bounded.
type pickleCodec struct{}

func newPickle([]byte) (ObjectCodec, error) { return pickleCodec{}, nil }

// Limits of the pickle decoder, against hostile chunks.
const (
	// pickleMaxDepth bounds the nesting of lists and tuples in a value.
	pickleMaxDepth = 64
	// pickleMaxNodes bounds the values an item tree expands to (a list
	// appended to itself through the memo many times expands
	// exponentially), per item of the array, with a floor for small arrays.
	pickleMaxNodes = 1 << 20
	// pickleMaxStack bounds the values on the machine's stack and memo.
	pickleMaxStack = 1 << 24
)

// pklGlobal is a callable the stream named; only the allowed ones are made.
type pklGlobal int

const (
	pklReconstruct pklGlobal = iota + 1 // numpy.core.multiarray._reconstruct
	pklNDArray                          // numpy.ndarray
	pklDTypeClass                       // numpy.dtype
	pklScalar                           // numpy.core.multiarray.scalar
	pklZarrRef                          // hdmf_zarr.utils.ZarrReference
)

// allowedGlobals maps the module and name of every global a chunk may name
// to what it stands for. numpy 2 spells numpy.core numpy._core.
var allowedGlobals = map[[2]string]pklGlobal{
	{"numpy.core.multiarray", "_reconstruct"}:  pklReconstruct,
	{"numpy._core.multiarray", "_reconstruct"}: pklReconstruct,
	{"numpy", "ndarray"}:                       pklNDArray,
	{"numpy", "dtype"}:                         pklDTypeClass,
	{"numpy.core.multiarray", "scalar"}:        pklScalar,
	{"numpy._core.multiarray", "scalar"}:       pklScalar,
	{"hdmf_zarr.utils", "ZarrReference"}:       pklZarrRef,
}

// pklArray is a numpy array being rebuilt: empty after _reconstruct, its
// shape and items set by BUILD.
type pklArray struct {
	built bool
	shape []int
	items []any
}

// pklDType is a numpy dtype: its type code ("O8", "i4") and byte order.
type pklDType struct {
	code  string
	order byte // '<', '>', '|' or '=' after BUILD; 0 before
}

// pklTuple is a Python tuple (immutable: APPEND on it is an error).
type pklTuple []any

// pklList is a Python list; a pointer, so that APPEND through the memo
// changes every place the list is.
type pklList struct{ items []any }

// pklRef is a ZarrReference being filled by SETITEMS.
type pklRef map[string]any

type pklMark struct{}

func (pickleCodec) DecodeObjects(src []byte, n int) ([]any, error) {
	v, err := (&pickleMachine{p: src}).run()
	if err != nil {
		return nil, err
	}
	a, ok := v.(*pklArray)
	if !ok || !a.built {
		return nil, errCorrupt("pickle", "the pickle holds %s, not a numpy object array", pklTypeName(v))
	}
	count := 1
	for _, d := range a.shape {
		count *= d
	}
	if count != len(a.items) {
		return nil, errCorrupt("pickle", "array of shape %v holds %d items", a.shape, len(a.items))
	}
	if n >= 0 && count != n {
		return nil, errCorrupt("pickle", "%d items, want %d", count, n)
	}
	budget := max(pickleMaxNodes, 64*len(a.items))
	out := make([]any, len(a.items))
	for i, it := range a.items {
		if out[i], err = pklValue(it, 0, &budget); err != nil {
			return nil, errCorrupt("pickle", "item %d: %v", i, err)
		}
	}
	return out, nil
}

// pklValue converts a value built by the machine into the codec's items:
// nil, bool, string, []byte, json.Number, []any and, for a ZarrReference,
// map[string]any. budget counts the values left to make.
func pklValue(v any, depth int, budget *int) (any, error) {
	if *budget--; *budget < 0 {
		return nil, pklErr("the values expand to more than the limit")
	}
	if depth > pickleMaxDepth {
		return nil, pklErr("lists nested more than %d deep", pickleMaxDepth)
	}
	var list []any
	switch v := v.(type) {
	case nil, bool, string, []byte, json.Number:
		return v, nil
	case pklRef:
		if _, ok := v["path"].(string); !ok {
			return nil, pklErr("ZarrReference with no string \"path\"")
		}
		m := make(map[string]any, len(v))
		for k, x := range v {
			m[k] = x
		}
		return m, nil
	case *pklList:
		list = v.items
	case pklTuple:
		list = v
	default:
		return nil, pklErr("a %s is not an item of an object array", pklTypeName(v))
	}
	out := make([]any, len(list))
	for i, x := range list {
		y, err := pklValue(x, depth+1, budget)
		if err != nil {
			return nil, err
		}
		out[i] = y
	}
	return out, nil
}

func pklTypeName(v any) string {
	switch v := v.(type) {
	case nil:
		return "None"
	case pklGlobal:
		return "a global"
	case *pklArray:
		return "an array"
	case *pklDType:
		return "a dtype " + strconv.Quote(v.code)
	case pklTuple:
		return "a tuple"
	case *pklList:
		return "a list"
	case pklRef:
		return "a ZarrReference"
	case pklMark:
		return "a MARK"
	case string:
		return "a string"
	case []byte:
		return "bytes"
	case json.Number:
		return "a number"
	case bool:
		return "a bool"
	}
	return "an unknown value"
}

// pklErr is a message about the stream; DecodeObjects and run wrap it.
type pklError string

func (e pklError) Error() string { return string(e) }

func pklErr(format string, args ...any) error {
	if len(args) == 0 {
		return pklError(format)
	}
	return pklError(fmt.Sprintf(format, args...))
}

// pickleMachine runs the opcodes of one pickle.
type pickleMachine struct {
	p     []byte
	pos   int
	stack []any
	marks []int // stack lengths at each MARK
	memo  map[uint32]any
}

// opNames names the opcodes an error may report, by their byte.
var opNames = map[byte]string{
	'(': "MARK", '.': "STOP", '0': "POP", '1': "POP_MARK", '2': "DUP", 'F': "FLOAT", 'I': "INT",
	'J': "BININT", 'K': "BININT1", 'L': "LONG", 'M': "BININT2", 'N': "NONE", 'P': "PERSID",
	'Q': "BINPERSID", 'R': "REDUCE", 'S': "STRING", 'T': "BINSTRING", 'U': "SHORT_BINSTRING",
	'V': "UNICODE", 'X': "BINUNICODE", 'a': "APPEND", 'b': "BUILD", 'c': "GLOBAL", 'd': "DICT",
	'}': "EMPTY_DICT", 'e': "APPENDS", 'g': "GET", 'h': "BINGET", 'i': "INST", 'j': "LONG_BINGET",
	'l': "LIST", ']': "EMPTY_LIST", 'o': "OBJ", 'p': "PUT", 'q': "BINPUT", 'r': "LONG_BINPUT",
	's': "SETITEM", 't': "TUPLE", ')': "EMPTY_TUPLE", 'u': "SETITEMS", 'G': "BINFLOAT",
	0x80: "PROTO", 0x81: "NEWOBJ", 0x82: "EXT1", 0x83: "EXT2", 0x84: "EXT4", 0x85: "TUPLE1",
	0x86: "TUPLE2", 0x87: "TUPLE3", 0x88: "NEWTRUE", 0x89: "NEWFALSE", 0x8a: "LONG1", 0x8b: "LONG4",
	'C': "SHORT_BINBYTES", 'B': "BINBYTES", 0x8c: "SHORT_BINUNICODE", 0x8d: "BINUNICODE8",
	0x8e: "BINBYTES8", 0x8f: "EMPTY_SET", 0x90: "ADDITEMS", 0x91: "FROZENSET", 0x92: "NEWOBJ_EX",
	0x93: "STACK_GLOBAL", 0x94: "MEMOIZE", 0x95: "FRAME", 0x96: "BYTEARRAY8", 0x97: "NEXT_BUFFER",
	0x98: "READONLY_BUFFER",
}

func (m *pickleMachine) run() (v any, err error) {
	m.memo = map[uint32]any{}
	for {
		if m.pos >= len(m.p) {
			return nil, errCorrupt("pickle", "truncated: no STOP")
		}
		at := m.pos
		op := m.p[m.pos]
		m.pos++
		if op == '.' {
			if len(m.stack) != 1 || len(m.marks) != 0 {
				return nil, errCorrupt("pickle", "STOP at %d with %d values and %d marks on the stack", at, len(m.stack), len(m.marks))
			}
			return m.stack[0], nil
		}
		if err := m.step(op); err != nil {
			name, ok := opNames[op]
			if !ok {
				name = "opcode " + strconv.QuoteRune(rune(op))
			}
			return nil, errCorrupt("pickle", "%s at %d: %v", name, at, err)
		}
		if len(m.stack)+len(m.memo) > pickleMaxStack {
			return nil, errCorrupt("pickle", "more than %d values on the stack and memo", pickleMaxStack)
		}
	}
}

func (m *pickleMachine) need(n uint64) ([]byte, error) {
	if n > uint64(len(m.p)-m.pos) {
		return nil, pklErr("length %d runs past the end of the %d-byte pickle", n, len(m.p))
	}
	b := m.p[m.pos : m.pos+int(n)]
	m.pos += int(n)
	return b, nil
}

func (m *pickleMachine) uint(n int) (uint64, error) {
	b, err := m.need(uint64(n))
	if err != nil {
		return 0, err
	}
	var u uint64
	for i := n - 1; i >= 0; i-- {
		u = u<<8 | uint64(b[i])
	}
	return u, nil
}

func (m *pickleMachine) push(v any) { m.stack = append(m.stack, v) }

func (m *pickleMachine) pop() (any, error) {
	floor := 0
	if len(m.marks) > 0 {
		floor = m.marks[len(m.marks)-1]
	}
	if len(m.stack) <= floor {
		return nil, pklErr("stack underflow")
	}
	v := m.stack[len(m.stack)-1]
	m.stack = m.stack[:len(m.stack)-1]
	return v, nil
}

func (m *pickleMachine) top() (any, error) {
	floor := 0
	if len(m.marks) > 0 {
		floor = m.marks[len(m.marks)-1]
	}
	if len(m.stack) <= floor {
		return nil, pklErr("stack underflow")
	}
	return m.stack[len(m.stack)-1], nil
}

// popMark pops the values above the last MARK, and the MARK.
func (m *pickleMachine) popMark() ([]any, error) {
	if len(m.marks) == 0 {
		return nil, pklErr("no MARK")
	}
	at := m.marks[len(m.marks)-1]
	m.marks = m.marks[:len(m.marks)-1]
	items := append([]any(nil), m.stack[at:]...)
	m.stack = m.stack[:at]
	return items, nil
}

func (m *pickleMachine) text(n uint64) error {
	b, err := m.need(n)
	if err != nil {
		return err
	}
	if !utf8.Valid(b) {
		return pklErr("a string that is not UTF-8")
	}
	m.push(string(b))
	return nil
}

func (m *pickleMachine) bytes(n uint64) error {
	b, err := m.need(n)
	if err != nil {
		return err
	}
	m.push(append([]byte{}, b...))
	return nil
}

func (m *pickleMachine) step(op byte) error {
	switch op {
	case 0x80: // PROTO
		b, err := m.need(1)
		if err != nil {
			return err
		}
		if b[0] < 2 || b[0] > 5 {
			return pklErr("protocol %d (2 to 5 are read)", b[0])
		}
	case 0x95: // FRAME: a length hint; the frame's opcodes follow inline
		n, err := m.uint(8)
		if err != nil {
			return err
		}
		if n > uint64(len(m.p)-m.pos) {
			return pklErr("frame of %d bytes runs past the end of the %d-byte pickle", n, len(m.p))
		}
	case 0x8c: // SHORT_BINUNICODE
		n, err := m.uint(1)
		if err != nil {
			return err
		}
		return m.text(n)
	case 'X': // BINUNICODE
		n, err := m.uint(4)
		if err != nil {
			return err
		}
		return m.text(n)
	case 0x8d: // BINUNICODE8
		n, err := m.uint(8)
		if err != nil {
			return err
		}
		return m.text(n)
	case 'C': // SHORT_BINBYTES
		n, err := m.uint(1)
		if err != nil {
			return err
		}
		return m.bytes(n)
	case 'B': // BINBYTES
		n, err := m.uint(4)
		if err != nil {
			return err
		}
		return m.bytes(n)
	case 0x8e: // BINBYTES8
		n, err := m.uint(8)
		if err != nil {
			return err
		}
		return m.bytes(n)
	case 0x94: // MEMOIZE
		v, err := m.top()
		if err != nil {
			return err
		}
		m.memo[uint32(len(m.memo))] = v
	case 'q', 'r': // BINPUT, LONG_BINPUT
		n := 1
		if op == 'r' {
			n = 4
		}
		k, err := m.uint(n)
		if err != nil {
			return err
		}
		v, err := m.top()
		if err != nil {
			return err
		}
		m.memo[uint32(k)] = v
	case 'h', 'j': // BINGET, LONG_BINGET
		n := 1
		if op == 'j' {
			n = 4
		}
		k, err := m.uint(n)
		if err != nil {
			return err
		}
		v, ok := m.memo[uint32(k)]
		if !ok {
			return pklErr("memo %d is empty", k)
		}
		m.push(v)
	case 0x93: // STACK_GLOBAL
		name, err := m.pop()
		if err != nil {
			return err
		}
		module, err := m.pop()
		if err != nil {
			return err
		}
		ms, ok1 := module.(string)
		ns, ok2 := name.(string)
		if !ok1 || !ok2 {
			return pklErr("module and name are %s and %s, not strings", pklTypeName(module), pklTypeName(name))
		}
		return m.global(ms, ns)
	case 'c': // GLOBAL: "module\nname\n"
		module, err := m.line()
		if err != nil {
			return err
		}
		name, err := m.line()
		if err != nil {
			return err
		}
		return m.global(module, name)
	case '(':
		m.marks = append(m.marks, len(m.stack))
	case ')':
		m.push(pklTuple{})
	case 't':
		items, err := m.popMark()
		if err != nil {
			return err
		}
		m.push(pklTuple(items))
	case 0x85, 0x86, 0x87: // TUPLE1-3
		k := int(op - 0x84)
		t := make(pklTuple, k)
		for i := k - 1; i >= 0; i-- {
			v, err := m.pop()
			if err != nil {
				return err
			}
			t[i] = v
		}
		m.push(t)
	case ']':
		m.push(&pklList{})
	case 'a': // APPEND
		v, err := m.pop()
		if err != nil {
			return err
		}
		return m.appendTo([]any{v})
	case 'e': // APPENDS
		items, err := m.popMark()
		if err != nil {
			return err
		}
		return m.appendTo(items)
	case 'u': // SETITEMS
		items, err := m.popMark()
		if err != nil {
			return err
		}
		return m.setItems(items)
	case 's': // SETITEM
		v, err := m.pop()
		if err != nil {
			return err
		}
		k, err := m.pop()
		if err != nil {
			return err
		}
		return m.setItems([]any{k, v})
	case 'J': // BININT
		u, err := m.uint(4)
		if err != nil {
			return err
		}
		m.push(json.Number(strconv.FormatInt(int64(int32(uint32(u))), 10)))
	case 'K':
		u, err := m.uint(1)
		if err != nil {
			return err
		}
		m.push(json.Number(strconv.FormatUint(u, 10)))
	case 'M':
		u, err := m.uint(2)
		if err != nil {
			return err
		}
		m.push(json.Number(strconv.FormatUint(u, 10)))
	case 0x8a: // LONG1: a little-endian two's complement integer of n bytes
		n, err := m.uint(1)
		if err != nil {
			return err
		}
		if n > 8 {
			return pklErr("an integer of %d bytes (at most 8 are read)", n)
		}
		b, err := m.need(n)
		if err != nil {
			return err
		}
		m.push(json.Number(longValue(b)))
	case 'G': // BINFLOAT, big-endian
		b, err := m.need(8)
		if err != nil {
			return err
		}
		m.push(floatNumber(math.Float64frombits(binary.BigEndian.Uint64(b))))
	case 'N':
		m.push(nil)
	case 0x88:
		m.push(true)
	case 0x89:
		m.push(false)
	case 'R':
		return m.reduce()
	case 0x81:
		return m.newObj()
	case 'b':
		return m.build()
	default:
		return pklErr("not an opcode of a pickled object array")
	}
	return nil
}

// line reads a newline-terminated text argument (GLOBAL's).
func (m *pickleMachine) line() (string, error) {
	for i := m.pos; i < len(m.p) && i-m.pos < 256; i++ {
		if m.p[i] == '\n' {
			s := string(m.p[m.pos:i])
			m.pos = i + 1
			return s, nil
		}
	}
	return "", pklErr("no newline ends the name")
}

func (m *pickleMachine) global(module, name string) error {
	g, ok := allowedGlobals[[2]string{module, name}]
	if !ok {
		return pklErr("global %s.%s is not allowed (only numpy's array, dtype and scalar and hdmf_zarr's ZarrReference are)", module, name)
	}
	m.push(g)
	return nil
}

func (m *pickleMachine) appendTo(items []any) error {
	v, err := m.top()
	if err != nil {
		return err
	}
	l, ok := v.(*pklList)
	if !ok {
		return pklErr("appending to %s, not a list", pklTypeName(v))
	}
	l.items = append(l.items, items...)
	return nil
}

// setItems sets keys of a ZarrReference, the only mapping a chunk holds.
func (m *pickleMachine) setItems(kv []any) error {
	v, err := m.top()
	if err != nil {
		return err
	}
	r, ok := v.(pklRef)
	if !ok {
		return pklErr("setting items of %s, not a ZarrReference", pklTypeName(v))
	}
	if len(kv)%2 != 0 {
		return pklErr("an odd number of keys and values")
	}
	for i := 0; i < len(kv); i += 2 {
		k, ok := kv[i].(string)
		if !ok {
			return pklErr("ZarrReference key is %s, not a string", pklTypeName(kv[i]))
		}
		switch x := kv[i+1].(type) {
		case string, nil:
			r[k] = x
		default:
			return pklErr("ZarrReference %q is %s, not a string", k, pklTypeName(x))
		}
	}
	return nil
}

// reduce calls one of the allowed callables on its argument tuple.
func (m *pickleMachine) reduce() error {
	argv, err := m.pop()
	if err != nil {
		return err
	}
	fn, err := m.pop()
	if err != nil {
		return err
	}
	args, ok := argv.(pklTuple)
	if !ok {
		return pklErr("arguments are %s, not a tuple", pklTypeName(argv))
	}
	g, ok := fn.(pklGlobal)
	if !ok {
		return pklErr("calling %s", pklTypeName(fn))
	}
	switch g {
	case pklReconstruct:
		// _reconstruct(ndarray, (0,), b'b'): an empty array BUILD fills.
		if len(args) != 3 || args[0] != pklNDArray {
			return pklErr("_reconstruct of something other than numpy.ndarray")
		}
		m.push(&pklArray{})
	case pklDTypeClass:
		// dtype(code, align, copy)
		if len(args) < 1 {
			return pklErr("dtype with no type code")
		}
		code, ok := args[0].(string)
		if !ok {
			return pklErr("dtype of %s, not a type code", pklTypeName(args[0]))
		}
		m.push(&pklDType{code: code})
	case pklScalar:
		// scalar(dtype, bytes): a numpy number.
		if len(args) != 2 {
			return pklErr("numpy scalar with %d arguments", len(args))
		}
		dt, ok1 := args[0].(*pklDType)
		b, ok2 := args[1].([]byte)
		if !ok1 || !ok2 {
			return pklErr("numpy scalar of %s and %s, not a dtype and bytes", pklTypeName(args[0]), pklTypeName(args[1]))
		}
		v, err := scalarValue(dt, b)
		if err != nil {
			return err
		}
		m.push(v)
	default:
		return pklErr("calling a class that is built with NEWOBJ or BUILD")
	}
	return nil
}

// newObj makes a ZarrReference (cls.__new__(cls)), filled by SETITEMS.
func (m *pickleMachine) newObj() error {
	argv, err := m.pop()
	if err != nil {
		return err
	}
	cls, err := m.pop()
	if err != nil {
		return err
	}
	if cls != pklZarrRef {
		return pklErr("NEWOBJ of %s, not ZarrReference", pklTypeName(cls))
	}
	if args, ok := argv.(pklTuple); !ok || len(args) != 0 {
		return pklErr("ZarrReference made with arguments")
	}
	m.push(pklRef{})
	return nil
}

// build sets the state of an array or a dtype.
func (m *pickleMachine) build() error {
	state, err := m.pop()
	if err != nil {
		return err
	}
	obj, err := m.top()
	if err != nil {
		return err
	}
	st, ok := state.(pklTuple)
	if !ok {
		return pklErr("state is %s, not a tuple", pklTypeName(state))
	}
	switch o := obj.(type) {
	case *pklDType:
		// (version, byteorder, subarray, names, fields, elsize, alignment, flags)
		if o.order != 0 || len(st) < 2 {
			return pklErr("dtype state set twice or too short")
		}
		s, ok := st[1].(string)
		if !ok || len(s) != 1 || !containsByte("<>|=", s[0]) {
			return pklErr("dtype byte order %v", st[1])
		}
		for _, x := range st[2:min(len(st), 5)] {
			if x != nil {
				return pklErr("structured or subarray dtypes are not read")
			}
		}
		o.order = s[0]
	case *pklArray:
		// (version, shape, dtype, is_fortran, items)
		if o.built || len(st) != 5 {
			return pklErr("array state set twice or not of 5 members")
		}
		shape, ok := st[1].(pklTuple)
		if !ok {
			return pklErr("array shape is %s", pklTypeName(st[1]))
		}
		dt, ok := st[2].(*pklDType)
		if !ok || dt.code != "O8" && dt.code != "O4" {
			return pklErr("array of %s: only object arrays are read", pklTypeName(st[2]))
		}
		if f, ok := st[3].(bool); !ok || f {
			return pklErr("Fortran-order array")
		}
		list, ok := st[4].(*pklList)
		if !ok {
			return pklErr("array items are %s, not a list", pklTypeName(st[4]))
		}
		count := 1
		for _, d := range shape {
			num, ok := d.(json.Number)
			k, err := strconv.ParseInt(string(num), 10, 64)
			if !ok || err != nil || k < 0 || k > math.MaxInt32 {
				return pklErr("array extent %v", d)
			}
			o.shape = append(o.shape, int(k))
			if count *= int(k); count > len(m.p) {
				return pklErr("array of shape %v is larger than its pickle", o.shape)
			}
		}
		o.items, o.built = list.items, true
	default:
		return pklErr("setting the state of %s", pklTypeName(obj))
	}
	return nil
}

func containsByte(s string, c byte) bool {
	for i := range len(s) {
		if s[i] == c {
			return true
		}
	}
	return false
}

// scalarValue decodes a numpy scalar's bytes.
func scalarValue(dt *pklDType, b []byte) (any, error) {
	var order binary.ByteOrder = binary.LittleEndian
	if dt.order == '>' {
		order = binary.BigEndian
	}
	code := dt.code
	if len(code) < 2 {
		return nil, pklErr("numpy scalar of dtype %q", code)
	}
	size, err := strconv.Atoi(code[1:])
	if err != nil || size != len(b) {
		return nil, pklErr("numpy scalar of dtype %q with %d bytes", code, len(b))
	}
	var u uint64
	switch size {
	case 1:
		u = uint64(b[0])
	case 2:
		u = uint64(order.Uint16(b))
	case 4:
		u = uint64(order.Uint32(b))
	case 8:
		u = order.Uint64(b)
	default:
		return nil, pklErr("numpy scalar of dtype %q", code)
	}
	switch code[0] {
	case 'i':
		shift := 64 - 8*size
		return json.Number(strconv.FormatInt(int64(u<<shift)>>shift, 10)), nil
	case 'u':
		return json.Number(strconv.FormatUint(u, 10)), nil
	case 'b':
		if size == 1 {
			return u != 0, nil
		}
	case 'f':
		switch size {
		case 4:
			return floatNumber(float64(math.Float32frombits(uint32(u)))), nil
		case 8:
			return floatNumber(math.Float64frombits(u)), nil
		}
	}
	return nil, pklErr("numpy scalar of dtype %q", code)
}

// floatNumber spells a float as the JSON codec's items do (NaN, Infinity
// and -Infinity included), with a decimal point so that it reads as a float.
func floatNumber(f float64) json.Number {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !containsAny(s, ".eE") {
		s += ".0"
	}
	return json.Number(s)
}

func containsAny(s, chars string) bool {
	for i := range len(chars) {
		if containsByte(s, chars[i]) {
			return true
		}
	}
	return false
}

// longValue reads LONG1's little-endian two's complement bytes (at most 8).
func longValue(b []byte) string {
	if len(b) == 0 {
		return "0"
	}
	var u uint64
	for i := len(b) - 1; i >= 0; i-- {
		u = u<<8 | uint64(b[i])
	}
	shift := 64 - 8*len(b)
	if b[len(b)-1]&0x80 == 0 {
		if len(b) == 8 {
			return strconv.FormatUint(u, 10)
		}
		return strconv.FormatInt(int64(u), 10)
	}
	return strconv.FormatInt(int64(u<<shift)>>shift, 10)
}
