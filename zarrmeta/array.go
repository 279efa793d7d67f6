package zarrmeta

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// maxRank bounds the number of dimensions of an array.
const maxRank = 64

// ArrayMeta is the metadata of a Zarr v2 array, from its .zarray document.
type ArrayMeta struct {
	// Shape is the array shape; empty for a zero-dimensional array.
	Shape []int
	// Chunks is the chunk shape, of the same rank as Shape, every entry
	// at least 1.
	Chunks []int
	// DType is the item type.
	DType DType
	// Compressor is the compressor's JSON configuration, nil for none.
	Compressor json.RawMessage
	// Filters holds the JSON configuration of each filter, in the order
	// they were applied when writing (decode in reverse). It is nil when
	// filters is null or [].
	Filters [][]byte
	// Fill is the decoded fill_value.
	Fill Fill
	// FillValue is fill_value as it appeared in the document (null when
	// absent).
	FillValue json.RawMessage
	// Order is 'C' (row-major) or 'F' (column-major) layout within a chunk.
	Order byte
	// Separator joins chunk coordinates in chunk keys: "." or "/".
	Separator string
	// NamedType is the path of the HDF5 committed datatype the items are
	// (h5py: the dataset's type is committed()), from this module's
	// ArrayNamedType key; "" when absent.
	NamedType string
}

// ArrayNamedType is the .zarray key lindi index writes for a dataset whose
// type is an HDF5 committed datatype: the datatype's path. It sits in
// .zarray, not .zattrs, so that Python lindi, which shows every
// .zattrs key it does not know as a user attribute, reads the dataset as
// before; Zarr readers ignore keys they do not know, as the Zarr v2 spec
// asks.
const ArrayNamedType = "_NAMED_TYPE"

// zarray mirrors the JSON document; pointers tell absent from null.
type zarray struct {
	ZarrFormat *int            `json:"zarr_format"`
	Shape      *[]int64        `json:"shape"`
	Chunks     *[]int64        `json:"chunks"`
	DType      json.RawMessage `json:"dtype"`
	Compressor json.RawMessage `json:"compressor"`
	Filters    json.RawMessage `json:"filters"`
	FillValue  json.RawMessage `json:"fill_value"`
	Order      *string         `json:"order"`
	Separator  *string         `json:"dimension_separator"`
	NamedType  json.RawMessage `json:"_NAMED_TYPE"`
}

// ParseArray parses and validates a .zarray document. zarr_format must be
// 2; shape, chunks and dtype are required; compressor, filters and
// fill_value default to null, order to "C" and dimension_separator to ".".
// Bare NaN and Infinity tokens are read as the strings "NaN" and
// "Infinity". It refuses chunk ranks that differ from the shape's, chunk
// sizes below 1, and sizes whose byte counts overflow.
func ParseArray(b []byte) (*ArrayMeta, error) {
	var z zarray
	if err := json.Unmarshal(quoteNonFinite(b), &z); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrArray, err)
	}
	if z.ZarrFormat == nil || *z.ZarrFormat != 2 {
		return nil, fmt.Errorf("%w: zarr_format must be 2", ErrArray)
	}
	a := &ArrayMeta{Order: 'C', Separator: "."}
	var err error
	if a.Shape, a.Chunks, err = parseGrid(z.Shape, z.Chunks); err != nil {
		return nil, err
	}
	if isNull(z.DType) {
		return nil, fmt.Errorf("%w: dtype is missing", ErrArray)
	}
	if a.DType, err = ParseDType(z.DType); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrArray, err)
	}
	if err := checkBytes(a.Shape, a.DType.Size, "shape"); err != nil {
		return nil, err
	}
	if err := checkBytes(a.Chunks, a.DType.Size, "chunks"); err != nil {
		return nil, err
	}
	if a.Compressor, err = parseCodec(z.Compressor, "compressor"); err != nil {
		return nil, err
	}
	if a.Filters, err = parseFilters(z.Filters); err != nil {
		return nil, err
	}
	a.FillValue = json.RawMessage("null")
	if !isNull(z.FillValue) {
		a.FillValue = bytes.Clone(z.FillValue)
	}
	if a.Fill, err = ParseFill(a.FillValue, a.DType); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrArray, err)
	}
	if z.Order != nil {
		if *z.Order != "C" && *z.Order != "F" {
			return nil, fmt.Errorf("%w: order %q is not \"C\" or \"F\"", ErrArray, *z.Order)
		}
		a.Order = (*z.Order)[0]
	}
	if z.Separator != nil {
		if *z.Separator != "." && *z.Separator != "/" {
			return nil, fmt.Errorf("%w: dimension_separator %q is not \".\" or \"/\"", ErrArray, *z.Separator)
		}
		a.Separator = *z.Separator
	}
	if !isNull(z.NamedType) {
		if err := json.Unmarshal(z.NamedType, &a.NamedType); err != nil || a.NamedType == "" {
			return nil, fmt.Errorf("%w: %s %s is not a path", ErrArray, ArrayNamedType, z.NamedType)
		}
	}
	return a, nil
}

func isNull(raw json.RawMessage) bool {
	return len(raw) == 0 || string(bytes.TrimSpace(raw)) == "null"
}

// parseGrid validates shape and chunks.
func parseGrid(shape, chunks *[]int64) ([]int, []int, error) {
	if shape == nil || chunks == nil {
		return nil, nil, fmt.Errorf("%w: shape and chunks are required", ErrArray)
	}
	if len(*shape) != len(*chunks) {
		return nil, nil, fmt.Errorf("%w: chunks %v has rank %d, shape %v has rank %d", ErrArray, *chunks, len(*chunks), *shape, len(*shape))
	}
	if len(*shape) > maxRank {
		return nil, nil, fmt.Errorf("%w: rank %d exceeds %d", ErrArray, len(*shape), maxRank)
	}
	s := make([]int, len(*shape))
	c := make([]int, len(*chunks))
	for i := range s {
		if (*shape)[i] < 0 || (*shape)[i] > math.MaxInt32*int64(math.MaxInt32) {
			return nil, nil, fmt.Errorf("%w: shape %v has a bad dimension %d", ErrArray, *shape, (*shape)[i])
		}
		if (*chunks)[i] < 1 || (*chunks)[i] > math.MaxInt32*int64(math.MaxInt32) {
			return nil, nil, fmt.Errorf("%w: chunks %v has a bad chunk size %d", ErrArray, *chunks, (*chunks)[i])
		}
		s[i], c[i] = int((*shape)[i]), int((*chunks)[i])
	}
	return s, c, nil
}

// checkBytes refuses a shape whose byte count overflows an int64.
func checkBytes(dims []int, size int, what string) error {
	n := int64(size)
	for _, d := range dims {
		if d != 0 && n > math.MaxInt64/int64(d) {
			return fmt.Errorf("%w: %s %v of %d-byte items overflows", ErrArray, what, dims, size)
		}
		n *= int64(d)
	}
	return nil
}

// parseCodec checks that raw is null or an object with a string "id".
func parseCodec(raw json.RawMessage, what string) (json.RawMessage, error) {
	if isNull(raw) {
		return nil, nil
	}
	var c struct {
		ID *string `json:"id"`
	}
	if err := json.Unmarshal(raw, &c); err != nil || c.ID == nil || *c.ID == "" {
		return nil, fmt.Errorf("%w: %s %s is not an object with an \"id\"", ErrArray, what, clip(raw))
	}
	return bytes.Clone(raw), nil
}

func parseFilters(raw json.RawMessage) ([][]byte, error) {
	if isNull(raw) {
		return nil, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, fmt.Errorf("%w: filters %s is not a list", ErrArray, clip(raw))
	}
	if len(list) == 0 {
		return nil, nil
	}
	out := make([][]byte, len(list))
	for i, f := range list {
		c, err := parseCodec(f, "filter "+strconv.Itoa(i))
		if err != nil {
			return nil, err
		}
		if c == nil {
			return nil, fmt.Errorf("%w: filter %d is null", ErrArray, i)
		}
		out[i] = c
	}
	return out, nil
}

func clip(raw []byte) string {
	if len(raw) > 80 {
		return string(raw[:77]) + "..."
	}
	return string(raw)
}

// Raw reports whether chunks are stored as plain item bytes: no compressor
// and no filters. Only then may a short chunk (LINDI's split contiguous
// datasets) be zero-padded to full size, or a part of a chunk be read by
// byte range.
func (a *ArrayMeta) Raw() bool {
	return a.Compressor == nil && len(a.Filters) == 0
}

// Grid returns the number of chunks along each dimension: the ceiling of
// shape over chunks (0 along an empty dimension).
func (a *ArrayMeta) Grid() []int {
	g := make([]int, len(a.Shape))
	for i, n := range a.Shape {
		g[i] = (n + a.Chunks[i] - 1) / a.Chunks[i]
	}
	return g
}

// ChunkKey returns the store key of the chunk at grid coordinates coords,
// relative to the array: "0.3.1" or "0/3/1" depending on Separator, and
// "0" for a zero-dimensional array. It does not check coords.
func (a *ArrayMeta) ChunkKey(coords []int) string {
	if len(coords) == 0 {
		return "0"
	}
	var b strings.Builder
	for i, c := range coords {
		if i > 0 {
			b.WriteString(a.Separator)
		}
		b.WriteString(strconv.Itoa(c))
	}
	return b.String()
}

// ChunkItems returns the number of items in one (full-size) chunk.
func (a *ArrayMeta) ChunkItems() int {
	n := 1
	for _, c := range a.Chunks {
		n *= c
	}
	return n
}

// ChunkBytes returns the size in bytes of one decoded, full-size chunk.
// For object dtypes this counts 8 bytes per item, as numpy does.
func (a *ArrayMeta) ChunkBytes() int {
	return a.ChunkItems() * a.DType.Size
}

// Items returns the number of items in the array.
func (a *ArrayMeta) Items() int {
	n := 1
	for _, s := range a.Shape {
		n *= s
	}
	return n
}
