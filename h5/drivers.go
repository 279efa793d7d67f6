package h5

import (
	"context"

	"github.com/lindigo/lindi/internal/driver"
	hdf5drv "github.com/lindigo/lindi/internal/driver/hdf5"
	"github.com/lindigo/lindi/internal/driver/lindi"
	"github.com/lindigo/lindi/internal/driver/zarr"
	"github.com/lindigo/lindi/internal/driver/zarr3"
)

// This file is the one place that names the container formats.
//
// drivers are the formats Open reads, in the order they are tried. A driver
// says Yes only to what its content proves (a signature, a lindi.json, a
// .zgroup), so the order matters only among Maybes: HDF5 (whose superblock
// may follow a user block) first, then a Zarr v2 store, then a .lindi.d,
// then a Zarr v3 store. A URL that is neither HDF5 nor JSON nor a tar is
// thus tried as a Zarr v2 store, then as a .lindi.d, then as Zarr v3.
var drivers = []driver.Driver{
	hdf5drv.Driver{},
	zarr.LINDIDriver{},
	zarr.Driver{},
	lindi.TarDriver{},
	lindi.DirDriver{},
	zarr3.Driver{},
}

// containers are the formats Create and OpenWrite write, each claiming
// names by their suffix.
var containers = lindi.Containers()

// hdf5Datasets reads the HDF5 datasets LINDI's _EXTERNAL_ARRAY_LINK names.
var hdf5Datasets driver.DatasetOpener = hdf5drv.Driver{}

// openEditor builds the editor of doc, a LINDI document, for the container
// sink was opened on: every writable container is LINDI, whose tree the
// Zarr driver owns.
func openEditor(ctx context.Context, env *driver.Env, name string, doc []byte, sink driver.Sink, fresh bool) (*driver.Group, driver.Editor, error) {
	return zarr.OpenEditor(ctx, env, name, doc, sink, fresh)
}
