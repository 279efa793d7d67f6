package npy

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// DescrJSON converts an Array's Descr to the JSON form Zarr uses for the
// same dtype: "<i2" becomes the JSON string "<i2", and a structured list
// [('a', '<i4'), ('b', '<f8', (2,))] becomes [["a","<i4"],["b","<f8",[2]]].
// It checks the descr as Read does, so object dtypes fail with ErrObject.
func DescrJSON(descr string) ([]byte, error) {
	lit, _, err := checkDescr(descr)
	if err != nil {
		return nil, err
	}
	v, err := parsePy(lit)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(pyToJSON(v)); err != nil {
		return nil, fmt.Errorf("%w: descr %q: %v", ErrHeader, descr, err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// pyToJSON maps the literal subset of a descr onto JSON values: tuples
// and lists become arrays. Dicts and booleans cannot occur in a descr that
// checkDescr accepted.
func pyToJSON(v pyValue) any {
	switch v.kind {
	case pyStr:
		return v.str
	case pyInt:
		return v.num
	case pyTuple, pyList:
		items := make([]any, len(v.items))
		for i, it := range v.items {
			items[i] = pyToJSON(it)
		}
		return items
	}
	return nil
}
