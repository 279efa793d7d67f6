// Package h5gen writes HDF5 files shaped like NWB files, for the benchmarks
// and tests of opening remote files lazily: many groups, each with chunked
// gzip data, contiguous and small datasets, attributes of several types and
// object references, with the metadata scattered among the raw data as a
// writer appending objects leaves it.
//
// The files use superblock version 0, version 1 object headers and groups
// holding their links in link messages; this is not a general HDF5 writer.
// NWB is safe for concurrent use (it shares nothing).
package h5gen

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"math"
)

// undefined is HDF5's undefined address.
const undefined = math.MaxUint64

// NWB returns an HDF5 file with series groups under /acquisition, each
// holding "data" (rows × 8 int16, gzip chunks of 100 rows), "timestamps"
// (rows float64, contiguous), "channels" (8 int32, contiguous) and
// "labels" (8 fixed-length strings, compact), with NWB-style attributes;
// each series after the first has a "previous" attribute referring to the
// series before it. series and rows must be positive.
func NWB(series, rows int) ([]byte, error) {
	if series <= 0 || rows <= 0 {
		return nil, fmt.Errorf("h5gen: NWB(%d, %d): want positive sizes", series, rows)
	}
	w := &writer{buf: make([]byte, superblockSize)}
	seed := uint32(5)
	var members []link
	prev := uint64(undefined)
	for i := range series {
		g, err := w.series(i, rows, prev, &seed)
		if err != nil {
			return nil, err
		}
		members = append(members, link{fmt.Sprintf("series_%03d", i), g})
		prev = g
	}
	acq := w.group(members, nil)
	ident := w.dataset(scalarSpace(), stringType(12), compactLayout([]byte("bench-nwb-01")), nil, nil)
	general := w.group([]link{{"session_id", ident}}, []attr{strAttr("description", "session metadata")})
	root := w.group([]link{{"acquisition", acq}, {"general", general}},
		[]attr{strAttr("nwb_version", "2.7.0"), strAttr("neurodata_type", "NWBFile"), strAttr("namespace", "core")})
	w.superblock(root)
	return w.buf, nil
}

// series writes one series group and returns its header address.
func (w *writer) series(i, rows int, prev uint64, seed *uint32) (uint64, error) {
	data, err := w.chunkedInt16(rows, 8, 100, seed)
	if err != nil {
		return 0, err
	}
	ts := make([]byte, 8*rows)
	for r := range rows {
		binary.LittleEndian.PutUint64(ts[8*r:], math.Float64bits(float64(r)/1000))
	}
	tsAddr := w.raw(ts)
	times := w.dataset(simpleSpace(uint64(rows)), float64Type(), contiguousLayout(tsAddr, uint64(len(ts))), nil,
		[]attr{intAttr("interval", 1), strAttr("unit", "seconds")})
	ch := make([]byte, 32)
	for j := range 8 {
		binary.LittleEndian.PutUint32(ch[4*j:], uint32(j))
	}
	chAddr := w.raw(ch)
	channels := w.dataset(simpleSpace(8), intType(4), contiguousLayout(chAddr, 32), nil, nil)
	var labels []byte
	for j := range 8 {
		labels = append(labels, fmt.Sprintf("ch%-2d", j)...)
	}
	lab := w.dataset(simpleSpace(8), stringType(4), compactLayout(labels), nil, nil)
	attrs := []attr{strAttr("neurodata_type", "TimeSeries"), strAttr("namespace", "core"),
		strAttr("description", fmt.Sprintf("series number %d", i)), strAttr("comments", "no comments")}
	if prev != undefined {
		attrs = append(attrs, refAttr("previous", prev))
	}
	return w.group([]link{{"channels", channels}, {"data", data}, {"labels", lab}, {"timestamps", times}}, attrs), nil
}

// chunkedInt16 writes a rows × cols int16 dataset of noisy values in gzip
// chunks of chunkRows rows, indexed by a one-node version 1 B-tree.
func (w *writer) chunkedInt16(rows, cols, chunkRows int, seed *uint32) (uint64, error) {
	nchunks := (rows + chunkRows - 1) / chunkRows
	if nchunks > 64 {
		return 0, fmt.Errorf("h5gen: %d chunks: one B-tree node holds at most 64", nchunks)
	}
	type chunk struct{ addr, size, row uint64 }
	var chunks []chunk
	raw := make([]byte, 2*chunkRows*cols)
	var z bytes.Buffer
	zw, err := zlib.NewWriterLevel(&z, 4)
	if err != nil {
		return 0, err
	}
	for c := range nchunks {
		for k := range chunkRows * cols {
			*seed = *seed*1664525 + 1013904223
			binary.LittleEndian.PutUint16(raw[2*k:], uint16(int16(*seed>>22)-500))
		}
		z.Reset()
		zw.Reset(&z)
		zw.Write(raw)
		if err := zw.Close(); err != nil {
			return 0, err
		}
		chunks = append(chunks, chunk{w.raw(z.Bytes()), uint64(z.Len()), uint64(c * chunkRows)})
	}
	// B-tree node: signature, type 1 (chunks), level 0, entries, siblings,
	// then keys (size, filter mask, offsets of rank+1 dims) and children.
	var node []byte
	node = append(node, "TREE"...)
	node = append(node, 1, 0)
	node = binary.LittleEndian.AppendUint16(node, uint16(len(chunks)))
	node = binary.LittleEndian.AppendUint64(node, undefined)
	node = binary.LittleEndian.AppendUint64(node, undefined)
	key := func(size uint32, row uint64) {
		node = binary.LittleEndian.AppendUint32(node, size)
		node = binary.LittleEndian.AppendUint32(node, 0)
		node = binary.LittleEndian.AppendUint64(node, row)
		node = binary.LittleEndian.AppendUint64(node, 0)
		node = binary.LittleEndian.AppendUint64(node, 0)
	}
	for _, c := range chunks {
		key(uint32(c.size), c.row)
		node = binary.LittleEndian.AppendUint64(node, c.addr)
	}
	key(0, uint64(nchunks*chunkRows))
	btree := w.raw(node)
	layout := []byte{3, 2, 3}
	layout = binary.LittleEndian.AppendUint64(layout, btree)
	for _, d := range []uint32{uint32(chunkRows), uint32(cols), 2} {
		layout = binary.LittleEndian.AppendUint32(layout, d)
	}
	// Filter pipeline version 1: deflate (id 1) at level 4.
	filters := []byte{1, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 4, 0, 0, 0, 0, 0, 0, 0}
	return w.dataset(simpleSpace(uint64(rows), uint64(cols)), intType(2), layout, filters,
		[]attr{strAttr("unit", "volts"), floatAttr("conversion", 1e-6), floatAttr("resolution", -1)}), nil
}

// writer appends objects to a file image.
type writer struct{ buf []byte }

// superblockSize is the size of a version 0 superblock with 8-byte
// addresses and lengths, root symbol table entry included.
const superblockSize = 96

// raw appends b at an 8-byte boundary and returns its address.
func (w *writer) raw(b []byte) uint64 {
	for len(w.buf)%8 != 0 {
		w.buf = append(w.buf, 0)
	}
	addr := uint64(len(w.buf))
	w.buf = append(w.buf, b...)
	return addr
}

// message is an object header message.
type message struct {
	typ  uint16
	body []byte
}

// header appends a version 1 object header and returns its address.
func (w *writer) header(msgs []message) uint64 {
	var body []byte
	for _, m := range msgs {
		b := pad8(m.body)
		body = binary.LittleEndian.AppendUint16(body, m.typ)
		body = binary.LittleEndian.AppendUint16(body, uint16(len(b)))
		body = append(body, 0, 0, 0, 0)
		body = append(body, b...)
	}
	h := []byte{1, 0}
	h = binary.LittleEndian.AppendUint16(h, uint16(len(msgs)))
	h = binary.LittleEndian.AppendUint32(h, 1)
	h = binary.LittleEndian.AppendUint32(h, uint32(len(body)))
	h = append(h, 0, 0, 0, 0)
	return w.raw(append(h, body...))
}

// link is a hard link of a group.
type link struct {
	name string
	addr uint64
}

// group appends a group holding links (in link messages) and attrs.
func (w *writer) group(links []link, attrs []attr) uint64 {
	var msgs []message
	for _, l := range links {
		b := []byte{1, 0, byte(len(l.name))}
		b = append(b, l.name...)
		msgs = append(msgs, message{0x06, binary.LittleEndian.AppendUint64(b, l.addr)})
	}
	return w.header(append(msgs, attrMessages(attrs)...))
}

// dataset appends a dataset header.
func (w *writer) dataset(space, dtype, layout, filters []byte, attrs []attr) uint64 {
	msgs := []message{{0x01, space}, {0x03, dtype}, {0x08, layout}}
	if filters != nil {
		msgs = append(msgs, message{0x0b, filters})
	}
	return w.header(append(msgs, attrMessages(attrs)...))
}

// superblock writes the version 0 superblock naming the root group.
func (w *writer) superblock(root uint64) {
	b := append([]byte("\x89HDF\r\n\x1a\n"), 0, 0, 0, 0, 0, 8, 8, 0)
	b = binary.LittleEndian.AppendUint16(b, 4)  // group leaf node K
	b = binary.LittleEndian.AppendUint16(b, 16) // group internal node K
	b = binary.LittleEndian.AppendUint32(b, 0)  // consistency flags
	for _, a := range []uint64{0, undefined, uint64(len(w.buf)), undefined, 0, root} {
		b = binary.LittleEndian.AppendUint64(b, a)
	}
	b = append(b, make([]byte, 24)...) // cache type, reserved, scratch pad
	copy(w.buf, b)
}

// attr is an attribute: its datatype, dataspace and stored bytes.
type attr struct {
	name               string
	dtype, space, data []byte
}

func attrMessages(attrs []attr) []message {
	var msgs []message
	for _, a := range attrs {
		name := append([]byte(a.name), 0)
		b := []byte{1, 0}
		b = binary.LittleEndian.AppendUint16(b, uint16(len(name)))
		b = binary.LittleEndian.AppendUint16(b, uint16(len(a.dtype)))
		b = binary.LittleEndian.AppendUint16(b, uint16(len(a.space)))
		b = append(b, pad8(name)...)
		b = append(b, pad8(a.dtype)...)
		b = append(b, pad8(a.space)...)
		msgs = append(msgs, message{0x0c, append(b, a.data...)})
	}
	return msgs
}

func strAttr(name, v string) attr {
	return attr{name, stringType(len(v)), scalarSpace(), []byte(v)}
}

func intAttr(name string, v int64) attr {
	return attr{name, intType(8), scalarSpace(), binary.LittleEndian.AppendUint64(nil, uint64(v))}
}

func floatAttr(name string, v float64) attr {
	return attr{name, float64Type(), scalarSpace(), binary.LittleEndian.AppendUint64(nil, math.Float64bits(v))}
}

func refAttr(name string, addr uint64) attr {
	t := []byte{0x17, 0, 0, 0, 8, 0, 0, 0} // reference class, object references
	return attr{name, t, scalarSpace(), binary.LittleEndian.AppendUint64(nil, addr)}
}

// intType is a signed little-endian integer of size bytes.
func intType(size int) []byte {
	b := []byte{0x10, 0x08, 0, 0}
	b = binary.LittleEndian.AppendUint32(b, uint32(size))
	b = binary.LittleEndian.AppendUint16(b, 0)
	return binary.LittleEndian.AppendUint16(b, uint16(8*size))
}

// float64Type is an IEEE little-endian double.
func float64Type() []byte {
	b := []byte{0x11, 0x20, 63, 0}
	b = binary.LittleEndian.AppendUint32(b, 8)
	b = binary.LittleEndian.AppendUint16(b, 0)
	b = binary.LittleEndian.AppendUint16(b, 64)
	b = append(b, 52, 11, 0, 52)
	return binary.LittleEndian.AppendUint32(b, 1023)
}

// stringType is a null-padded ASCII string of n bytes.
func stringType(n int) []byte {
	return binary.LittleEndian.AppendUint32([]byte{0x13, 0x01, 0, 0}, uint32(n))
}

// scalarSpace is a version 1 dataspace of rank 0.
func scalarSpace() []byte { return []byte{1, 0, 0, 0, 0, 0, 0, 0} }

// simpleSpace is a version 1 dataspace of the given dimensions.
func simpleSpace(dims ...uint64) []byte {
	b := []byte{1, byte(len(dims)), 0, 0, 0, 0, 0, 0}
	for _, d := range dims {
		b = binary.LittleEndian.AppendUint64(b, d)
	}
	return b
}

// contiguousLayout is a version 3 layout message for size bytes at addr.
func contiguousLayout(addr, size uint64) []byte {
	b := binary.LittleEndian.AppendUint64([]byte{3, 1}, addr)
	return binary.LittleEndian.AppendUint64(b, size)
}

// compactLayout is a version 3 layout message holding data.
func compactLayout(data []byte) []byte {
	b := binary.LittleEndian.AppendUint16([]byte{3, 0}, uint16(len(data)))
	return append(b, data...)
}

func pad8(b []byte) []byte {
	for len(b)%8 != 0 {
		b = append(b, 0)
	}
	return b
}
