package index

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/lindigo/lindi/hdf5"
	"github.com/lindigo/lindi/zarrmeta"
)

// datatype indexes a committed datatype, which Zarr has no object for, as a
// group marked _DATATYPE (zarrmeta.AttrDatatype) holding its dtype and enum
// members beside its attributes.
func (b *builder) datatype(ctx context.Context, nt *hdf5.NamedType, key string) error {
	attrs, err := b.attrs(ctx, nt)
	if err != nil {
		return err
	}
	c, err := committedType(nt.Type)
	if err != nil {
		return fmt.Errorf("index: %s: %w", nt.Path(), err)
	}
	attrs[zarrmeta.AttrDatatype] = c
	b.put(key+"/.zattrs", attrs)
	b.put(key+"/.zgroup", zgroup)
	return nil
}

// committedType describes t as the _DATATYPE marker does: the numpy dtype a
// dataset of t has (h5py's complex numbers as zarr's complex dtypes), or
// why it has none.
func committedType(t *hdf5.Datatype) (zarrmeta.CommittedType, error) {
	descr, err := t.NumpyDescr()
	if c, ok := complexDescr(t); ok {
		descr, err = c, nil
	}
	if err != nil {
		return zarrmeta.CommittedType{Unreadable: err.Error()}, nil
	}
	raw := json.RawMessage(descr)
	if descr[0] != '[' {
		raw, _ = json.Marshal(descr)
	}
	dt, err := zarrmeta.ParseDType(raw)
	if err != nil {
		return zarrmeta.CommittedType{}, err
	}
	return zarrmeta.CommittedType{DType: dt, Enum: t.EnumValues()}, nil
}
