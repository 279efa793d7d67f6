package h5

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/lindigo/lindi/internal/engine"
	"github.com/lindigo/lindi/selection"
	"github.com/lindigo/lindi/zarrmeta"
)

// ReferenceDType is the dtype of a compound field holding object
// references (Compound).
var ReferenceDType = zarrmeta.DType{Kind: zarrmeta.KindReference, Size: 8}

// Compound returns the dtype of compound rows with the given field names
// and dtypes: numbers, bool, ReferenceDType, or ObjectDType for a string
// field. A dataset of it (CreateDataset) is stored as LINDI stores an HDF5
// compound: JSON rows with _COMPOUND_DTYPE; WriteRows writes its rows.
func Compound(names []string, types []zarrmeta.DType) (zarrmeta.DType, error) {
	if len(names) != len(types) || len(names) == 0 {
		return zarrmeta.DType{}, fmt.Errorf("%w: a compound needs as many field types as names, and a field", ErrType)
	}
	d := zarrmeta.DType{Kind: zarrmeta.KindStruct}
	seen := map[string]bool{}
	for i, name := range names {
		if name == "" || seen[name] {
			return zarrmeta.DType{}, fmt.Errorf("%w: compound field name %q is empty or repeated", ErrType, name)
		}
		seen[name] = true
		if _, err := compoundTypeName(types[i]); err != nil {
			return zarrmeta.DType{}, err
		}
		d.Fields = append(d.Fields, zarrmeta.Field{Name: name, DType: types[i], Offset: d.Size})
		d.Size += types[i].Size
	}
	return d, nil
}

// compoundTypeName is a field's type as _COMPOUND_DTYPE names it.
func compoundTypeName(dt zarrmeta.DType) (string, error) {
	switch dt.Kind {
	case zarrmeta.KindReference:
		return zarrmeta.ReferenceTypeName, nil
	case zarrmeta.KindObject:
		return "object", nil
	case zarrmeta.KindBool:
		return "bool", nil
	case zarrmeta.KindInt, zarrmeta.KindUint, zarrmeta.KindFloat:
		if dt.Order == zarrmeta.BigEndian {
			break
		}
		prefix := map[zarrmeta.Kind]string{zarrmeta.KindInt: "int", zarrmeta.KindUint: "uint", zarrmeta.KindFloat: "float"}[dt.Kind]
		return prefix + strconv.Itoa(8*dt.Size), nil
	}
	return "", fmt.Errorf("%w: a compound field of dtype %s cannot be stored (numbers, bool, references, strings)", ErrType, dt)
}

// compoundSpec is _COMPOUND_DTYPE for dt.
func compoundSpec(dt zarrmeta.DType) ([][2]string, error) {
	var out [][2]string
	for _, f := range dt.Fields {
		name, err := compoundTypeName(f.DType)
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", f.Name, err)
		}
		out = append(out, [2]string{f.Name, name})
	}
	return out, nil
}

// WriteRows writes rows, the elements of the selection sel of d (a dataset
// of a Compound dtype) in C order: one value per field, in field order
// (a Go number for a number field, exactly representable; bool; a
// Reference; a string for a string field).
func WriteRows(ctx context.Context, d *Dataset, sel selection.Selection, rows [][]any) error {
	if err := writeRows(ctx, d, sel, rows); err != nil {
		return fmt.Errorf("h5: write %s[%s]: %w", d.path, sel, err)
	}
	return nil
}

func writeRows(ctx context.Context, d *Dataset, sel selection.Selection, rows [][]any) error {
	dt := d.d.DType
	if dt.Kind != zarrmeta.KindStruct {
		return fmt.Errorf("%w: rows into a dataset of dtype %s", ErrType, dt)
	}
	w, err := d.startWrite(ctx, sel)
	if err != nil {
		return err
	}
	if !w.a.Objects {
		return fmt.Errorf("%w: this compound dataset is not stored as rows (_COMPOUND_DTYPE)", ErrType)
	}
	if len(rows) != w.n {
		return fmt.Errorf("%d rows for a selection of shape %v (%d elements)", len(rows), w.shape, w.n)
	}
	items := make([]any, len(rows))
	for i, row := range rows {
		if len(row) != len(dt.Fields) {
			return fmt.Errorf("row %d has %d values for %d fields", i, len(row), len(dt.Fields))
		}
		out := make([]any, len(row))
		for j, v := range row {
			f := dt.Fields[j]
			x, err := rowValue(ctx, w, f.DType, v)
			if err != nil {
				return fmt.Errorf("row %d, field %q: %w", i, f.Name, err)
			}
			out[j] = x
		}
		items[i] = out
	}
	if w.points != nil {
		return d.writePoints(ctx, w, w.points, nil, items)
	}
	return d.f.failIf(engine.WriteObjects(ctx, w.a, w.stored, items, w.opt))
}

// rowValue is the JSON item of a field value.
func rowValue(ctx context.Context, w *datasetWrite, dt zarrmeta.DType, v any) (any, error) {
	switch dt.Kind {
	case zarrmeta.KindReference:
		r, ok := v.(Reference)
		if !ok {
			return nil, fmt.Errorf("%w: %T for a reference field", ErrType, v)
		}
		return w.ed.RefItem(ctx, r.Path)
	case zarrmeta.KindObject:
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("%w: %T for a string field", ErrType, v)
		}
		return s, nil
	case zarrmeta.KindBool:
		b, ok := v.(bool)
		if !ok {
			return nil, fmt.Errorf("%w: %T for a bool field", ErrType, v)
		}
		return b, nil
	case zarrmeta.KindFloat:
		f, err := floatValue(v)
		if err != nil {
			return nil, err
		}
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return zarrmeta.NonFiniteName(f), nil
		}
		return f, nil
	case zarrmeta.KindInt:
		i, err := exactInt(v)
		if err != nil {
			return nil, err
		}
		if bits := 8 * dt.Size; bits < 64 && (i < -(1<<(bits-1)) || i >= 1<<(bits-1)) {
			return nil, fmt.Errorf("%d does not fit %s", i, dt)
		}
		return i, nil
	case zarrmeta.KindUint:
		u, err := exactUint(v)
		if err != nil {
			return nil, err
		}
		if bits := 8 * dt.Size; bits < 64 && u >= 1<<bits {
			return nil, fmt.Errorf("%d does not fit %s", u, dt)
		}
		return u, nil
	}
	return nil, fmt.Errorf("%w: field dtype %s", ErrType, dt)
}
