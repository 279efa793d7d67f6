package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/nwb"
)

// appendPyJSON appends a table cell as Python's json module writes the same
// value (json.dumps with separators (",", ":") and ensure_ascii off), but
// valid JSON: floats as repr writes them, non-finite ones as the strings
// "NaN", "Infinity" and "-Infinity" (see jsonFloat), references as the
// target's path, compound elements as objects keyed by field in field order.
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
		return append(b, jsonFloat(x, 64)...), nil
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

// cellText is a cell as text in a CSV field: scalars as JSON would write
// them but strings and references bare and floats as text (nan, inf: see
// textFloat); lists and compound elements as compact JSON.
func cellText(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return x, nil
	case float64:
		return textFloat(x, 64), nil
	case h5.Reference:
		return x.Path, nil
	}
	b, err := appendPyJSON(nil, v)
	return string(b), err
}
