package zarr

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/zarrmeta"
)

// userAttrs converts the user attributes of a .zattrs document.
func userAttrs(za zarrmeta.Attrs) (map[string]any, error) {
	vals := make(map[string]any, za.Len())
	for _, name := range za.Names() {
		v, _ := za.Get(name)
		x, err := fromJSON(v)
		if err != nil {
			return nil, fmt.Errorf("attribute %q: %w", name, err)
		}
		vals[name] = x
	}
	return vals, nil
}

// jsonItems turns the decoded JSON items of an object array into Go values
// and, for LINDI's _COMPOUND_DTYPE rows of fixed-size fields (rows set),
// packs them into elements of dtype.
type jsonItems struct {
	rows  bool
	dtype zarrmeta.DType
}

func (it jsonItems) Items(_ context.Context, _ []byte, objs []any) ([]any, []byte, error) {
	for i, v := range objs {
		x, err := fromJSON(v)
		if err != nil {
			return nil, nil, fmt.Errorf("element %d: %w", i, err)
		}
		objs[i] = x
	}
	if !it.rows || !it.dtype.Fixed() {
		return objs, nil, nil
	}
	size := it.dtype.Size
	data := make([]byte, len(objs)*size)
	for i, row := range objs {
		if err := packRow(data[i*size:(i+1)*size], it.dtype, row); err != nil {
			return nil, nil, fmt.Errorf("row %d: %w", i, err)
		}
	}
	return nil, data, nil
}

// fromJSON turns decoded JSON into the documented values: LINDI's
// {"_REFERENCE": …} objects into Refs and json.Numbers into int64, uint64 or
// float64, recursively.
func fromJSON(v any) (any, error) {
	if n, ok := v.(json.Number); ok {
		return number(n)
	}
	r, ok, err := zarrmeta.AsReference(v)
	if err != nil {
		return nil, err
	}
	if ok {
		return driver.Ref{Path: r.Path}, nil
	}
	if list, ok := v.([]any); ok {
		for i := range list {
			if list[i], err = fromJSON(list[i]); err != nil {
				return nil, err
			}
		}
	}
	return v, nil
}

// number converts a JSON number: int64 or uint64 for an integer literal in
// range, float64 otherwise.
func number(n json.Number) (any, error) {
	s := n.String()
	if !strings.ContainsAny(s, ".eE") {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i, nil
		}
		if u, err := strconv.ParseUint(s, 10, 64); err == nil {
			return u, nil
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return nil, fmt.Errorf("%w: number %q: %v", driver.ErrFormat, s, err)
	}
	return f, nil
}
