"""Write a zarrshadow reference store of an HDF5 file, in both of its forms.

zarrshadow (formerly zindi, github.com/bendichter/zarrshadow) shadows an HDF5
file as a Zarr v3 hierarchy: metadata and chunk refs in a kerchunk-style
reference document. This script writes what its write_rfs writes, from its
README and builder.py, with h5py and numcodecs (Debian's python3-h5py and
python3-numcodecs; zarr 3 is not packaged):

- data.h5: an HDF5 file with a chunked, deflated int16 dataset of 100 x 30 =
  3000 chunks (more than zarrshadow's threshold of 1000), the last 15 rows of
  its chunk grid never written, and a small float64 dataset of 10 chunks.
- shadow.zindi/: the directory form. refs.json (version 2) lists the small
  dataset's chunks and gives the large one an entry in "indexes"; its chunk
  index is the Zarr v3 array index/acquisition/ts/data (uint64, shape
  (100, 30, 2), (offset, nbytes) per chunk, 2**64-1 for the missing), blosc
  zstd with byte shuffle. zarrshadow blocks the index by 65,536 entries;
  here by 512 (block shape (17, 30, 2)), so that 6 blocks cover the grid and
  the last, all missing, is not written (zarr 3 skips chunks equal to the
  fill value).
- shadow.json: the single-file form (version 1), every chunk in refs.
- expected.json: values read with h5py, for the tests.

Run from this directory: python3 gen.py
"""

import base64
import json
import os
import shutil

import h5py
import numcodecs
import numpy as np

MISSING = np.iinfo(np.uint64).max
BLOCK_ENTRIES = 512

rng = np.random.default_rng(22)

# --- the HDF5 file --------------------------------------------------------
with h5py.File("data.h5", "w") as f:
    f.attrs["session_description"] = "zarrshadow fixture"
    ts = f.create_group("acquisition/ts")
    ts.attrs["neurodata_type"] = "TimeSeries"
    d = ts.create_dataset("data", shape=(1000, 30), dtype="<i2", chunks=(10, 1),
                          compression="gzip", compression_opts=4, fillvalue=-7)
    d[:850] = rng.integers(-3000, 3000, size=(850, 30), dtype=np.int16)
    d.attrs["unit"] = "volts"
    t = ts.create_dataset("timestamps", data=np.arange(1000) / 30000.0, chunks=(100,))

# --- chunk locations, as h5py tells them ---------------------------------
def chunks(dset):
    out = {}
    for i in range(dset.id.get_num_chunks()):
        info = dset.id.get_chunk_info(i)
        coords = tuple(o // c for o, c in zip(info.chunk_offset, dset.chunks))
        out[coords] = (info.byte_offset, info.size)
    return out

with h5py.File("data.h5", "r") as f:
    data_chunks = chunks(f["acquisition/ts/data"])
    time_chunks = chunks(f["acquisition/ts/timestamps"])
    values = f["acquisition/ts/data"][...]
    times = f["acquisition/ts/timestamps"][...]

# Relative to the reference document: shadow.json is beside data.h5,
# shadow.zindi/refs.json one directory below.
URL = "data.h5"
DIR_URL = "../data.h5"

def group(attrs):
    return {"zarr_format": 3, "node_type": "group", "attributes": attrs}

def array(shape, dtype, chunk_shape, codecs, fill, attrs):
    return {
        "zarr_format": 3, "node_type": "array", "shape": list(shape), "data_type": dtype,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": list(chunk_shape)}},
        "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
        "fill_value": fill, "codecs": codecs, "attributes": attrs, "storage_transformers": [],
    }

def dumps(meta):
    return json.dumps(meta, separators=(",", ":"))

zlib = [{"name": "bytes", "configuration": {"endian": "little"}},
        {"name": "numcodecs.zlib", "configuration": {"level": 4}}]
raw = [{"name": "bytes", "configuration": {"endian": "little"}}]

refs = {
    "zarr.json": dumps(group({"session_description": "zarrshadow fixture"})),
    "acquisition/zarr.json": dumps(group({})),
    "acquisition/ts/zarr.json": dumps(group({"neurodata_type": "TimeSeries"})),
    "acquisition/ts/data/zarr.json": dumps(array((1000, 30), "int16", (10, 1), zlib, -7,
                                                 {"unit": "volts", "_DTYPE": "int16"})),
    "acquisition/ts/timestamps/zarr.json": dumps(array((1000,), "float64", (100,), raw, 0.0,
                                                       {"_DTYPE": "float64"})),
}
for (i,), (off, n) in time_chunks.items():
    refs[f"acquisition/ts/timestamps/c/{i}"] = [URL, off, n]

grid = (100, 30)
index = np.full(grid + (2,), MISSING, dtype=np.uint64)
for (i, j), (off, n) in data_chunks.items():
    index[i, j] = (off, n)

sources = {URL: {"size": os.path.getsize("data.h5")}}

# --- the directory form ----------------------------------------------------
def block_shape(grid):
    block, remaining = [1] * len(grid), BLOCK_ENTRIES
    for i in reversed(range(len(grid))):
        block[i] = max(1, min(grid[i], remaining))
        remaining //= block[i]
        if remaining <= 1:
            break
    return block

shutil.rmtree("shadow.zindi", ignore_errors=True)
os.makedirs("shadow.zindi")
path = "acquisition/ts/data"
# zarrshadow names a URL used five times or more by a template.
dir_refs = {k: ["{{u0}}"] + v[1:] if isinstance(v, list) else v for k, v in refs.items()}
doc = {"version": 2, "refs": dir_refs, "templates": {"u0": DIR_URL}, "sources": {DIR_URL: sources[URL]},
       "indexes": {path: {"url": DIR_URL, "index": f"index/{path}"}}}
with open("shadow.zindi/refs.json", "w") as f:
    json.dump(doc, f, indent=2, sort_keys=True)

block = block_shape(grid)
idx_dir = os.path.join("shadow.zindi", "index", path)
os.makedirs(idx_dir)
blosc = numcodecs.Blosc(cname="zstd", clevel=5, shuffle=numcodecs.Blosc.SHUFFLE)
meta = array(index.shape, "uint64", block + [2],
             [{"name": "bytes", "configuration": {"endian": "little"}},
              {"name": "blosc", "configuration": {"cname": "zstd", "clevel": 5, "shuffle": "shuffle",
                                                  "typesize": 8, "blocksize": 0}}],
             int(MISSING), {})
with open(os.path.join(idx_dir, "zarr.json"), "w") as f:
    json.dump(meta, f, indent=2)
written = 0
for bi in range(-(-grid[0] // block[0])):
    for bj in range(-(-grid[1] // block[1])):
        full = np.full(tuple(block) + (2,), MISSING, dtype="<u8")
        part = index[bi * block[0]:(bi + 1) * block[0], bj * block[1]:(bj + 1) * block[1]]
        full[:part.shape[0], :part.shape[1]] = part
        if (full == MISSING).all():
            continue  # zarr 3 does not write a chunk equal to the fill value
        os.makedirs(os.path.join(idx_dir, "c", str(bi), str(bj)), exist_ok=True)
        with open(os.path.join(idx_dir, "c", str(bi), str(bj), "0"), "wb") as f:
            f.write(blosc.encode(full.tobytes()))
        written += 1

# --- the single-file form ----------------------------------------------------
v1 = dict(refs)
for (i, j), (off, n) in data_chunks.items():
    v1[f"{path}/c/{i}/{j}"] = [URL, off, n]
with open("shadow.json", "w") as f:
    json.dump({"version": 1, "refs": v1, "sources": sources}, f, indent=2, sort_keys=True)

# --- what h5py reads ------------------------------------------------------------
expected = {
    "index_blocks": [-(-grid[0] // block[0]), -(-grid[1] // block[1])],
    "index_blocks_written": written,
    "chunks_allocated": len(data_chunks),
    "data_sum": int(values.astype(np.int64).sum()),
    "data_rows_840_860_col_3": values[840:860, 3].tolist(),
    "data_row_5": values[5].tolist(),
    "data_col_29_step_97": values[::97, 29].tolist(),
    "timestamps_sum": float(times.sum()),
}
with open("expected.json", "w") as f:
    json.dump(expected, f, indent=1)
print(json.dumps({k: v for k, v in expected.items() if not isinstance(v, list)}))
