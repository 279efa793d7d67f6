package nwb

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/lindigo/lindi/h5"
	"github.com/lindigo/lindi/zarrmeta"
)

// Rows decodes rows [start, stop) of t into a slice of T, a struct type whose
// fields name the columns they take with a tag:
//
//	type Unit struct {
//		ID         int64          `nwb:"id"`          // the row's id
//		Spikes     []float64      `nwb:"spike_times"` // a ragged column: a slice per row
//		Electrodes []int          `nwb:"electrodes"`  // rows of the table Column.Target opens
//		Waveform   [20][3]float64 `nwb:"waveform_mean"`
//		Quality    string         `nwb:"quality,optional"`
//	}
//	units, err := nwb.Rows[Unit](ctx, t, 0, t.Len())
//
// The tag "id" takes the row's id; "-", or no tag, leaves a field alone; the
// option "optional" leaves it zero when t has no such column; two fields
// tagged with one column are an error naming both. A cell goes
// into a field of a type that holds it exactly:
//   - a number field takes any number (a boolean only into bool) whose value
//     it holds: a fraction into an integer, or a value out of the field's
//     range, is an error (float32 takes a float64 rounded);
//   - a string field takes a string, or an object reference as the path of
//     its target; an h5.Reference field takes a reference;
//   - a slice takes a ragged cell, or a row of a column with more than one
//     dimension, element by element (nested once more per level); an array
//     [N]E does too when the lengths agree;
//   - a struct takes a compound cell, its tagged fields naming the
//     compound's fields (a []Field takes it as Column.Cells gives it);
//   - an interface field (any) takes the cell as Column.Cells gives it.
//
// Rows reads the columns concurrently, a goroutine per column (at most 8 at
// once, each read itself concurrent over its chunks); each writes its own
// fields of the result. A tag naming no column fails with ErrNoColumn, and a
// field type that cannot hold its column (the wrong kind, too few slice
// levels for a ragged column) with h5.ErrType, both before anything is read;
// a value that does not fit its field fails with h5.ErrType naming the
// column, the row and the field.
func Rows[T any](ctx context.Context, t *Table, start, stop int) ([]T, error) {
	bs, err := bind(reflect.TypeFor[T](), t)
	if err != nil {
		return nil, err
	}
	if err := t.checkRange(start, stop); err != nil {
		return nil, err
	}
	out := make([]T, stop-start)
	g, gctx := errgroup.WithContext(ctx)
	g.SetLimit(maxColumnReads)
	for _, b := range bs {
		g.Go(func() error { return b.decode(gctx, t, start, stop, reflect.ValueOf(out)) })
	}
	if err := g.Wait(); err != nil {
		return nil, err
	}
	return out, nil
}

// Select decodes the rows of t at the given positions (any order, repeats
// allowed), such as those TimeSeries.Electrodes or Column.Indices give, into
// a slice of T by the rules of Rows. Nearby rows are read as one block.
func Select[T any](ctx context.Context, t *Table, rows []int) ([]T, error) {
	for _, r := range rows {
		if r < 0 || r >= t.n {
			return nil, fmt.Errorf("%w: row %d of %s, which has %d", ErrRange, r, t.g.Path(), t.n)
		}
	}
	if _, err := bind(reflect.TypeFor[T](), t); err != nil {
		return nil, err
	}
	blocks := runs(rows)
	vals := make([][]T, len(blocks))
	for k, run := range blocks {
		var err error
		if vals[k], err = Rows[T](ctx, t, run[0], run[1]); err != nil {
			return nil, err
		}
	}
	out := make([]T, len(rows))
	for i, r := range rows {
		// The blocks are sorted and disjoint: the first that ends after r holds it.
		k, _ := slices.BinarySearchFunc(blocks, r, func(b [2]int, r int) int { return cmpInt(b[1]-1, r) })
		out[i] = vals[k][r-blocks[k][0]]
	}
	return out, nil
}

func cmpInt(a, b int) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// binding ties a struct field to the column it decodes (col nil: the ids).
type binding struct {
	typ   reflect.Type // the struct type, for messages
	field reflect.StructField
	col   *Column
}

// bind maps the tagged fields of rt, a struct type, to t's columns, checking
// that each field's type can hold its column's cells.
func bind(rt reflect.Type, t *Table) ([]binding, error) {
	if rt.Kind() != reflect.Struct {
		return nil, fmt.Errorf("nwb: rows of %s decode into a struct type, not %s: %w", t.Path(), typeName(rt), unprefixed{h5.ErrType})
	}
	var out []binding
	taken := map[string]string{} // a column → the field tagged with it
	for _, sf := range reflect.VisibleFields(rt) {
		name, optional, ok, err := tagOf(rt, sf)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if other, dup := taken[name]; dup {
			return nil, fmt.Errorf("nwb: fields %[1]s.%[2]s and %[1]s.%[3]s are both tagged %[4]q: a column decodes into one field", typeName(rt), other, sf.Name, name)
		}
		taken[name] = sf.Name
		b := binding{typ: rt, field: sf}
		if name == "id" {
			if err := fits(sf.Type, zarrmeta.DType{Kind: zarrmeta.KindInt, Size: 8}, 0); err != nil {
				return nil, b.typeError(fmt.Sprintf("the ids of %s", t.Path()), err)
			}
			out = append(out, b)
			continue
		}
		c, found := t.cols[name]
		if !found {
			if optional {
				continue
			}
			return nil, fmt.Errorf("%w: field %s.%s is tagged %q, which %s does not have (columns: %s)", ErrNoColumn, typeName(rt), sf.Name, name, t.Path(), strings.Join(t.names, ", "))
		}
		if err := fits(sf.Type, c.data.DType(), c.Depth()+max(c.data.NDim()-1, 0)); err != nil {
			return nil, b.typeError(c.data.Path(), err)
		}
		b.col = c
		out = append(out, b)
	}
	return out, nil
}

// tagOf parses a field's nwb tag: the name it gives, whether it is
// optional, and whether the field takes part at all.
func tagOf(rt reflect.Type, sf reflect.StructField) (name string, optional, ok bool, err error) {
	tag, tagged := sf.Tag.Lookup("nwb")
	if !tagged || tag == "-" {
		return "", false, false, nil
	}
	name, opts, _ := strings.Cut(tag, ",")
	for o := range strings.SplitSeq(opts, ",") {
		switch o {
		case "":
		case "optional":
			optional = true
		default:
			return "", false, false, fmt.Errorf("nwb: field %s.%s: tag %q has unknown option %q", typeName(rt), sf.Name, tag, o)
		}
	}
	switch {
	case name == "":
		return "", false, false, fmt.Errorf("nwb: field %s.%s: tag %q names no column", typeName(rt), sf.Name, tag)
	case !sf.IsExported():
		return "", false, false, fmt.Errorf("nwb: field %s.%s is tagged %q but not exported", typeName(rt), sf.Name, tag)
	}
	for v, i := rt, 0; i < len(sf.Index)-1; i++ {
		if v = v.Field(sf.Index[i]).Type; v.Kind() == reflect.Pointer {
			return "", false, false, fmt.Errorf("nwb: field %s.%s is promoted through an embedded pointer, which Rows does not allocate", typeName(rt), sf.Name)
		}
	}
	return name, optional, true, nil
}

// typeError is the error for a field whose type cannot hold what it reads.
func (b binding) typeError(what string, err error) error {
	return fmt.Errorf("nwb: %s into field %s.%s (%s): %w", what, typeName(b.typ), b.field.Name, typeName(b.field.Type), unprefixed{err})
}

// typeName names a type for a message: an unnamed struct type is
// "struct{…}", not its fields and tags.
func typeName(t reflect.Type) string {
	switch {
	case t.Name() != "":
		return t.String()
	case t.Kind() == reflect.Slice:
		return "[]" + typeName(t.Elem())
	case t.Kind() == reflect.Array:
		return fmt.Sprintf("[%d]%s", t.Len(), typeName(t.Elem()))
	case t.Kind() == reflect.Pointer:
		return "*" + typeName(t.Elem())
	case t.Kind() == reflect.Struct:
		return "struct{…}"
	}
	return t.String()
}

// decode reads rows [start, stop) of b's column into b's field of each
// element of out, a []T.
func (b binding) decode(ctx context.Context, t *Table, start, stop int, out reflect.Value) error {
	var cells []any
	if b.col == nil {
		ids, err := t.IDs(ctx, start, stop)
		if err != nil {
			return err
		}
		cells = make([]any, len(ids))
		for i, id := range ids {
			cells[i] = id
		}
	} else {
		var err error
		if cells, err = b.col.Cells(ctx, start, stop); err != nil {
			return err
		}
	}
	for i, v := range cells {
		if err := assign(out.Index(i).FieldByIndex(b.field.Index), v); err != nil {
			what := fmt.Sprintf("row %d of %s", start+i, t.Path()+"/id")
			if b.col != nil {
				what = fmt.Sprintf("row %d of %s", start+i, b.col.data.Path())
			}
			return b.typeError(what, err)
		}
	}
	return nil
}

var (
	refType    = reflect.TypeFor[h5.Reference]()
	fieldsType = reflect.TypeFor[[]Field]()
)

// fits checks that a value of type ty can hold a cell of dtype dt nested
// levels deep (ragged levels, then the data's dimensions after the first),
// returning an error (wrapping h5.ErrType) that says why not.
func fits(ty reflect.Type, dt zarrmeta.DType, levels int) error {
	for ; levels > 0; levels-- {
		switch ty.Kind() {
		case reflect.Interface:
			return nil
		case reflect.Slice, reflect.Array:
			if ty == fieldsType {
				return fmt.Errorf("%w: a []Field holds one compound cell, not a list", h5.ErrType)
			}
			ty = ty.Elem()
		default:
			return fmt.Errorf("%w: cells are lists %d deep; %s is not a slice or array", h5.ErrType, levels, typeName(ty))
		}
	}
	k := ty.Kind()
	ok := false
	switch dt.Kind {
	case zarrmeta.KindInt, zarrmeta.KindUint, zarrmeta.KindFloat:
		ok = reflect.Int <= k && k <= reflect.Float64
	case zarrmeta.KindBool:
		ok = k == reflect.Bool
	case zarrmeta.KindBytes, zarrmeta.KindUnicode:
		ok = k == reflect.String
	case zarrmeta.KindReference:
		ok = ty == refType || k == reflect.String
	case zarrmeta.KindObject:
		ok = ty == refType || k == reflect.String // strings or references, as stored
	case zarrmeta.KindStruct:
		if ty == fieldsType {
			return nil
		}
		if k == reflect.Struct {
			return fitsCompound(ty, dt)
		}
	}
	if !ok && k != reflect.Interface {
		return fmt.Errorf("%w: elements of dtype %s do not go into %s", h5.ErrType, dt, typeName(ty))
	}
	return nil
}

// fitsCompound checks a struct type against a compound dtype: each tagged
// field names one of its fields and can hold it.
func fitsCompound(ty reflect.Type, dt zarrmeta.DType) error {
	for _, sf := range reflect.VisibleFields(ty) {
		name, optional, ok, err := tagOf(ty, sf)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		f, found := dt.Field(name)
		if !found {
			if optional {
				continue
			}
			return fmt.Errorf("%w: field %s.%s is tagged %q, which compound %s does not have", h5.ErrType, typeName(ty), sf.Name, name, dt)
		}
		if err := fits(sf.Type, f.DType, len(f.Shape)); err != nil {
			return fmt.Errorf("%w (field %s.%s)", err, typeName(ty), sf.Name)
		}
	}
	return nil
}

// assign stores cell v, as Column.Cells gives it, in dst, converting it by
// the rules of Rows; a nil v (an object array's null) leaves dst alone.
func assign(dst reflect.Value, v any) error {
	if v == nil {
		return nil
	}
	if dst.Kind() == reflect.Interface {
		rv := reflect.ValueOf(v)
		if !rv.Type().AssignableTo(dst.Type()) {
			return fmt.Errorf("%w: %T does not go into %s", h5.ErrType, v, typeName(dst.Type()))
		}
		dst.Set(rv)
		return nil
	}
	switch x := v.(type) {
	case int64, uint64, float64:
		return setNumber(dst, x)
	case bool:
		if dst.Kind() == reflect.Bool {
			dst.SetBool(x)
			return nil
		}
	case string:
		if dst.Kind() == reflect.String {
			dst.SetString(x)
			return nil
		}
	case h5.Reference:
		if dst.Type() == refType {
			dst.Set(reflect.ValueOf(x))
			return nil
		}
		if dst.Kind() == reflect.String {
			dst.SetString(x.Path)
			return nil
		}
	case []Field:
		if dst.Type() == fieldsType {
			dst.Set(reflect.ValueOf(x))
			return nil
		}
		if dst.Kind() == reflect.Struct {
			return assignCompound(dst, x)
		}
	case []any:
		return assignList(dst, x)
	}
	return fmt.Errorf("%w: %T %v does not go into %s", h5.ErrType, v, v, typeName(dst.Type()))
}

// assignList stores a list cell in a slice or array.
func assignList(dst reflect.Value, x []any) error {
	switch dst.Kind() {
	case reflect.Slice:
		dst.Set(reflect.MakeSlice(dst.Type(), len(x), len(x)))
	case reflect.Array:
		if dst.Len() != len(x) {
			return fmt.Errorf("%w: a list of %d elements does not go into %s", h5.ErrType, len(x), typeName(dst.Type()))
		}
	default:
		return fmt.Errorf("%w: a list does not go into %s", h5.ErrType, typeName(dst.Type()))
	}
	for i, e := range x {
		if err := assign(dst.Index(i), e); err != nil {
			return fmt.Errorf("%w (element %d)", err, i)
		}
	}
	return nil
}

// assignCompound stores a compound cell in a struct by its fields' tags.
func assignCompound(dst reflect.Value, fields []Field) error {
	ty := dst.Type()
	for _, sf := range reflect.VisibleFields(ty) {
		name, _, ok, err := tagOf(ty, sf)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		for _, f := range fields {
			if f.Name == name {
				if err := assign(dst.FieldByIndex(sf.Index), f.Value); err != nil {
					return fmt.Errorf("%w (field %q)", err, name)
				}
			}
		}
	}
	return nil
}

// setNumber stores an int64, uint64 or float64 in a numeric field that holds
// its value: no wrapping, no fractions into integers.
func setNumber(dst reflect.Value, v any) error {
	k := dst.Kind()
	switch {
	case reflect.Int <= k && k <= reflect.Int64:
		var n int64
		switch x := v.(type) {
		case int64:
			n = x
		case uint64:
			if x > math.MaxInt64 {
				return outOfRange(v, dst)
			}
			n = int64(x)
		case float64:
			if x != math.Trunc(x) {
				return notWhole(x, dst)
			}
			if !(x >= -(1<<63) && x < 1<<63) {
				return outOfRange(v, dst)
			}
			n = int64(x)
		}
		if dst.OverflowInt(n) {
			return outOfRange(v, dst)
		}
		dst.SetInt(n)
	case reflect.Uint <= k && k <= reflect.Uintptr:
		var n uint64
		switch x := v.(type) {
		case int64:
			if x < 0 {
				return outOfRange(v, dst)
			}
			n = uint64(x)
		case uint64:
			n = x
		case float64:
			if x != math.Trunc(x) {
				return notWhole(x, dst)
			}
			if !(x >= 0 && x < 1<<64) {
				return outOfRange(v, dst)
			}
			n = uint64(x)
		}
		if dst.OverflowUint(n) {
			return outOfRange(v, dst)
		}
		dst.SetUint(n)
	case k == reflect.Float32 || k == reflect.Float64:
		var f float64
		switch x := v.(type) {
		case int64:
			f = float64(x)
		case uint64:
			f = float64(x)
		case float64:
			f = x
		}
		if !math.IsInf(f, 0) && dst.OverflowFloat(f) {
			return outOfRange(v, dst)
		}
		dst.SetFloat(f)
	default:
		return fmt.Errorf("%w: %T %v does not go into %s", h5.ErrType, v, v, typeName(dst.Type()))
	}
	return nil
}

func outOfRange(v any, dst reflect.Value) error {
	return fmt.Errorf("%w: %v does not fit in %s", h5.ErrType, v, typeName(dst.Type()))
}

func notWhole(x float64, dst reflect.Value) error {
	return fmt.Errorf("%w: %v is not a whole number, as %s needs", h5.ErrType, x, typeName(dst.Type()))
}
