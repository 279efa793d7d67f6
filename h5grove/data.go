package h5grove

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"net/http"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/selection"
	"github.com/lindigo/lindi/zarrmeta"
)

// selected is a dataset and the selection a request reads of it.
type selected struct {
	d     *h5.Dataset
	sel   selection.Selection
	shape []int // the shape of what the selection reads
}

// selectData finds the dataset of the request and checks its selection
// against it and against the size limit, before anything is read. itemSize
// is the bytes one element costs the answer's read.
func (s *Server) selectData(ctx context.Context, req *request, itemSize func(zarrmeta.DType) int) (*selected, error) {
	e, _, err := target(ctx, req)
	if err != nil {
		return nil, err
	}
	d, ok := e.obj.(*h5.Dataset)
	if !ok {
		return nil, fmt.Errorf("%w: %s is not a dataset", errKind, e.path)
	}
	var sel selection.Selection
	if req.q.has("selection") {
		if sel, err = parseSelection(req.q.get("selection"), d.NDim()); err != nil {
			return nil, err
		}
	}
	r, err := sel.Resolve(d.Shape())
	if err != nil {
		return nil, fmt.Errorf("%w: selection %q of %s: %w", errQuery, req.q.get("selection"), e.path, err)
	}
	n := int64(r.Len()) * int64(itemSize(d.DType()))
	if n > s.maxBytes || n < 0 {
		return nil, fmt.Errorf("%w: the selection of %s reads %d bytes, over the limit of %d; select less", errTooLarge, e.path, n, s.maxBytes)
	}
	return &selected{d: d, sel: sel, shape: r.Shape()}, nil
}

func storedSize(dt zarrmeta.DType) int { return dt.Size }

func isNumeric(dt zarrmeta.DType) bool {
	switch dt.Kind {
	case zarrmeta.KindBool, zarrmeta.KindInt, zarrmeta.KindUint, zarrmeta.KindFloat, zarrmeta.KindComplex:
		return true
	}
	return false
}

// data answers /data: the selected elements in the format asked for.
func (s *Server) data(ctx context.Context, w http.ResponseWriter, req *request) error {
	format := req.q.get("format")
	if format == "" {
		format = "json"
	}
	switch format {
	case "json", "bin", "csv", "npy", "tiff":
	default:
		return fmt.Errorf("%w: Unsupported encoding %s", errQuery, format)
	}
	dtype := req.q.get("dtype")
	if dtype != "" && dtype != "origin" && dtype != "safe" {
		return fmt.Errorf("%w: Unsupported dtype %s", errQuery, dtype)
	}
	sd, err := s.selectData(ctx, req, storedSize)
	if err != nil {
		return err
	}
	dt := sd.d.DType()
	safe := dtype == "safe"
	if safe && !isNumeric(dt) {
		return fmt.Errorf("%w: Unsupported dtype safe for non-numeric data", errQuery)
	}
	if format != "json" && format != "bin" && !isNumeric(dt) {
		return fmt.Errorf("%w: Unsupported encoding %s for non-numeric content", errQuery, format)
	}
	if (format == "csv" || format == "tiff") && len(sd.shape) == 0 {
		return fmt.Errorf("%w: Unsupported encoding %s for empty and scalar datasets", errQuery, format)
	}
	if format == "bin" && streamable(dt, safe) {
		return streamBin(ctx, w, sd)
	}
	a, err := sd.d.Read(ctx, sd.sel)
	if err != nil {
		return err
	}
	if safe && dt.Kind == zarrmeta.KindFloat && dt.Size == 2 {
		a = float16To32(a)
	}
	shape := a.Shape
	if req.q.flag("flatten") && len(shape) > 0 {
		shape = []int{a.Len()}
	}
	switch format {
	case "bin":
		return writeBin(w, a, !safe && dt.Order == zarrmeta.BigEndian)
	case "npy":
		return writeNpy(w, a, shape)
	case "csv":
		return writeCSV(w, a, shape)
	case "tiff":
		return writeTIFF(w, a, shape)
	}
	return writeJSONArray(w, a, shape)
}

// streamable reports whether the elements of dt go out as h5 reads them.
func streamable(dt zarrmeta.DType, safe bool) bool {
	if !dt.Fixed() || dt.Kind == zarrmeta.KindObject || dt.Kind == zarrmeta.KindReference {
		return false
	}
	if safe && dt.Kind == zarrmeta.KindFloat && dt.Size == 2 {
		return false
	}
	return dt.Order != zarrmeta.BigEndian || safe
}

// streamBin writes the selection's bytes as they are decoded.
func streamBin(ctx context.Context, w http.ResponseWriter, sd *selected) error {
	w.Header().Set("Content-Type", "application/octet-stream")
	cw := &countWriter{w: w}
	_, err := sd.d.ReadTo(ctx, sd.sel, cw)
	if err != nil && cw.n > 0 {
		// The answer has begun, so no error answer can follow: abort the
		// connection, net/http's way (as httputil.ReverseProxy does), so that
		// the client sees a broken answer rather than a short one.
		panic(http.ErrAbortHandler)
	}
	return err
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// writeBin writes the elements' bytes, swapped back to big-endian order
// when bigEndian is set (h5py reads a big-endian dataset as stored).
func writeBin(w http.ResponseWriter, a *h5.Array, bigEndian bool) error {
	if a.DType.Kind == zarrmeta.KindObject || a.DType.Kind == zarrmeta.KindReference || (a.Data == nil && a.Len() > 0) {
		return fmt.Errorf("%w: Unsupported encoding bin for elements without a fixed size", errQuery)
	}
	data := a.Data
	if bigEndian {
		data = swapped(data, a.DType)
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Length", fmt.Sprint(len(data)))
	_, err := w.Write(data)
	return err
}

// swapped is a copy of data with each number's bytes reversed (each half
// of a complex number's).
func swapped(data []byte, dt zarrmeta.DType) []byte {
	out := make([]byte, len(data))
	size := dt.Size
	if dt.Kind == zarrmeta.KindComplex {
		size /= 2
	}
	for i := 0; i+size <= len(data); i += size {
		for j := range size {
			out[i+j] = data[i+size-1-j]
		}
	}
	return out
}

// float16To32 converts an array of float16 to float32, as dtype=safe does.
func float16To32(a *h5.Array) *h5.Array {
	n := a.Len()
	out := make([]byte, 4*n)
	for i := range n {
		f := float32(zarrmeta.Float16(binary.NativeEndian.Uint16(a.Data[2*i:])))
		binary.NativeEndian.PutUint32(out[4*i:], math.Float32bits(f))
	}
	return &h5.Array{DType: zarrmeta.DType{Kind: zarrmeta.KindFloat, Order: zarrmeta.NativeOrder, Size: 4}, Shape: a.Shape, Data: out}
}

// writeJSONArray writes the elements as nested JSON lists of the shape, or
// a scalar, streamed through a buffer.
func writeJSONArray(w http.ResponseWriter, a *h5.Array, shape []int) error {
	w.Header().Set("Content-Type", "application/json")
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := elemEncoder{a: a}
	if err := enc.check(); err != nil {
		return err
	}
	i := 0
	var nest func(dims []int) error
	nest = func(dims []int) error {
		if len(dims) == 0 {
			err := enc.write(bw, i)
			i++
			return err
		}
		bw.WriteByte('[')
		for k := range dims[0] {
			if k > 0 {
				bw.WriteByte(',')
			}
			if err := nest(dims[1:]); err != nil {
				return err
			}
		}
		return bw.WriteByte(']')
	}
	if err := nest(shape); err != nil {
		return err
	}
	return bw.Flush()
}
