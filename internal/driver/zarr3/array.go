package zarr3

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/lindigo/lindi/codecs"
	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/internal/engine"
	"github.com/lindigo/lindi/io/source"
	"github.com/lindigo/lindi/store"
	"github.com/lindigo/lindi/zarrmeta"
)

// chain is a codec chain as the engine reads it.
type chain struct {
	order     zarrmeta.ByteOrder // the bytes codec's endian
	object    bool               // vlen-utf8: the chunks decode to strings
	transpose []int              // the array→array permutation; nil for none
	bytes     [][]byte           // bytes→bytes codecs as numcodecs configurations
	shard     *shardSpec         // set when the array→bytes codec is sharding_indexed
	ids       []string           // the codecs' names, in chain order
}

// parseChain interprets a codec chain for chunks of ndim dimensions.
// depth counts the sharding codecs it is nested in.
func parseChain(cs []zarrmeta.V3Codec, ndim int, depth int) (*chain, error) {
	c := &chain{order: zarrmeta.LittleEndian}
	stage := 0 // 0: array→array, 1: bytes→bytes
	for _, cd := range cs {
		c.ids = append(c.ids, cd.Name)
		cfg := cd.Configuration
		switch {
		case stage == 0 && cd.Name == "transpose":
			order, err := zarrmeta.Ints(cfg["order"], "transpose order")
			if err != nil {
				return nil, err
			}
			if len(order) != ndim {
				return nil, fmt.Errorf("%w: transpose order %v for %d dimensions", zarrmeta.ErrV3, order, ndim)
			}
			if c.transpose == nil {
				c.transpose = order
			} else {
				// Stored axis j of the second is axis order[j] of the first.
				comp := make([]int, ndim)
				for j, a := range order {
					if a >= ndim {
						return nil, fmt.Errorf("%w: transpose order %v", zarrmeta.ErrV3, order)
					}
					comp[j] = c.transpose[a]
				}
				c.transpose = comp
			}
		case stage == 0 && cd.Name == "bytes":
			switch e := cfg["endian"]; e {
			case nil, "little":
			case "big":
				c.order = zarrmeta.BigEndian
			default:
				return nil, fmt.Errorf("%w: bytes codec endian %v", zarrmeta.ErrV3, e)
			}
			stage = 1
		case stage == 0 && cd.Name == "vlen-utf8":
			c.object = true
			stage = 1
		case stage == 0 && cd.Name == "sharding_indexed":
			if depth >= maxShardLevels {
				return nil, fmt.Errorf("%w: sharding_indexed nested more than %d deep", zarrmeta.ErrV3, maxShardLevels)
			}
			s, err := parseShard(cfg, ndim, depth+1)
			if err != nil {
				return nil, err
			}
			c.shard = s
			stage = 1
		case stage == 1 && c.shard != nil:
			return nil, fmt.Errorf("%w: codec %q after sharding_indexed is not supported", codecs.ErrUnknownCodec, cd.Name)
		case stage == 0:
			if _, err := codecs.V3Config(cd.Name, cfg); err != nil {
				return nil, err
			}
			return nil, fmt.Errorf("%w: bytes→bytes codec %q before the array→bytes codec (bytes, vlen-utf8 or sharding_indexed)", zarrmeta.ErrV3, cd.Name)
		default:
			b, err := codecs.V3Config(cd.Name, cfg)
			if err != nil {
				return nil, err
			}
			c.bytes = append(c.bytes, b)
		}
	}
	if stage == 0 {
		return nil, fmt.Errorf("%w: codec chain %v has no array→bytes codec (bytes, vlen-utf8 or sharding_indexed)", zarrmeta.ErrV3, c.ids)
	}
	if c.shard != nil && c.transpose != nil {
		return nil, fmt.Errorf("%w: transpose before sharding_indexed is not supported", codecs.ErrUnknownCodec)
	}
	return c, nil
}

// pipeline builds the chain's decoding pipeline for chunks of shape chunk.
func (c *chain) pipeline(reg *codecs.Registry, chunk []int, itemSize int) (*codecs.Pipeline, error) {
	var object []byte
	if c.object {
		object = []byte(`{"id":"vlen-utf8"}`)
	}
	var post codecs.Codec
	if c.transpose != nil && !identity(c.transpose) {
		var err error
		if post, err = codecs.Transpose(chunk, c.transpose, itemSize); err != nil {
			return nil, err
		}
	}
	return reg.Zarr3Pipeline(object, c.bytes, post, "transpose")
}

func identity(p []int) bool {
	for i, a := range p {
		if a != i {
			return false
		}
	}
	return true
}

// maxShardLevels bounds the nesting of sharding_indexed codecs.
const maxShardLevels = 8

// maxIndexEntries bounds the inner chunks of a shard, and so the size of
// its index (16 bytes an entry: 256 MiB).
const maxIndexEntries = 1 << 24

// dataset builds the dataset of an array node at key. An array this package
// cannot read (an unknown codec, say) is a dataset whose Err says why; the
// rest of the store reads.
func (t *tree) dataset(key, path string, n *zarrmeta.V3Node) *driver.Dataset {
	a := n.Array
	d := &driver.Dataset{Attrs: attrs(n.Attributes), Shape: slices.Clone(a.Shape), Chunks: slices.Clone(a.ChunkShape), Scalar: len(a.Shape) == 0}
	fail := func(err error) *driver.Dataset {
		d.Err = fmt.Errorf("%s: %w", path, err)
		return d
	}
	c, err := parseChain(a.Codecs, len(a.Shape), 0)
	if err != nil {
		return fail(err)
	}
	d.Codecs = c.ids
	inner, readChunks := c, a.ChunkShape
	var specs []*shardSpec
	for inner.shard != nil {
		s := inner.shard
		for i := range s.chunks {
			if readChunks[i]%s.chunks[i] != 0 {
				return fail(fmt.Errorf("%w: shard shape %v is not a multiple of the inner chunk shape %v", zarrmeta.ErrV3, readChunks, s.chunks))
			}
		}
		entries := 1
		for i := range s.chunks {
			if entries *= readChunks[i] / s.chunks[i]; entries > maxIndexEntries {
				return fail(fmt.Errorf("%w: shards of %v inner chunks of %v: more than %d a shard", zarrmeta.ErrV3, readChunks, s.chunks, maxIndexEntries))
			}
		}
		if len(specs) >= maxShardLevels {
			return fail(fmt.Errorf("%w: sharding nested more than %d deep", zarrmeta.ErrV3, maxShardLevels))
		}
		specs = append(specs, s)
		inner, readChunks = s.inner, s.chunks
		d.Codecs = append(d.Codecs, inner.ids...)
	}
	if specs != nil {
		d.Chunks = slices.Clone(readChunks)
	}
	dt, err := zarrmeta.V3DType(a.DataType, inner.order)
	if err != nil {
		return fail(err)
	}
	if (dt.Kind == zarrmeta.KindObject) != inner.object {
		return fail(fmt.Errorf("%w: data type %s with codecs %v", zarrmeta.ErrV3, dt, inner.ids))
	}
	fill, err := zarrmeta.V3Fill(a.FillValue, dt)
	if err != nil {
		return fail(err)
	}
	d.DType, d.Fill = dt, fill
	// _DTYPE names the numpy type the array was written from ("float64",
	// "str"); only "object_reference" changes how it reads.
	var items driver.Items
	switch tag := n.Attributes[attrDType]; {
	case tag == refDType:
		if dt.Kind != zarrmeta.KindObject {
			return fail(fmt.Errorf("%w: %s %q on a %s array", driver.ErrFormat, attrDType, refDType, dt))
		}
		d.Ref, items = driver.ObjectRefs, refItems{}
	case dt.Kind == zarrmeta.KindObject:
		d.Strings = &driver.StringInfo{Encoding: "utf-8"}
	case dt.Kind == zarrmeta.KindStruct:
		if d.DType, items, err = refFields(n.Attributes, dt); err != nil {
			return fail(err)
		}
		if items != nil {
			// The fill in the shown layout: a null reference for each
			// reference field.
			b := make([]byte, d.DType.Size)
			for i, f := range d.DType.Fields {
				if f.DType.Kind != zarrmeta.KindReference {
					sf := dt.Fields[i]
					copy(b[f.Offset:f.Offset+f.DType.Size], fill.Bytes[sf.Offset:])
				}
			}
			d.Fill = zarrmeta.Fill{Bytes: b}
		}
	}
	pipe, err := inner.pipeline(t.env.Codecs, readChunks, dt.Size)
	if err != nil {
		return fail(err)
	}
	if v, ok := n.Attributes[attrExternal]; ok {
		link, err := zarrmeta.ParseExternalArrayLink(v)
		if err != nil {
			return fail(fmt.Errorf("%w: %w", driver.ErrFormat, err))
		}
		d.Storage = driver.NewArrayLink(t.env, link, path, t.resolve)
		return d
	}
	shape, chunks := a.Shape, readChunks
	zeroD := len(a.Shape) == 0
	if zeroD {
		shape, chunks = []int{1}, []int{1}
	}
	if marker, _ := n.Attributes[attrScalar].(bool); marker && !zeroD {
		// LINDI's scalar, kept by the unified convention: a one-element
		// array marked _SCALAR is an HDF5 scalar.
		if len(a.Shape) != 1 || a.Shape[0] != 1 {
			return fail(fmt.Errorf("%w: %s array of shape %v", driver.ErrFormat, attrScalar, a.Shape))
		}
		d.Scalar, d.Shape = true, []int{}
	}
	if d.Scalar {
		d.Chunks = []int{}
	}
	keys := chunkKeys{prefix: key, sep: a.Separator, v2: a.KeyEncoding == "v2", scalar: zeroD}
	var loc engine.Locator = &driver.KeyLocator{
		Env: t.env, Store: t.st, Key: keys.key, Local: t.dir, Refs: t.refs != nil,
		Expect: int64(dt.Size) * int64(product(readChunks)),
	}
	index, indexed := store.ChunkIndexRef{}, false
	if t.refs != nil {
		index, indexed = t.refs.ChunkIndexes()[key]
	}
	switch {
	case indexed && c.shard != nil:
		return fail(fmt.Errorf("%w: a chunk index (%s) on a sharded array", driver.ErrFormat, index.Index))
	case indexed:
		loc = newIndexLocator(t, keys, index, shape, chunks, path)
	case c.shard != nil:
		loc = newShardLocator(t, keys, specs, a.ChunkShape, path)
	}
	d.Storage = &driver.Fixed{Array: &engine.Chunked{
		Shape: shape, Chunks: chunks, ItemSize: dt.Size, Fill: fill.Bytes, FillObject: fill.Object,
		Pipeline: pipe, Objects: dt.Kind == zarrmeta.KindObject, Locator: loc, Name: path,
		// A reference document may end a chunk early, as LINDI does: the
		// last slab of a contiguous HDF5 dataset, zero-padded.
		PadShort: t.refs != nil,
	}, Items: items}
	return d
}

// chunkKeys names the chunks (or shards) of an array.
type chunkKeys struct {
	prefix string // the array's key
	sep    string
	v2     bool
	scalar bool
}

// key returns the store key of the chunk at coords.
func (k chunkKeys) key(coords []int) string {
	var b strings.Builder
	if k.prefix != "" {
		b.WriteString(k.prefix)
		b.WriteByte('/')
	}
	switch {
	case k.v2 && k.scalar:
		b.WriteByte('0')
	case k.v2:
		for i, c := range coords {
			if i > 0 {
				b.WriteString(k.sep)
			}
			b.WriteString(strconv.Itoa(c))
		}
	default:
		b.WriteByte('c')
		if !k.scalar {
			for _, c := range coords {
				b.WriteString(k.sep)
				b.WriteString(strconv.Itoa(c))
			}
		}
	}
	return b.String()
}

// object opens the object at key with its size; a nil source for an object
// that does not exist. Unless withSize is set, a remote object is opened
// without learning its size (-1), which costs a request of its own: its
// absence then shows when it is read.
func (t *tree) object(ctx context.Context, key string, withSize bool) (source.Source, int64, error) {
	if t.refs != nil {
		return t.refObject(ctx, key)
	}
	v, err := t.st.Get(ctx, key)
	if errors.Is(err, store.ErrNotFound) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	if t.dir {
		return t.env.Pool.PerRead(v.URL), v.Len, nil
	}
	src, err := t.env.Pool.Open(ctx, v.URL)
	if err != nil {
		return nil, 0, err
	}
	if !withSize {
		return src, -1, nil
	}
	size, err := src.Size(ctx)
	if driver.NotFound(err) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	return src, size, nil
}

// product is the number of elements of a shape.
func product(shape []int) int {
	n := 1
	for _, x := range shape {
		n *= x
	}
	return n
}
