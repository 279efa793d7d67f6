package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/nwb"
	"github.com/lindigo/lindi/zarrmeta"
)

// appendPyJSON appends a table cell as Python's json module writes the same
// value (json.dumps with separators (",", ":") and ensure_ascii off): floats
// as repr writes them, non-finite ones as the bare tokens NaN, Infinity and
// -Infinity, references as the target's path, compound elements as objects
// keyed by field in field order.
func appendPyJSON(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case uint64:
		return strconv.AppendUint(b, x, 10), nil
	case float64:
		return append(b, pyFloat(x)...), nil
	case string:
		return appendJSONString(b, x), nil
	case h5.Reference:
		return appendJSONString(b, x.Path), nil
	case []nwb.Field:
		b = append(b, '{')
		for i, f := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, f.Name)
			b = append(b, ':')
			var err error
			if b, err = appendPyJSON(b, f.Value); err != nil {
				return nil, err
			}
		}
		return append(b, '}'), nil
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendPyJSON(b, e); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	}
	return nil, fmt.Errorf("cannot write a %T as JSON", v)
}

// appendJSONString appends s as a JSON string, without escaping HTML
// characters or non-ASCII text (as json.dumps with ensure_ascii off).
func appendJSONString(b []byte, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

// pyFloat formats x as Python's repr: the shortest digits that read back as
// x, in positional notation for exponents from -4 to 15 (with ".0" when
// integral) and in scientific notation otherwise.
func pyFloat(x float64) string {
	if s := zarrmeta.NonFiniteName(x); s != "" {
		return s
	}
	e := strconv.FormatFloat(x, 'e', -1, 64) // d.ddde±XX, as Python writes exponents
	mant, exp, _ := strings.Cut(e, "e")
	n, _ := strconv.Atoi(exp)
	if n < -4 || n >= 16 {
		return mant + "e" + exp
	}
	s := strconv.FormatFloat(x, 'f', -1, 64)
	if !strings.ContainsAny(s, ".") {
		s += ".0"
	}
	return s
}

// cellText is a cell as text in a CSV field: scalars as JSON would write
// them but strings and references bare; lists and compound elements as
// compact JSON.
func cellText(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case h5.Reference:
		return x.Path, nil
	}
	b, err := appendPyJSON(nil, v)
	return string(b), err
}
