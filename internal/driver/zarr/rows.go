package zarr

import (
	"fmt"

	"github.com/lindigo/lindi/internal/driver"
	"github.com/lindigo/lindi/zarrmeta"
)

// packRow writes one JSON row (a list with an item per field) as an element of dt.
func packRow(dst []byte, dt zarrmeta.DType, row any) error {
	items, ok := row.([]any)
	if !ok || len(items) != len(dt.Fields) {
		return fmt.Errorf("%w: compound row %v does not have %d fields", driver.ErrFormat, row, len(dt.Fields))
	}
	for i, f := range dt.Fields {
		if err := f.DType.EncodeValue(dst[f.Offset:f.Offset+f.DType.Size], items[i]); err != nil {
			return fmt.Errorf("%w: field %q: %w", driver.ErrFormat, f.Name, err)
		}
	}
	return nil
}
