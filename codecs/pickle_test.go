package codecs

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/big"
	"os"
)

// This file reads the object arrays of the numcodecs corpus, which numpy
// stores in .npy files as Python pickles (protocol 2). It understands the
// opcodes and the few callables (numpy's array reconstruction, dtype, and
// _codecs.encode for bytes) those files use, and nothing more.

// pickledArray is a numpy array rebuilt from a pickle.
type pickledArray struct {
	shape   []int
	fortran bool
	items   []any
}

type pickleGlobal string

type pickleMark struct{}

// readObjectNPY returns the items of an object-dtype .npy file, in the
// file's memory order, with its shape and order.
func readObjectNPY(path string) (*pickledArray, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(b) < 10 || !bytes.HasPrefix(b, []byte("\x93NUMPY")) {
		return nil, fmt.Errorf("%s: not a .npy file", path)
	}
	var hlen, off int
	switch b[6] {
	case 1:
		hlen, off = int(binary.LittleEndian.Uint16(b[8:])), 10
	default:
		hlen, off = int(binary.LittleEndian.Uint32(b[8:])), 12
	}
	v, err := unpickle(b[off+hlen:])
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	a, ok := v.(*pickledArray)
	if !ok {
		return nil, fmt.Errorf("%s: pickle holds %T, not an array", path, v)
	}
	return a, nil
}

// unpickle runs the pickle machine over p.
func unpickle(p []byte) (any, error) {
	var stack []any
	memo := map[int]any{}
	pos := 0
	need := func(n int) ([]byte, error) {
		if len(p)-pos < n {
			return nil, fmt.Errorf("truncated pickle at %d", pos)
		}
		b := p[pos : pos+n]
		pos += n
		return b, nil
	}
	pop := func() any {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		return v
	}
	popMark := func() []any {
		for i := len(stack) - 1; i >= 0; i-- {
			if _, ok := stack[i].(pickleMark); ok {
				items := append([]any(nil), stack[i+1:]...)
				stack = stack[:i]
				return items
			}
		}
		return nil
	}
	line := func() string {
		end := bytes.IndexByte(p[pos:], '\n')
		if end < 0 {
			end = len(p) - pos
		}
		s := string(p[pos : pos+end])
		pos += end + 1
		return s
	}
	for pos < len(p) {
		op := p[pos]
		pos++
		switch op {
		case 0x80: // PROTO
			if _, err := need(1); err != nil {
				return nil, err
			}
		case 0x95: // FRAME
			if _, err := need(8); err != nil {
				return nil, err
			}
		case 'c':
			mod := line()
			name := line()
			stack = append(stack, pickleGlobal(mod+"."+name))
		case 'q', 'r', 0x94:
			var idx int
			switch op {
			case 'q':
				b, err := need(1)
				if err != nil {
					return nil, err
				}
				idx = int(b[0])
			case 'r':
				b, err := need(4)
				if err != nil {
					return nil, err
				}
				idx = int(binary.LittleEndian.Uint32(b))
			default:
				idx = len(memo)
			}
			memo[idx] = stack[len(stack)-1]
		case 'h', 'j':
			n := 1
			if op == 'j' {
				n = 4
			}
			b, err := need(n)
			if err != nil {
				return nil, err
			}
			idx := int(b[0])
			if n == 4 {
				idx = int(binary.LittleEndian.Uint32(b))
			}
			stack = append(stack, memo[idx])
		case '(':
			stack = append(stack, pickleMark{})
		case 't':
			stack = append(stack, popMark())
		case ')':
			stack = append(stack, []any{})
		case 0x85, 0x86, 0x87:
			n := int(op - 0x84)
			t := append([]any(nil), stack[len(stack)-n:]...)
			stack = append(stack[:len(stack)-n], t)
		case 'N':
			stack = append(stack, nil)
		case 0x88:
			stack = append(stack, true)
		case 0x89:
			stack = append(stack, false)
		case 'K':
			b, err := need(1)
			if err != nil {
				return nil, err
			}
			stack = append(stack, int64(b[0]))
		case 'M':
			b, err := need(2)
			if err != nil {
				return nil, err
			}
			stack = append(stack, int64(binary.LittleEndian.Uint16(b)))
		case 'J':
			b, err := need(4)
			if err != nil {
				return nil, err
			}
			stack = append(stack, int64(int32(binary.LittleEndian.Uint32(b))))
		case 0x8a: // LONG1
			b, err := need(1)
			if err != nil {
				return nil, err
			}
			raw, err := need(int(b[0]))
			if err != nil {
				return nil, err
			}
			stack = append(stack, pickleLong(raw))
		case 'G':
			b, err := need(8)
			if err != nil {
				return nil, err
			}
			stack = append(stack, math.Float64frombits(binary.BigEndian.Uint64(b)))
		case 'X', 0x8c, 'B', 'C':
			var n int
			switch op {
			case 'X', 'B':
				b, err := need(4)
				if err != nil {
					return nil, err
				}
				n = int(binary.LittleEndian.Uint32(b))
			default:
				b, err := need(1)
				if err != nil {
					return nil, err
				}
				n = int(b[0])
			}
			b, err := need(n)
			if err != nil {
				return nil, err
			}
			if op == 'X' || op == 0x8c {
				stack = append(stack, string(b))
			} else {
				stack = append(stack, append([]byte(nil), b...))
			}
		case ']':
			stack = append(stack, &[]any{})
		case 'a':
			v := pop()
			l := stack[len(stack)-1].(*[]any)
			*l = append(*l, v)
		case 'e':
			items := popMark()
			l := stack[len(stack)-1].(*[]any)
			*l = append(*l, items...)
		case '}':
			stack = append(stack, map[string]any{})
		case 's':
			v := pop()
			k := pop()
			stack[len(stack)-1].(map[string]any)[fmt.Sprint(k)] = v
		case 'u':
			items := popMark()
			m := stack[len(stack)-1].(map[string]any)
			for i := 0; i+1 < len(items); i += 2 {
				m[fmt.Sprint(items[i])] = items[i+1]
			}
		case 'R':
			args := pop().([]any)
			fn := pop()
			v, err := pickleCall(fn, args)
			if err != nil {
				return nil, err
			}
			stack = append(stack, v)
		case 'b':
			state := pop()
			if a, ok := stack[len(stack)-1].(*pickledArray); ok {
				if err := a.setState(state); err != nil {
					return nil, err
				}
			}
		case '.':
			return deref(pop()), nil
		default:
			return nil, fmt.Errorf("unsupported pickle opcode %#x at %d", op, pos-1)
		}
	}
	return nil, fmt.Errorf("pickle without STOP")
}

// pickleLong decodes a little-endian two's-complement integer.
func pickleLong(raw []byte) any {
	if len(raw) == 0 {
		return int64(0)
	}
	be := make([]byte, len(raw))
	for i, c := range raw {
		be[len(raw)-1-i] = c
	}
	n := new(big.Int).SetBytes(be)
	if raw[len(raw)-1]&0x80 != 0 {
		n.Sub(n, new(big.Int).Lsh(big.NewInt(1), uint(8*len(raw))))
	}
	if n.IsInt64() {
		return n.Int64()
	}
	return n
}

// pickleCall applies the few callables the corpus uses.
func pickleCall(fn any, args []any) (any, error) {
	switch fn {
	case pickleGlobal("numpy.core.multiarray._reconstruct"), pickleGlobal("numpy._core.multiarray._reconstruct"):
		return &pickledArray{}, nil
	case pickleGlobal("numpy.dtype"):
		return pickleGlobal("dtype"), nil
	case pickleGlobal("_codecs.encode"):
		s, ok := args[0].(string)
		if !ok {
			return nil, fmt.Errorf("_codecs.encode of %T", args[0])
		}
		b := make([]byte, 0, len(s))
		for _, r := range s { // latin-1: one byte per code point
			b = append(b, byte(r))
		}
		return b, nil
	}
	return nil, fmt.Errorf("unsupported pickle callable %v", fn)
}

// setState applies ndarray.__setstate__((version, shape, dtype, fortran, data)).
func (a *pickledArray) setState(state any) error {
	t, ok := state.([]any)
	if !ok || len(t) != 5 {
		return fmt.Errorf("unexpected ndarray state %T", state)
	}
	for _, d := range t[1].([]any) {
		a.shape = append(a.shape, int(d.(int64)))
	}
	a.fortran = t[3].(bool)
	l, ok := deref(t[4]).([]any)
	if !ok {
		return fmt.Errorf("ndarray data is %T, not an object list", t[4])
	}
	a.items = l
	return nil
}

// deref replaces list pointers (mutable while unpickling) by their lists.
func deref(v any) any {
	switch x := v.(type) {
	case *[]any:
		out := make([]any, len(*x))
		for i, it := range *x {
			out[i] = deref(it)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, it := range x {
			out[i] = deref(it)
		}
		return out
	case map[string]any:
		for k, it := range x {
			x[k] = deref(it)
		}
		return x
	}
	return v
}
