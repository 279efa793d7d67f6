# The dask anchor of beam/bench/run.sh: per-column mean, std, min and max of an HDF5 dataset read by h5py over fsspec (HTTP), dask chunks = the HDF5 chunks.
import sys, time, json, fsspec, h5py, dask.array as da, numpy as np
url, name = sys.argv[1], sys.argv[2]
fs = fsspec.filesystem("http")
with fs.open(url, "rb", block_size=8 << 20) as fh:
    with h5py.File(fh, "r") as f:
        d = f[name]
        a = da.from_array(d, chunks=d.chunks)
        a64 = a.astype("f8")
        mean, std, mn, mx = da.compute(a64.mean(axis=0), a64.std(axis=0), a.min(axis=0), a.max(axis=0))
print(json.dumps({"mean0": float(mean[0]), "std0": float(std[0]), "min0": int(mn[0]), "max0": int(mx[0])}))
