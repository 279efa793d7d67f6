package lindibeam

import (
	"bytes"
	"cmp"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
)

func init() {
	register.DoFn3x1[context.Context, []byte, func(*beam.X) bool, error](&writeRowsFn{})
	register.Iter1[beam.X]()
}

// Row formats.
const (
	CSV   = "csv"
	JSONL = "jsonl"
)

// WriteCSV writes rows, a PCollection of structs (ForEach's rows), to name
// (a local path, or a gs://, s3:// or memfs:// URL) as CSV: a header of the
// columns, then a line per row. A column is an exported field of a boolean,
// integer, float or string type, named by its tag `csv:"name"` (else
// `json:"name"`, else the field's name; "-" leaves it out). The rows are
// sorted, field by field in the struct's order, so that the file does not
// depend on how the job was split. One worker writes the file, whole or not
// at all (see WriteOutput); with no rows it holds the header. WriteCSV
// panics, as Beam's transforms do, on a row type it cannot write;
// TryWriteRows returns the error instead.
func WriteCSV(s beam.Scope, name string, rows beam.PCollection) {
	if err := TryWriteRows(s, name, CSV, rows); err != nil {
		panic(err)
	}
}

// WriteJSONL writes rows as WriteCSV does, as JSON Lines: an object per row,
// the columns its members (NaN and infinities as the strings "NaN",
// "Infinity" and "-Infinity").
func WriteJSONL(s beam.Scope, name string, rows beam.PCollection) {
	if err := TryWriteRows(s, name, JSONL, rows); err != nil {
		panic(err)
	}
}

// TryWriteRows writes rows to name in format (CSV or JSONL), or says why it
// cannot.
func TryWriteRows(s beam.Scope, name, format string, rows beam.PCollection) error {
	t := rows.Type().Type()
	if _, err := rowColumns(t); err != nil {
		return fmt.Errorf("lindibeam: write %s: %w", name, err)
	}
	if format != CSV && format != JSONL {
		return fmt.Errorf("lindibeam: write %s: format %q, want %q or %q", name, format, CSV, JSONL)
	}
	s = s.Scope("lindi.WriteRows")
	_, err := beam.TryParDo(s, &writeRowsFn{Name: name, Format: format, Type: beam.EncodedType{T: t}},
		beam.Impulse(s), beam.SideInput{Input: rows})
	return err
}

// rowColumn is a column of a row type: its name and field index.
type rowColumn struct {
	name  string
	field int
}

// rowColumns lists the columns of the struct type t.
func rowColumns(t reflect.Type) ([]rowColumn, error) {
	if t.Kind() != reflect.Struct {
		return nil, fmt.Errorf("rows of %v: want a struct", t)
	}
	var cols []rowColumn
	seen := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		name := f.Name
		if tag, ok := f.Tag.Lookup("csv"); ok {
			name, _, _ = strings.Cut(tag, ",")
		} else if tag, ok := f.Tag.Lookup("json"); ok {
			name, _, _ = strings.Cut(tag, ",")
		}
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		switch f.Type.Kind() {
		case reflect.Bool, reflect.String, reflect.Float32, reflect.Float64,
			reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
			reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		default:
			return nil, fmt.Errorf("rows of %v: field %s is a %v: want a boolean, number or string", t, f.Name, f.Type)
		}
		if seen[name] {
			return nil, fmt.Errorf("rows of %v: two columns named %q", t, name)
		}
		seen[name] = true
		cols = append(cols, rowColumn{name: name, field: i})
	}
	if len(cols) == 0 {
		return nil, fmt.Errorf("rows of %v: no columns", t)
	}
	return cols, nil
}

// writeRowsFn writes all rows, its side input, on one worker.
type writeRowsFn struct {
	Name, Format string
	Type         beam.EncodedType
}

func (f *writeRowsFn) ProcessElement(ctx context.Context, _ []byte, rows func(*beam.X) bool) error {
	cols, err := rowColumns(f.Type.T)
	if err != nil {
		return err
	}
	var all []reflect.Value
	var r beam.X
	for rows(&r) {
		all = append(all, reflect.ValueOf(r))
	}
	slices.SortFunc(all, func(a, b reflect.Value) int { return compareRows(a, b, cols) })
	var data []byte
	if f.Format == JSONL {
		data = encodeJSONL(all, cols)
	} else if data, err = encodeCSV(all, cols); err != nil {
		return err
	}
	return WriteOutput(ctx, f.Name, data)
}

// compareRows orders rows by their columns, in order.
func compareRows(a, b reflect.Value, cols []rowColumn) int {
	for _, c := range cols {
		x, y := a.Field(c.field), b.Field(c.field)
		var d int
		switch x.Kind() {
		case reflect.String:
			d = strings.Compare(x.String(), y.String())
		case reflect.Bool:
			d = cmp.Compare(b2i(x.Bool()), b2i(y.Bool()))
		case reflect.Float32, reflect.Float64:
			d = cmp.Compare(x.Float(), y.Float())
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			d = cmp.Compare(x.Uint(), y.Uint())
		default:
			d = cmp.Compare(x.Int(), y.Int())
		}
		if d != 0 {
			return d
		}
	}
	return 0
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// cell formats a value of a column as CSV writes it: floats in the fewest
// digits that read back the same, NaN and infinities as "NaN", "inf" and
// "-inf" (as numpy and pandas read them).
func cell(v reflect.Value) string {
	switch v.Kind() {
	case reflect.String:
		return v.String()
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.Float32, reflect.Float64:
		return formatFloat(v.Float(), v.Type().Bits())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10)
	}
	return strconv.FormatInt(v.Int(), 10)
}

func formatFloat(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'g', -1, bits)
}

func encodeCSV(rows []reflect.Value, cols []rowColumn) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	line := make([]string, len(cols))
	for i, c := range cols {
		line[i] = c.name
	}
	w.Write(line)
	for _, r := range rows {
		for i, c := range cols {
			line[i] = cell(r.Field(c.field))
		}
		w.Write(line)
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

func encodeJSONL(rows []reflect.Value, cols []rowColumn) []byte {
	var buf bytes.Buffer
	for _, r := range rows {
		buf.WriteByte('{')
		for i, c := range cols {
			if i > 0 {
				buf.WriteByte(',')
			}
			k, _ := json.Marshal(c.name)
			buf.Write(k)
			buf.WriteByte(':')
			v := r.Field(c.field)
			switch v.Kind() {
			case reflect.String:
				b, _ := json.Marshal(v.String())
				buf.Write(b)
			case reflect.Float32, reflect.Float64:
				b, _ := Number{F: v.Float()}.MarshalJSON()
				if v.Kind() == reflect.Float32 && !math.IsNaN(v.Float()) && !math.IsInf(v.Float(), 0) {
					b = []byte(formatFloat(v.Float(), 32))
				}
				buf.Write(b)
			default:
				buf.WriteString(cell(v))
			}
		}
		buf.WriteString("}\n")
	}
	return buf.Bytes()
}
