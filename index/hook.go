package index

import (
	"context"

	"github.com/lindigo/lindi/hdf5"
	hdf5drv "github.com/lindigo/lindi/internal/driver/hdf5"
)

// The HDF5 driver gives an opened HDF5 file's document (h5.File.Document,
// and so h5.CreateFrom and lindi cp) through this package.
func init() {
	hdf5drv.Index = func(ctx context.Context, f *hdf5.File, url string) ([]byte, error) {
		return Build(ctx, f, WithURL(url))
	}
}
