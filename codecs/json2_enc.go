package codecs

import (
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/lindigo/lindi/internal/pyfloat"
)

// json2Codec is numcodecs' JSON codec ("json2"): it decodes as jsonCodec
// does and encodes as numcodecs 0.11 does with Python's json module.
type json2Codec struct {
	*jsonCodec
	ensureASCII bool
	allowNaN    bool
	itemSep     string
	keySep      string
	err         error // why EncodeObjects cannot use the configuration
	config      json.RawMessage
}

// newJSON2 reads numcodecs' JSON options with its defaults (LINDI writes
// them all). Encoding supports ensure_ascii, allow_nan and separators;
// indent, sort_keys false (Go maps have no order to keep) and text
// encodings other than UTF-8 decode but do not encode.
func newJSON2(config []byte) (ObjectCodec, error) {
	const id = "json2"
	c := &json2Codec{jsonCodec: &jsonCodec{id: id, hasShape: true}}
	c.err = c.parse(config)
	return c, nil
}

func (c *json2Codec) parse(config []byte) error {
	const id = "json2"
	c.config = compactConfig(config)
	p, err := parseParams(id, config)
	if err != nil {
		return err
	}
	encoding, err := p.string("encoding", "utf-8")
	if err != nil {
		return err
	}
	opts := map[string]bool{"skipkeys": false, "ensure_ascii": true, "check_circular": true, "allow_nan": true, "sort_keys": true, "strict": true}
	for k, def := range opts {
		if opts[k], err = p.bool(k, def); err != nil {
			return err
		}
	}
	var indent, separators any
	if raw, ok := p.members["indent"]; ok {
		_ = json.Unmarshal(raw, &indent)
	}
	c.itemSep, c.keySep = ",", ":"
	if raw, ok := p.members["separators"]; ok && string(raw) != "null" {
		var seps []string
		if json.Unmarshal(raw, &seps) != nil || len(seps) != 2 {
			return errConfig(id, "separators %s is not a pair of strings", raw)
		}
		c.itemSep, c.keySep = seps[0], seps[1]
		separators = seps
	} else {
		separators = []string{",", ":"}
	}
	switch {
	case strings.ToLower(strings.ReplaceAll(encoding, "_", "-")) != "utf-8" && strings.ToLower(encoding) != "utf8":
		return errConfig(id, "text encoding %q: only utf-8 is written", encoding)
	case indent != nil:
		return errConfig(id, "indent %v: only indent null is written", indent)
	case !opts["sort_keys"]:
		return errConfig(id, "sort_keys false: object keys are always written sorted")
	}
	c.ensureASCII, c.allowNaN = opts["ensure_ascii"], opts["allow_nan"]
	cfg := map[string]any{"id": id, "encoding": "utf-8", "indent": nil, "separators": separators}
	for k, v := range opts {
		cfg[k] = v
	}
	c.config = configJSON(cfg)
	return nil
}

// Config returns the whole numcodecs configuration, as LINDI writes it:
// {"allow_nan":true,"check_circular":true,"encoding":"utf-8",
// "ensure_ascii":true,"id":"json2","indent":null,"separators":[",",":"],
// "skipkeys":false,"sort_keys":true,"strict":true} for the defaults.
func (c *json2Codec) Config() json.RawMessage { return c.config }

// EncodeObjects writes [e0,e1,...,"|O",[shape]] with the items nested as
// lists of the chunk shape, byte for byte as numcodecs 0.11 writes
// json.dumps of ndarray.tolist() + ["|O", shape]: floats as Python's repr,
// NaN and infinities as bare NaN, Infinity, -Infinity (an error when
// allow_nan is false), keys sorted, non-ASCII escaped as \uXXXX under
// ensure_ascii. A 0-d chunk (shape []) is written [v,"|O",[]], the form
// DecodeObjects reads.
func (c *json2Codec) EncodeObjects(items []any, shape []int) ([]byte, error) {
	if c.err != nil {
		return nil, c.err
	}
	if err := checkShape(c.id, len(items), shape); err != nil {
		return nil, err
	}
	w := jsonWriter{c: c, buf: make([]byte, 0, 16*len(items)+32)}
	w.buf = append(w.buf, '[')
	if len(shape) == 0 {
		w.value(items[0], 1)
		w.buf = append(w.buf, c.itemSep...)
	} else {
		stride := len(items) / max(shape[0], 1)
		for i := range shape[0] {
			w.array(items[i*stride:(i+1)*stride], shape[1:], 1)
			w.buf = append(w.buf, c.itemSep...)
		}
	}
	if w.err != nil {
		return nil, w.err
	}
	w.buf = append(w.buf, `"|O"`...)
	w.buf = append(w.buf, c.itemSep...)
	w.buf = append(w.buf, '[')
	for i, d := range shape {
		if i > 0 {
			w.buf = append(w.buf, c.itemSep...)
		}
		w.buf = strconv.AppendInt(w.buf, int64(d), 10)
	}
	w.buf = append(w.buf, "]]"...)
	return w.buf, nil
}

// jsonWriter appends JSON as Python's json.JSONEncoder writes it; the
// first error stops it.
type jsonWriter struct {
	c   *json2Codec
	buf []byte
	err error
}

func (w *jsonWriter) fail(format string, args ...any) {
	if w.err == nil {
		w.err = errConfig(w.c.id, format, args...)
	}
}

// array writes the C-order items of a chunk part of shape as nested lists,
// or the single item when shape is empty.
func (w *jsonWriter) array(items []any, shape []int, depth int) {
	if len(shape) == 0 {
		w.value(items[0], depth)
		return
	}
	w.buf = append(w.buf, '[')
	stride := len(items) / max(shape[0], 1)
	for i := range shape[0] {
		if i > 0 {
			w.buf = append(w.buf, w.c.itemSep...)
		}
		w.array(items[i*stride:(i+1)*stride], shape[1:], depth+1)
	}
	w.buf = append(w.buf, ']')
}

// value writes one item.
func (w *jsonWriter) value(v any, depth int) {
	if w.err != nil {
		return
	}
	if depth > maxJSONDepth {
		w.fail("items nested deeper than %d (a circular reference?)", maxJSONDepth)
		return
	}
	switch x := v.(type) {
	case nil:
		w.buf = append(w.buf, "null"...)
	case bool:
		w.buf = strconv.AppendBool(w.buf, x)
	case string:
		w.str(x)
	case int:
		w.buf = strconv.AppendInt(w.buf, int64(x), 10)
	case int8:
		w.buf = strconv.AppendInt(w.buf, int64(x), 10)
	case int16:
		w.buf = strconv.AppendInt(w.buf, int64(x), 10)
	case int32:
		w.buf = strconv.AppendInt(w.buf, int64(x), 10)
	case int64:
		w.buf = strconv.AppendInt(w.buf, x, 10)
	case uint:
		w.buf = strconv.AppendUint(w.buf, uint64(x), 10)
	case uint8:
		w.buf = strconv.AppendUint(w.buf, uint64(x), 10)
	case uint16:
		w.buf = strconv.AppendUint(w.buf, uint64(x), 10)
	case uint32:
		w.buf = strconv.AppendUint(w.buf, uint64(x), 10)
	case uint64:
		w.buf = strconv.AppendUint(w.buf, x, 10)
	case float32:
		w.float(float64(x))
	case float64:
		w.float(x)
	case json.Number:
		w.number(x)
	case []any:
		w.buf = append(w.buf, '[')
		for i, e := range x {
			if i > 0 {
				w.buf = append(w.buf, w.c.itemSep...)
			}
			w.value(e, depth+1)
		}
		w.buf = append(w.buf, ']')
	case map[string]any:
		w.object(x, depth)
	default:
		w.fail("cannot write a %T as JSON", v)
	}
}

func (w *jsonWriter) object(m map[string]any, depth int) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	// Go orders valid UTF-8 strings by code point, as Python sorts str.
	slices.Sort(keys)
	w.buf = append(w.buf, '{')
	for i, k := range keys {
		if i > 0 {
			w.buf = append(w.buf, w.c.itemSep...)
		}
		w.str(k)
		w.buf = append(w.buf, w.c.keySep...)
		w.value(m[k], depth+1)
	}
	w.buf = append(w.buf, '}')
}

// number writes a json.Number as Python writes the value json.loads gives
// for it: integers exactly (Python's are unbounded), everything else as a
// float.
func (w *jsonWriter) number(n json.Number) {
	s := string(n)
	switch s {
	case "NaN":
		w.float(math.NaN())
		return
	case "Infinity":
		w.float(math.Inf(1))
		return
	case "-Infinity":
		w.float(math.Inf(-1))
		return
	}
	if !validNumber(s) {
		w.fail("json.Number %q is not a JSON number", s)
		return
	}
	if !strings.ContainsAny(s, ".eE") {
		if strings.TrimLeft(s, "-0") == "" {
			s = "0" // -0 is the int 0 in Python
		}
		w.buf = append(w.buf, s...)
		return
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !math.IsInf(f, 0) {
		w.fail("json.Number %q: %v", s, err)
		return
	}
	w.float(f) // out of range: ±Inf, as Python's float() gives
}

// validNumber reports whether s is a number in strict JSON syntax.
func validNumber(s string) bool {
	p := jsonParser{src: []byte(s)}
	_, err := p.number()
	return err == nil && p.pos == len(s)
}

// float writes f as Python's float.__repr__ does (shortest round-trip
// digits; exponent form below 1e-4 and from 1e16), with allow_nan's tokens.
func (w *jsonWriter) float(f float64) {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		if !w.c.allowNaN {
			w.fail("%v is out of range for JSON with allow_nan false", f)
			return
		}
		switch {
		case math.IsNaN(f):
			w.buf = append(w.buf, "NaN"...)
		case f > 0:
			w.buf = append(w.buf, "Infinity"...)
		default:
			w.buf = append(w.buf, "-Infinity"...)
		}
		return
	}
	w.buf = pyfloat.Append(w.buf, f, 64)
}

// str writes a quoted string with Python's escapes: \" \\ \b \f \n \r
// \t, other control characters as \u00XX, and under ensure_ascii every
// character from 0x7f up as \uXXXX (surrogate pairs above the BMP),
// lowercase hex.
func (w *jsonWriter) str(s string) {
	if !utf8.ValidString(s) {
		w.fail("string %q is not valid UTF-8", s)
		return
	}
	const hex = "0123456789abcdef"
	u := func(r rune) {
		w.buf = append(w.buf, '\\', 'u', hex[r>>12&15], hex[r>>8&15], hex[r>>4&15], hex[r&15])
	}
	w.buf = append(w.buf, '"')
	for _, r := range s {
		switch {
		case r == '"':
			w.buf = append(w.buf, '\\', '"')
		case r == '\\':
			w.buf = append(w.buf, '\\', '\\')
		case r == '\b':
			w.buf = append(w.buf, '\\', 'b')
		case r == '\f':
			w.buf = append(w.buf, '\\', 'f')
		case r == '\n':
			w.buf = append(w.buf, '\\', 'n')
		case r == '\r':
			w.buf = append(w.buf, '\\', 'r')
		case r == '\t':
			w.buf = append(w.buf, '\\', 't')
		case r < 0x20:
			u(r)
		case r < 0x7f || !w.c.ensureASCII:
			w.buf = utf8.AppendRune(w.buf, r)
		case r > 0xffff:
			r -= 0x10000
			u(0xd800 | r>>10)
			u(0xdc00 | r&0x3ff)
		default:
			u(r)
		}
	}
	w.buf = append(w.buf, '"')
}
