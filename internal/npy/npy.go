package npy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Errors reported by Read and Write, wrapped with detail.
var (
	// ErrHeader reports a malformed or unsupported .npy header.
	ErrHeader = errors.New("npy: bad header")
	// ErrObject reports an object array ('|O'), whose data is a Python
	// pickle that this package refuses to interpret.
	ErrObject = errors.New("npy: object arrays are not supported")
	// ErrData reports data whose length does not match the header.
	ErrData = errors.New("npy: bad data length")
)

// MaxHeaderLen is the largest header, in bytes, that Read accepts.
const MaxHeaderLen = 1 << 20

// magic is the fixed prefix of every .npy file.
const magic = "\x93NUMPY"

// Array is the content of one .npy file.
type Array struct {
	// Descr is the dtype as numpy writes it in the header: a simple typestr
	// without its quotes ("<i2", "|S8", "<U17"), or for structured dtypes
	// the literal text of the list ("[('a', '<i4'), ('b', '<f8')]").
	Descr string
	// Shape is the array shape; empty for a 0-d array.
	Shape []int
	// Fortran reports that Data is in Fortran (column-major) order.
	Fortran bool
	// Data holds the raw element bytes, in the byte order Descr declares.
	Data []byte
}

// Read reads one .npy file from r, consuming r to its end: bytes after
// the data are an error. Versions 1.0, 2.0 and 3.0 are accepted.
func Read(r io.Reader) (*Array, error) {
	a, n, err := readArrayHeader(r)
	if err != nil {
		return nil, err
	}
	if a.Data, err = readData(r, n); err != nil {
		return nil, err
	}
	return a, nil
}

// Parse parses one .npy file held in b, as Read reads one; the Data of the
// result aliases b (no copy), so a file mapped into memory is used in place.
func Parse(b []byte) (*Array, error) {
	r := bytes.NewReader(b)
	a, n, err := readArrayHeader(r)
	if err != nil {
		return nil, err
	}
	switch data := b[len(b)-r.Len():]; {
	case len(data) < n:
		return nil, fmt.Errorf("%w: want %d bytes of data, got %d", ErrData, n, len(data))
	case len(data) > n:
		return nil, fmt.Errorf("%w: trailing bytes after %d bytes of data", ErrData, n)
	default:
		a.Data = data[:n:n]
	}
	return a, nil
}

// readArrayHeader reads the preamble and header from r and returns the
// array they describe, without its data, and the data's length in bytes.
func readArrayHeader(r io.Reader) (*Array, int, error) {
	header, err := readHeader(r)
	if err != nil {
		return nil, 0, err
	}
	a, size, err := parseHeader(header)
	if err != nil {
		return nil, 0, err
	}
	n, err := dataLen(a.Shape, size)
	if err != nil {
		return nil, 0, err
	}
	return a, n, nil
}

// readHeader reads the preamble and returns the header text.
func readHeader(r io.Reader) (string, error) {
	var pre [10]byte
	if _, err := io.ReadFull(r, pre[:8]); err != nil {
		return "", fmt.Errorf("%w: reading preamble: %v", ErrHeader, err)
	}
	if string(pre[:6]) != magic {
		return "", fmt.Errorf("%w: not a .npy file (bad magic %q)", ErrHeader, pre[:6])
	}
	major, minor := pre[6], pre[7]
	var hlen uint32
	switch {
	case major == 1 && minor == 0:
		if _, err := io.ReadFull(r, pre[8:10]); err != nil {
			return "", fmt.Errorf("%w: reading header length: %v", ErrHeader, err)
		}
		hlen = uint32(binary.LittleEndian.Uint16(pre[8:10]))
	case (major == 2 || major == 3) && minor == 0:
		var b [4]byte
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return "", fmt.Errorf("%w: reading header length: %v", ErrHeader, err)
		}
		hlen = binary.LittleEndian.Uint32(b[:])
	default:
		return "", fmt.Errorf("%w: unsupported version %d.%d", ErrHeader, major, minor)
	}
	if hlen > MaxHeaderLen {
		return "", fmt.Errorf("%w: header length %d exceeds %d", ErrHeader, hlen, MaxHeaderLen)
	}
	buf := make([]byte, hlen)
	if _, err := io.ReadFull(r, buf); err != nil {
		return "", fmt.Errorf("%w: reading %d-byte header: %v", ErrHeader, hlen, err)
	}
	if major == 3 {
		if !utf8.Valid(buf) {
			return "", fmt.Errorf("%w: version 3.0 header is not UTF-8", ErrHeader)
		}
		return string(buf), nil
	}
	return latin1(buf), nil
}

// latin1 decodes the Latin-1 text of a version 1.0 or 2.0 header.
func latin1(b []byte) string {
	runes := make([]rune, len(b))
	for i, c := range b {
		runes[i] = rune(c)
	}
	return string(runes)
}

// parseHeader interprets the header dict and returns the array without
// data and the item size.
func parseHeader(h string) (*Array, int, error) {
	v, err := parsePy(h)
	if err != nil {
		return nil, 0, err
	}
	if v.kind != pyDict {
		return nil, 0, fmt.Errorf("%w: header is not a dict", ErrHeader)
	}
	a := new(Array)
	var size int
	seen := map[string]bool{}
	for i, k := range v.keys {
		if seen[k] {
			return nil, 0, fmt.Errorf("%w: duplicate key %q", ErrHeader, k)
		}
		seen[k] = true
		val := v.vals[i]
		switch k {
		case "descr":
			if size, err = itemSize(val, 0); err != nil {
				return nil, 0, err
			}
			a.Descr = val.str
			if val.kind == pyList {
				a.Descr = val.text
			}
		case "fortran_order":
			if val.kind != pyBool {
				return nil, 0, fmt.Errorf("%w: fortran_order %s is not a bool", ErrHeader, val.text)
			}
			a.Fortran = val.truth
		case "shape":
			if a.Shape, err = parseShape(val); err != nil {
				return nil, 0, err
			}
		default:
			return nil, 0, fmt.Errorf("%w: unexpected key %q", ErrHeader, k)
		}
	}
	if len(seen) != 3 {
		return nil, 0, fmt.Errorf("%w: header needs descr, fortran_order and shape", ErrHeader)
	}
	return a, size, nil
}

func parseShape(v pyValue) ([]int, error) {
	if v.kind != pyTuple {
		return nil, fmt.Errorf("%w: shape %s is not a tuple", ErrHeader, v.text)
	}
	shape := make([]int, len(v.items))
	for i, d := range v.items {
		if d.kind != pyInt || d.num < 0 || uint64(d.num) > math.MaxInt {
			return nil, fmt.Errorf("%w: shape %s has a bad dimension %s", ErrHeader, v.text, d.text)
		}
		shape[i] = int(d.num)
	}
	return shape, nil
}

// dataLen returns product(shape)*size, refusing overflow.
func dataLen(shape []int, size int) (int, error) {
	n := size
	for _, d := range shape {
		if d < 0 {
			return 0, fmt.Errorf("%w: negative dimension in shape %v", ErrHeader, shape)
		}
		if d != 0 && n > math.MaxInt/d {
			return 0, fmt.Errorf("%w: shape %v with item size %d overflows", ErrHeader, shape, size)
		}
		n *= d
	}
	return n, nil
}

// readStep is the largest amount of data allocated ahead of actually
// receiving it, so a lying header cannot force a huge allocation.
const readStep = 16 << 20

// readData reads exactly n bytes and checks that r is then exhausted.
func readData(r io.Reader, n int) ([]byte, error) {
	data := make([]byte, 0, min(n, readStep))
	for len(data) < n {
		k := min(n-len(data), readStep)
		data = append(data, make([]byte, k)...)
		got, err := io.ReadFull(r, data[len(data)-k:])
		if err != nil {
			return nil, fmt.Errorf("%w: want %d bytes of data, got %d", ErrData, n, len(data)-k+got)
		}
	}
	var extra [1]byte
	if m, _ := io.ReadFull(r, extra[:]); m != 0 {
		return nil, fmt.Errorf("%w: trailing bytes after %d bytes of data", ErrData, n)
	}
	return data, nil
}

// Write writes a as a .npy file: version 1.0, or 2.0 when the header is
// longer than 1.0 allows, or 3.0 (UTF-8 header) when the descr holds
// non-ASCII text such as a field name. It checks that a.Descr is a dtype it can size and
// that len(a.Data) equals product(a.Shape) times the item size.
func Write(w io.Writer, a *Array) error {
	if a == nil {
		return fmt.Errorf("%w: nil array", ErrData)
	}
	h, n, err := header(a.Descr, a.Fortran, a.Shape)
	if err != nil {
		return err
	}
	if len(a.Data) != n {
		return fmt.Errorf("%w: shape %v of %q needs %d bytes, have %d", ErrData, a.Shape, a.Descr, n, len(a.Data))
	}
	if _, err := w.Write(h); err != nil {
		return fmt.Errorf("npy: write header: %w", err)
	}
	if _, err := w.Write(a.Data); err != nil {
		return fmt.Errorf("npy: write data: %w", err)
	}
	return nil
}

// WriteHeader writes the magic string and header of a .npy file of the
// given dtype and shape (as Write does) and returns how many bytes of data
// must follow, for a caller that writes the data itself.
func WriteHeader(w io.Writer, descr string, fortran bool, shape []int) (int, error) {
	h, n, err := header(descr, fortran, shape)
	if err != nil {
		return 0, err
	}
	if _, err := w.Write(h); err != nil {
		return 0, fmt.Errorf("npy: write header: %w", err)
	}
	return n, nil
}

// header returns the magic string and header of a .npy file, padded so that
// the data starts on a 64-byte boundary as numpy does, and the length of
// the data that follows.
func header(descr string, fortran bool, shape []int) ([]byte, int, error) {
	lit, size, err := checkDescr(descr)
	if err != nil {
		return nil, 0, err
	}
	n, err := dataLen(shape, size)
	if err != nil {
		return nil, 0, err
	}
	var buf bytes.Buffer
	buf.WriteString(magic)
	text := headerText(lit, fortran, shape)
	pre := len(magic) + 2 + 2
	utf := !isASCII(text)
	if utf || pre+len(text)+1 > math.MaxUint16 {
		pre = len(magic) + 2 + 4
	}
	pad := (64 - (pre+len(text)+1)%64) % 64
	text += strings.Repeat(" ", pad) + "\n"
	switch {
	case utf:
		buf.Write([]byte{3, 0})
		buf.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(text))))
	case len(text) > math.MaxUint16:
		buf.Write([]byte{2, 0})
		buf.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(text))))
	default:
		buf.Write([]byte{1, 0})
		buf.Write(binary.LittleEndian.AppendUint16(nil, uint16(len(text))))
	}
	buf.WriteString(text)
	return buf.Bytes(), n, nil
}

// checkDescr validates a Descr and returns its header literal and item size.
func checkDescr(d string) (string, int, error) {
	lit := d
	if !strings.HasPrefix(strings.TrimSpace(d), "[") {
		if strings.ContainsAny(d, "'\\\n") {
			return "", 0, fmt.Errorf("%w: descr %q contains a quote, backslash or newline", ErrHeader, d)
		}
		lit = "'" + d + "'"
	}
	v, err := parsePy(lit)
	if err != nil {
		return "", 0, err
	}
	size, err := itemSize(v, 0)
	if err != nil {
		return "", 0, err
	}
	return lit, size, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func headerText(descr string, fortran bool, shape []int) string {
	var b strings.Builder
	b.WriteString("{'descr': ")
	b.WriteString(descr)
	b.WriteString(", 'fortran_order': ")
	if fortran {
		b.WriteString("True")
	} else {
		b.WriteString("False")
	}
	b.WriteString(", 'shape': (")
	for i, d := range shape {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(d))
	}
	if len(shape) == 1 {
		b.WriteString(",")
	}
	b.WriteString("), }")
	return b.String()
}
