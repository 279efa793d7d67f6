package h5

// The container formats Open reads: each registers its driver. Drivers are
// consulted in registration order, which is import-path order: HDF5 (whose
// superblock may follow a user block) before Zarr over HTTP (the last resort
// for a URL).
import (
	_ "github.com/lindigo/lindi/internal/driver/hdf5"
	_ "github.com/lindigo/lindi/internal/driver/zarr"
)
