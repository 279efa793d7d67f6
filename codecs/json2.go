package codecs

import (
	"encoding/json"
	"strconv"
)

// jsonCodec decodes numcodecs "json2", a JSON array of the items (nested
// lists for N-d chunks) followed by the dtype string and the shape, and its
// predecessor "json", which has no shape (nesting is then read as numpy
// would: lists nested to equal lengths are dimensions). Items are the JSON
// values of the parser: strings, json.Number for every number (exact, and
// NaN, Infinity and -Infinity included, all readable with Float64), bools,
// nil, []any and map[string]any (LINDI _REFERENCE objects, compound rows).
type jsonCodec struct {
	id       string
	hasShape bool
}

func newJSON([]byte) (ObjectCodec, error) { return &jsonCodec{id: "json", hasShape: false}, nil }

func (c *jsonCodec) DecodeObjects(src []byte, n int) ([]any, error) {
	v, err := parseJSON(c.id, src)
	if err != nil {
		return nil, err
	}
	top, ok := v.([]any)
	trailer := 1
	if c.hasShape {
		trailer = 2
	}
	if !ok || len(top) < trailer {
		return nil, errCorrupt(c.id, "not an array of items followed by the dtype")
	}
	if _, ok := top[len(top)-trailer].(string); !ok {
		return nil, errCorrupt(c.id, "dtype is not a string")
	}
	items := top[:len(top)-trailer]
	if !c.hasShape {
		items = flattenRectangular(items, n)
	} else {
		shape, err := c.shape(top[len(top)-1])
		if err != nil {
			return nil, err
		}
		if items, err = c.flatten(items, shape); err != nil {
			return nil, err
		}
	}
	if n >= 0 && len(items) != n {
		return nil, errCorrupt(c.id, "%d items, want %d", len(items), n)
	}
	return items, nil
}

// shape reads the trailing shape list.
func (c *jsonCodec) shape(v any) ([]int, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, errCorrupt(c.id, "shape is not a list")
	}
	shape := make([]int, len(list))
	for i, d := range list {
		num, ok := d.(json.Number)
		if !ok {
			return nil, errCorrupt(c.id, "shape has a non-number %v", d)
		}
		k, err := strconv.ParseInt(string(num), 10, 32)
		if err != nil || k < 0 {
			return nil, errCorrupt(c.id, "bad shape extent %s", num)
		}
		shape[i] = int(k)
	}
	return shape, nil
}

// flatten turns items nested to match shape into a flat C-order list.
func (c *jsonCodec) flatten(items []any, shape []int) ([]any, error) {
	if len(shape) == 0 { // 0-d: numcodecs writes the one value as a list
		if len(items) != 1 {
			return nil, errCorrupt(c.id, "%d items for a 0-d shape", len(items))
		}
		return items, nil
	}
	if len(items) != shape[0] {
		return nil, errCorrupt(c.id, "%d items along axis 0, shape says %d", len(items), shape[0])
	}
	if len(shape) == 1 {
		return items, nil
	}
	var out []any
	for _, it := range items {
		sub, ok := it.([]any)
		if !ok {
			return nil, errCorrupt(c.id, "item is not a list though the shape has more axes")
		}
		flat, err := c.flatten(sub, shape[1:])
		if err != nil {
			return nil, err
		}
		out = append(out, flat...)
	}
	if out == nil {
		out = []any{}
	}
	return out, nil
}

// flattenRectangular descends into lists while every element of the current
// level is a list of one common length, as numpy infers dimensions, stopping
// early once the count matches n (when n is known).
func flattenRectangular(items []any, n int) []any {
	for n < 0 || len(items) != n {
		width := -1
		for _, it := range items {
			sub, ok := it.([]any)
			if !ok || (width >= 0 && len(sub) != width) {
				return items
			}
			width = len(sub)
		}
		if width <= 0 {
			return items
		}
		next := make([]any, 0, len(items)*width)
		for _, it := range items {
			next = append(next, it.([]any)...)
		}
		items = next
	}
	return items
}
