package h5grove

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/internal/npy"
	"github.com/lindigo/lindi/selection"
	"github.com/lindigo/lindi/zarrmeta"
)

// selected is a dataset and the selection a request reads of it.
type selected struct {
	d     *h5.Dataset
	sel   selection.Selection
	shape []int // the shape of what the selection reads
	bytes int64 // the bytes it reads
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
	return &selected{d: d, sel: sel, shape: r.Shape(), bytes: n}, nil
}

func storedSize(dt zarrmeta.DType) int { return dt.Size }

func isNumeric(dt zarrmeta.DType) bool {
	switch dt.Kind {
	case zarrmeta.KindBool, zarrmeta.KindInt, zarrmeta.KindUint, zarrmeta.KindFloat, zarrmeta.KindComplex:
		return true
	}
	return false
}

// data answers /data: the selected elements in the format asked for. A HEAD
// request gets the answer's headers, its length when the format tells it
// before encoding, and reads nothing.
func (s *Server) data(ctx context.Context, w http.ResponseWriter, req *request) error {
	format, safe, err := dataArgs(req.q)
	if err != nil {
		return err
	}
	sd, err := s.selectData(ctx, req, storedSize)
	if err != nil {
		return err
	}
	dt := sd.d.DType()
	if sd.d.Null() {
		if err := checkNull(format, safe); err != nil {
			return err
		}
		return writeNull(w, format) // net/http drops a HEAD answer's body
	}
	if err := checkFormat(format, dt, safe, sd.shape); err != nil {
		return err
	}
	shape := sd.shape
	if req.q.flag("flatten") && len(shape) > 0 {
		shape = []int{product(shape)}
	}
	if req.head {
		return headData(w, format, dt, safe, shape)
	}
	if format == "bin" && streamable(dt, safe) {
		if err := req.hold(ctx, sd.bytes); err != nil {
			return err
		}
		return streamBin(ctx, w, sd)
	}
	// The elements read, their copy (swapped or converted), and the
	// encoded answer buffered to tell its length.
	buffered := min(s.maxBytes, 4*sd.bytes+64<<10)
	if err := req.hold(ctx, 2*sd.bytes+buffered); err != nil {
		return err
	}
	a, err := sd.d.Read(ctx, sd.sel)
	if err != nil {
		return err
	}
	if safe && dt.Kind == zarrmeta.KindFloat && dt.Size == 2 {
		a = float16To32(a)
	}
	switch format {
	case "bin":
		return writeBin(w, a, !safe && dt.Order == zarrmeta.BigEndian)
	case "npy":
		return writeNpy(w, a, shape, !safe && dt.Order == zarrmeta.BigEndian)
	case "tiff":
		return writeTIFF(w, a, shape)
	}
	sw := &sizedWriter{w: w, limit: int(buffered)}
	if format == "csv" {
		err = writeCSV(w, sw, a, shape)
	} else {
		err = writeJSONArray(w, sw, a, shape)
	}
	if err != nil {
		return err
	}
	return sw.finish()
}

// dataArgs reads /data's format and dtype arguments.
func dataArgs(q queryArgs) (format string, safe bool, err error) {
	format = q.get("format")
	if format == "" {
		format = "json"
	}
	switch format {
	case "json", "bin", "csv", "npy", "tiff":
	default:
		return "", false, fmt.Errorf("%w: Unsupported encoding %s", errQuery, format)
	}
	dtype := q.get("dtype")
	if dtype != "" && dtype != "origin" && dtype != "safe" {
		return "", false, fmt.Errorf("%w: Unsupported dtype %s", errQuery, dtype)
	}
	return format, dtype == "safe", nil
}

// checkFormat refuses a format the elements or the selection's shape do
// not allow, as h5grove does.
func checkFormat(format string, dt zarrmeta.DType, safe bool, shape []int) error {
	// numpy counts timedelta64 among its integers.
	numeric := isNumeric(dt) || dt.Kind == zarrmeta.KindTimedelta
	if safe && !numeric {
		return fmt.Errorf("%w: Unsupported dtype safe for non-numeric data", errQuery)
	}
	if (format == "csv" || format == "tiff") && !isNumeric(dt) || format == "npy" && !numeric {
		return fmt.Errorf("%w: Unsupported encoding %s for non-numeric content", errQuery, format)
	}
	if (format == "csv" || format == "tiff") && len(shape) == 0 {
		return fmt.Errorf("%w: Unsupported encoding %s for empty and scalar datasets", errQuery, format)
	}
	if format == "bin" && !rawBytes(dt) {
		return fmt.Errorf("%w: Unsupported encoding bin for elements without a fixed size", errQuery)
	}
	return nil
}

// rawBytes reports whether the stored bytes of dt's elements are their
// values (no references, no variable-length items), as bin sends them.
func rawBytes(dt zarrmeta.DType) bool {
	switch dt.Kind {
	case zarrmeta.KindObject, zarrmeta.KindReference, zarrmeta.KindInvalid:
		return false
	case zarrmeta.KindStruct:
		for _, f := range dt.Fields {
			if !rawBytes(f.DType) {
				return false
			}
		}
	}
	return true
}

// checkNull refuses what h5grove refuses for a dataset with no dataspace
// (h5py's Empty, not a numeric array).
func checkNull(format string, safe bool) error {
	if safe {
		return fmt.Errorf("%w: Unsupported dtype safe for non-numeric data", errQuery)
	}
	if format != "json" && format != "bin" {
		return fmt.Errorf("%w: Unsupported encoding %s for non-numeric content", errQuery, format)
	}
	return nil
}

// writeNull answers /data of a dataset with no dataspace: JSON null, as
// h5grove writes h5py's Empty, or no bytes.
func writeNull(w http.ResponseWriter, format string) error {
	body := []byte("null")
	w.Header().Set("Content-Type", "application/json")
	if format == "bin" {
		body = nil
		w.Header().Set("Content-Type", "application/octet-stream")
	}
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	_, err := w.Write(body)
	return err
}

func product(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// headData sets the headers a GET of the same /data would send, with its
// Content-Length when the format tells it without encoding (bin, npy,
// tiff).
func headData(w http.ResponseWriter, format string, dt zarrmeta.DType, safe bool, shape []int) error {
	size := dt.Size
	if safe && dt.Kind == zarrmeta.KindFloat && dt.Size == 2 {
		size = 4
	}
	n := int64(product(shape)) * int64(size)
	h := w.Header()
	switch format {
	case "bin":
		h.Set("Content-Type", "application/octet-stream")
		h.Set("Content-Length", strconv.FormatInt(n, 10))
	case "npy":
		out := dt.Native()
		out.Size = size
		var hb bytes.Buffer
		if _, err := npy.WriteHeader(&hb, npyDescr(out), false, shape); err != nil {
			return err
		}
		h.Set("Content-Type", "application/octet-stream")
		h.Set("Content-Disposition", `attachment; filename="data.npy"`)
		h.Set("Content-Length", strconv.FormatInt(int64(hb.Len())+n, 10))
	case "tiff":
		if len(shape) != 2 {
			return fmt.Errorf("%w: Unsupported encoding tiff for %d-D data: select 2 dimensions", errQuery, len(shape))
		}
		h.Set("Content-Type", "image/tiff")
		h.Set("Content-Disposition", `attachment; filename="data.tiff"`)
		h.Set("Content-Length", strconv.FormatInt(tiffHeadLen+n, 10))
	case "csv":
		h.Set("Content-Type", "text/csv")
		h.Set("Content-Disposition", `attachment; filename="data.csv"`)
	default:
		h.Set("Content-Type", "application/json")
	}
	return nil
}

// sizedWriter holds an answer of up to limit bytes, so that it goes out
// with its Content-Length; a longer one goes out as it is written, without.
type sizedWriter struct {
	w     http.ResponseWriter
	limit int
	buf   []byte
	flow  bool // the limit was passed: writing through
}

func (s *sizedWriter) Write(p []byte) (int, error) {
	if s.flow {
		return s.w.Write(p)
	}
	if len(s.buf)+len(p) <= s.limit {
		s.buf = append(s.buf, p...)
		return len(p), nil
	}
	s.flow = true
	if _, err := s.w.Write(s.buf); err != nil {
		return 0, err
	}
	s.buf = nil
	return s.w.Write(p)
}

// finish sends what is held, with its length.
func (s *sizedWriter) finish() error {
	if s.flow {
		return nil
	}
	s.w.Header().Set("Content-Length", strconv.Itoa(len(s.buf)))
	_, err := s.w.Write(s.buf)
	return err
}

// streamable reports whether the elements of dt go out as h5 reads them.
func streamable(dt zarrmeta.DType, safe bool) bool {
	if !isNumeric(dt) || dt.Kind == zarrmeta.KindComplex {
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
	w.Header().Set("Content-Length", strconv.FormatInt(sd.bytes, 10))
	_, err := sd.d.ReadTo(ctx, sd.sel, w)
	return err
}

// writeBin writes the elements' bytes, swapped back to big-endian order
// when bigEndian is set (h5py reads a big-endian dataset as stored).
func writeBin(w http.ResponseWriter, a *h5.Array, bigEndian bool) error {
	if a.Data == nil && a.Len() > 0 {
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

// writeJSONArray writes the elements to out as nested JSON lists of the
// shape, or a scalar, streamed through a buffer; w gets the headers.
func writeJSONArray(w http.ResponseWriter, out io.Writer, a *h5.Array, shape []int) error {
	w.Header().Set("Content-Type", "application/json")
	bw := bufio.NewWriterSize(out, 64<<10)
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
