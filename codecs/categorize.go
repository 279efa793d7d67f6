package codecs

import (
	"encoding/binary"
	"fmt"
	"strconv"
)

// categorize undoes numcodecs "categorize": each stored integer (astype) is
// 0 for "no label" or the 1-based index of a label. With a fixed-width text
// dtype ("<U n") it decodes to UTF-32 bytes and is a Codec; with the object
// dtype "|O" it decodes to strings and is an ObjectCodec.
type categorize struct {
	labels []string
	astype numType
}

// categorizeText is the Codec form: labels as UTF-32, width characters each.
type categorizeText struct {
	categorize
	width int
	order binary.ByteOrder
	cells [][]byte // encoded label i+1; the empty label is all zeros
}

// categorizeObjects is the ObjectCodec form.
type categorizeObjects struct {
	categorize
}

// categorizeConfig is the configuration of numcodecs "categorize".
type categorizeConfig struct {
	Labels []string `json:"labels"`
	DType  string   `json:"dtype"`
	AsType string   `json:"astype"`
}

// parseCategorize reads a categorize configuration.
func parseCategorize(config []byte) (categorizeConfig, categorize, error) {
	const id = "categorize"
	var cfg categorizeConfig
	if err := parseConfig(id, config, &cfg); err != nil {
		return cfg, categorize{}, err
	}
	at, err := parseNumType(id, cfg.AsType)
	if err != nil {
		return cfg, categorize{}, err
	}
	if at.isFloat() {
		return cfg, categorize{}, errConfig(id, "astype %s is not an integer type", cfg.AsType)
	}
	return cfg, categorize{labels: cfg.Labels, astype: at}, nil
}

// newCategorizeObjects builds the ObjectCodec form, for dtype "|O"; other
// dtypes are the Codec form (ErrWrongClass).
func newCategorizeObjects(config []byte) (ObjectCodec, error) {
	cfg, base, err := parseCategorize(config)
	if err != nil {
		return nil, err
	}
	if cfg.DType != "|O" {
		return nil, &codecError{id: "categorize", detail: fmt.Sprintf("dtype %q decodes to bytes, not objects", cfg.DType), kind: ErrWrongClass}
	}
	return &categorizeObjects{base}, nil
}

// newCategorizeText builds the Codec form, for a fixed-width text dtype;
// dtype "|O" is the ObjectCodec form (ErrWrongClass).
func newCategorizeText(config []byte) (Codec, error) {
	const id = "categorize"
	cfg, base, err := parseCategorize(config)
	if err != nil {
		return nil, err
	}
	if cfg.DType == "|O" {
		return nil, &codecError{id: id, detail: "dtype \"|O\" decodes to objects", kind: ErrWrongClass}
	}
	if len(cfg.DType) < 3 || cfg.DType[1] != 'U' || (cfg.DType[0] != '<' && cfg.DType[0] != '>' && cfg.DType[0] != '=') {
		return nil, errConfig(id, "dtype %q is neither a text dtype nor |O", cfg.DType)
	}
	width, err := strconv.Atoi(cfg.DType[2:])
	if err != nil || width < 1 || width > 1<<20 {
		return nil, errConfig(id, "bad text dtype %q", cfg.DType)
	}
	c := &categorizeText{categorize: base, width: width, order: binary.LittleEndian}
	if cfg.DType[0] == '>' {
		c.order = binary.BigEndian
	}
	for _, l := range cfg.Labels {
		cell := make([]byte, 4*width)
		k := 0
		for _, r := range l {
			if k == width {
				break // numpy truncates labels longer than the dtype
			}
			c.order.PutUint32(cell[4*k:], uint32(r))
			k++
		}
		c.cells = append(c.cells, cell)
	}
	return c, nil
}

// label returns the 1-based label index stored at element i, or 0.
func (c *categorize) label(src []byte, i int) int {
	v := c.astype.bits(src[i*c.astype.size:])
	if c.astype.kind == 'i' {
		if c.astype.int(src[i*c.astype.size:]) < 0 {
			return 0
		}
	}
	if v > uint64(len(c.labels)) {
		return 0
	}
	return int(v)
}

func (c *categorizeText) Decode(dst, src []byte, limit int) ([]byte, error) {
	const id = "categorize"
	cell := 4 * c.width
	dst, out, n, err := extendElements(id, dst, src, c.astype, cell, limit)
	if err != nil {
		return dst, err
	}
	for i := 0; i < n; i++ {
		o := out[i*cell : (i+1)*cell]
		if l := c.label(src, i); l > 0 {
			copy(o, c.cells[l-1])
		} else {
			clear(o)
		}
	}
	return dst, nil
}

func (c *categorizeText) MaxEncodedLen(n int) int { return n / (4 * c.width) * c.astype.size }

func (c *categorizeObjects) DecodeObjects(src []byte, n int) ([]any, error) {
	const id = "categorize"
	count, err := elementCount(id, src, c.astype)
	if err != nil {
		return nil, err
	}
	if n >= 0 && count != n {
		return nil, errCorrupt(id, "%d items, want %d", count, n)
	}
	items := make([]any, count)
	for i := range items {
		items[i] = ""
		if l := c.label(src, i); l > 0 {
			items[i] = c.labels[l-1]
		}
	}
	return items, nil
}
