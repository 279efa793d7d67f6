package h5grove

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/internal/npy"
	"github.com/lindigo/lindi/zarrmeta"
)

// elemEncoder writes the elements of an array as JSON values, as h5grove's
// orjson does with what h5py reads: numbers (NaN and infinities as null),
// complex numbers as [re, im], strings, references as strings, compound
// elements as lists of their fields.
type elemEncoder struct {
	a   *h5.Array
	buf []byte
	// inRow is set while a compound element is written: numpy's tolist
	// makes its float32 members Python floats, which orjson writes in
	// full.
	inRow bool
}

// check refuses arrays whose elements have no JSON form, before anything
// is written.
func (e *elemEncoder) check() error {
	return checkJSON(e.a.DType)
}

func checkJSON(dt zarrmeta.DType) error {
	switch dt.Kind {
	case zarrmeta.KindInvalid:
		return fmt.Errorf("%w: elements of dtype %s have no JSON form", errQuery, dt)
	case zarrmeta.KindStruct:
		for _, f := range dt.Fields {
			if err := checkJSON(f.DType); err != nil {
				return err
			}
		}
	}
	return nil
}

func (e *elemEncoder) write(w *bufio.Writer, i int) error {
	if e.a.Objects != nil {
		return writeObject(w, e.a.Objects[i])
	}
	dt := e.a.DType
	return e.writeFixed(w, dt, e.a.Data[i*dt.Size:(i+1)*dt.Size])
}

// writeFixed writes one element of dt held in b, native byte order.
func (e *elemEncoder) writeFixed(w *bufio.Writer, dt zarrmeta.DType, b []byte) error {
	switch dt.Kind {
	case zarrmeta.KindStruct:
		outer := e.inRow
		e.inRow = true
		defer func() { e.inRow = outer }()
		w.WriteByte('[')
		for k, f := range dt.Fields {
			if k > 0 {
				w.WriteByte(',')
			}
			e.writeSubarray(w, f.DType, f.Shape, b[f.Offset:f.Offset+f.Count()*f.DType.Size])
		}
		return w.WriteByte(']')
	case zarrmeta.KindComplex:
		half := zarrmeta.DType{Kind: zarrmeta.KindFloat, Order: dt.Order, Size: dt.Size / 2}
		w.WriteByte('[')
		e.writeFixed(w, half, b[:half.Size])
		w.WriteByte(',')
		e.writeFixed(w, half, b[half.Size:])
		return w.WriteByte(']')
	case zarrmeta.KindBytes:
		return writeString(w, strings.TrimRight(string(b), "\x00"))
	case zarrmeta.KindUnicode:
		var sb strings.Builder
		for j := 0; j+4 <= len(b); j += 4 {
			r := rune(binary.LittleEndian.Uint32(b[j:]))
			if r == 0 {
				break
			}
			sb.WriteRune(r)
		}
		return writeString(w, sb.String())
	case zarrmeta.KindBool:
		if b[0] != 0 {
			_, err := w.WriteString("true")
			return err
		}
		_, err := w.WriteString("false")
		return err
	case zarrmeta.KindFloat:
		if dt.Size == 4 && !e.inRow {
			return writeFloat32(w, floatAt(dt, b))
		}
		return writeFloat(w, floatAt(dt, b))
	case zarrmeta.KindDatetime:
		return writeDatetime(w, h5.Datetime{Count: intAt(dt, b), Unit: dt.Unit})
	case zarrmeta.KindVoid:
		// numpy's void is its bytes, which h5grove's encoder decodes as text.
		return writeString(w, string(b))
	}
	if dt.Kind == zarrmeta.KindUint {
		e.buf = strconv.AppendUint(e.buf[:0], uintAt(dt, b), 10)
	} else {
		e.buf = strconv.AppendInt(e.buf[:0], intAt(dt, b), 10)
	}
	_, err := w.Write(e.buf)
	return err
}

// writeSubarray writes the elements of a compound member of dt and shape
// (none for a scalar member) held in b as nested lists, as numpy's tolist
// gives a subarray.
func (e *elemEncoder) writeSubarray(w *bufio.Writer, dt zarrmeta.DType, shape []int, b []byte) error {
	if len(shape) == 0 {
		return e.writeFixed(w, dt, b)
	}
	w.WriteByte('[')
	step := len(b) / max(shape[0], 1)
	for j := range shape[0] {
		if j > 0 {
			w.WriteByte(',')
		}
		if err := e.writeSubarray(w, dt, shape[1:], b[j*step:(j+1)*step]); err != nil {
			return err
		}
	}
	return w.WriteByte(']')
}

// writeFloat32 writes a float32's value as the shortest decimal that reads
// back as that float32, as orjson writes numpy's float32.
func writeFloat32(w *bufio.Writer, f float64) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		_, err := w.WriteString("null")
		return err
	}
	var buf [32]byte
	_, err := w.Write(strconv.AppendFloat(buf[:0], f, 'g', -1, 32))
	return err
}

// writeDatetime writes a datetime64 as orjson writes numpy's (see
// datetimeJSON).
func writeDatetime(w *bufio.Writer, d h5.Datetime) error {
	v := datetimeJSON(d)
	if v == nil {
		_, err := w.WriteString("null")
		return err
	}
	return writeString(w, v.(string))
}

// datetimeJSON is a datetime64 as orjson (3.8) writes numpy's: the date and
// time without a zone, with its microseconds when there are any; NaT as
// the epoch, as orjson writes it; nil (null) for a time Go cannot hold.
func datetimeJSON(d h5.Datetime) any {
	t, err := d.Time()
	if d.Count == h5.NaT {
		t, err = time.Unix(0, 0).UTC(), nil
	}
	if err != nil {
		return nil
	}
	layout := "2006-01-02T15:04:05"
	if t.Nanosecond()/1000 != 0 {
		layout += ".000000"
	}
	return t.Format(layout)
}

func writeFloat(w *bufio.Writer, f float64) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		_, err := w.WriteString("null")
		return err
	}
	var buf [32]byte
	_, err := w.Write(strconv.AppendFloat(buf[:0], f, 'g', -1, 64))
	return err
}

func writeString(w *bufio.Writer, s string) error {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	b, err := jsonMarshal(s)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// writeObject writes an element of an object array: a string, bytes, a
// number, a boolean, a reference or a compound row.
func writeObject(w *bufio.Writer, v any) error {
	switch v := v.(type) {
	case []byte:
		return writeString(w, string(v))
	case string:
		return writeString(w, v)
	case float64:
		return writeFloat(w, v)
	case h5.Reference:
		return writeString(w, refString(v))
	case []h5.Reference:
		w.WriteByte('[')
		for k, r := range v {
			if k > 0 {
				w.WriteByte(',')
			}
			writeString(w, refString(r))
		}
		return w.WriteByte(']')
	case h5.RegionReference:
		return writeString(w, regionString(v))
	case []any:
		w.WriteByte('[')
		for k, x := range v {
			if k > 0 {
				w.WriteByte(',')
			}
			if err := writeObject(w, x); err != nil {
				return err
			}
		}
		return w.WriteByte(']')
	}
	b, err := jsonMarshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// floatAt, intAt and uintAt read one number of dt from b, native order.
func floatAt(dt zarrmeta.DType, b []byte) float64 {
	switch dt.Size {
	case 2:
		return zarrmeta.Float16(binary.NativeEndian.Uint16(b))
	case 4:
		return float64(math.Float32frombits(binary.NativeEndian.Uint32(b)))
	}
	return math.Float64frombits(binary.NativeEndian.Uint64(b))
}

func intAt(dt zarrmeta.DType, b []byte) int64 {
	switch dt.Size {
	case 1:
		return int64(int8(b[0]))
	case 2:
		return int64(int16(binary.NativeEndian.Uint16(b)))
	case 4:
		return int64(int32(binary.NativeEndian.Uint32(b)))
	}
	return int64(binary.NativeEndian.Uint64(b))
}

func uintAt(dt zarrmeta.DType, b []byte) uint64 {
	switch dt.Size {
	case 1:
		return uint64(b[0])
	case 2:
		return uint64(binary.NativeEndian.Uint16(b))
	case 4:
		return uint64(binary.NativeEndian.Uint32(b))
	}
	return binary.NativeEndian.Uint64(b)
}

// numberAt is element i of a numeric array (bool, int, uint, float; the
// real part of a complex) as float64.
func numberAt(a *h5.Array, i int) float64 {
	dt := a.DType
	b := a.Data[i*dt.Size : (i+1)*dt.Size]
	switch dt.Kind {
	case zarrmeta.KindBool:
		if b[0] != 0 {
			return 1
		}
		return 0
	case zarrmeta.KindInt:
		return float64(intAt(dt, b))
	case zarrmeta.KindUint:
		return float64(uintAt(dt, b))
	case zarrmeta.KindComplex:
		return floatAt(zarrmeta.DType{Kind: zarrmeta.KindFloat, Size: dt.Size / 2}, b)
	}
	return floatAt(dt, b)
}

// npyDescr is numpy's typestr of a numeric dtype in native order.
func npyDescr(dt zarrmeta.DType) string {
	n := dt.Native()
	return n.String()
}

// writeNpy writes the array as a .npy file, of big-endian elements as
// stored when bigEndian is set (numpy's save keeps the dtype h5py read).
func writeNpy(w http.ResponseWriter, a *h5.Array, shape []int, bigEndian bool) error {
	descr, data := npyDescr(a.DType), a.Data
	if bigEndian && a.DType.Size > 1 {
		descr, data = ">"+descr[1:], swapped(data, a.DType)
	}
	var head bytes.Buffer
	if _, err := npy.WriteHeader(&head, descr, false, shape); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Content-Disposition", `attachment; filename="data.npy"`)
	w.Header().Set("Content-Length", strconv.Itoa(head.Len()+len(data)))
	if _, err := w.Write(head.Bytes()); err != nil {
		return err
	}
	_, err := w.Write(data)
	return err
}

// writeCSV writes a 1-D or 2-D array as numpy's savetxt does, to out: one
// row a line, values separated by commas, each as %.18e; w gets the
// headers.
func writeCSV(w http.ResponseWriter, out io.Writer, a *h5.Array, shape []int) error {
	if len(shape) > 2 {
		return fmt.Errorf("%w: Unsupported encoding csv for %d-D data: flatten it or select 1 or 2 dimensions", errQuery, len(shape))
	}
	if a.DType.Kind == zarrmeta.KindComplex {
		return fmt.Errorf("%w: Unsupported encoding csv for complex data", errQuery)
	}
	cols := 1
	if len(shape) == 2 {
		cols = shape[1]
	}
	w.Header().Set("Content-Type", "text/csv")
	w.Header().Set("Content-Disposition", `attachment; filename="data.csv"`)
	bw := bufio.NewWriterSize(out, 64<<10)
	var buf []byte
	for i := range a.Len() {
		buf = appendSavetxt(buf[:0], numberAt(a, i))
		if (i+1)%cols == 0 {
			buf = append(buf, '\n')
		} else {
			buf = append(buf, ',')
		}
		bw.Write(buf)
	}
	return bw.Flush()
}

// appendSavetxt appends f as numpy's savetxt writes it with its default
// format, %.18e: "nan", "inf" and "-inf" for the non-finite.
func appendSavetxt(buf []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(buf, "nan"...)
	case math.IsInf(f, 1):
		return append(buf, "inf"...)
	case math.IsInf(f, -1):
		return append(buf, "-inf"...)
	}
	return strconv.AppendFloat(buf, f, 'e', 18, 64)
}
