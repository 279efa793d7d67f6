package h5

// The container formats Open reads: each registers its driver. A driver says
// Yes only to what its content proves (a signature, a lindi.json, a .zgroup),
// so the order matters only among Maybes, tried in registration order, which
// is initialisation order: HDF5 (whose superblock may follow a user block)
// first, then Zarr, then the LINDI containers (which build on the Zarr driver,
// so it initialises first). A URL that is neither HDF5 nor JSON nor a tar is
// tried as a Zarr store, then as a .lindi.d. Package index gives the HDF5
// driver the LINDI document of an HDF5 file (File.Document). Package dandi
// locates DANDI addresses (a source.Locator).
import (
	_ "github.com/lindigo/lindi/dandi"
	_ "github.com/lindigo/lindi/index"
	_ "github.com/lindigo/lindi/internal/driver/hdf5"
	_ "github.com/lindigo/lindi/internal/driver/lindi"
	_ "github.com/lindigo/lindi/internal/driver/zarr"
	_ "github.com/lindigo/lindi/internal/driver/zarr3"
)
