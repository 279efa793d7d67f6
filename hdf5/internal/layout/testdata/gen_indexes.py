"""Writes indexes.h5: small datasets that exercise every chunk index in
depth (paged fixed arrays, extensible arrays with super blocks and paged
data blocks, multi-level v2 B-trees, single-chunk and implicit indexes),
plus chunks.json.gz entries for it. Run with Debian's python3-h5py:
  /usr/bin/python3 gen_indexes.py && /usr/bin/python3 gen_chunks.py
The tests never run Python.
"""
import h5py
import numpy as np

with h5py.File("indexes.h5", "w", libver="latest") as f:
    # Fixed arrays: more than 1024 chunks, so the data block is paged;
    # the tail is left unwritten so some pages stay uninitialized.
    d = f.create_dataset("fa_paged", shape=(3000,), chunks=(1,), dtype="u1")
    d[:2500] = np.arange(2500) % 251
    d = f.create_dataset("fa_paged_gzip", shape=(1500,), chunks=(1,), dtype="u1", compression="gzip")
    d[::3] = 7
    # Pages 1 and 2 of 4 never written: their bitmap bits stay clear.
    d = f.create_dataset("fa_sparse", shape=(4000,), chunks=(1,), dtype="u1")
    d[5] = 1
    d[3500] = 2
    # Extensible arrays (one unlimited dimension): enough chunks for
    # super blocks and paged data blocks.
    d = f.create_dataset("ea_big", shape=(0, 3), maxshape=(None, 3), chunks=(1, 3), dtype="u1")
    d.resize((5000, 3))
    d[:4000] = 1
    d[4500:] = 2
    d = f.create_dataset("ea_gzip", shape=(0,), maxshape=(None,), chunks=(1,), dtype="u1", compression="gzip")
    d.resize((2200,))
    d[:] = 3
    # Unlimited second dimension. HDF5 1.10's H5Dget_chunk_info reports
    # wrong coordinates here, so every one-element chunk holds its own
    # linear index + 1, from which gen_chunks.py recovers its coordinates.
    d = f.create_dataset("ea_second_dim", shape=(4, 0), maxshape=(4, None), chunks=(1, 1), dtype="<u2")
    d.resize((4, 300))
    d[:, ::2] = (np.arange(1200).reshape(4, 300) + 1)[:, ::2]
    d.attrs["chunk_value_is_index"] = True
    # Version 2 B-trees (two unlimited dimensions): deep trees.
    d = f.create_dataset("bt2_big", shape=(0, 0), maxshape=(None, None), chunks=(1, 1), dtype="u1")
    d.resize((60, 60))
    d[:, :] = 4
    d = f.create_dataset("bt2_gzip", shape=(0, 0), maxshape=(None, None), chunks=(1, 1), dtype="u1", compression="gzip")
    d.resize((40, 40))
    d[::2, :] = 6
    # Ten dimensions make 88-byte records, so 600 chunks need a depth 2
    # tree (internal nodes with "total records" fields).
    shape = (1,) * 8 + (2, 300)
    d = f.create_dataset("bt2_deep", shape=(0,) * 10, maxshape=(None,) * 10, chunks=(1,) * 10, dtype="u1")
    d.resize(shape)
    d[...] = 9
    # Single chunk, unfiltered and filtered.
    f.create_dataset("single", data=np.arange(100, dtype="<i4").reshape(10, 10), chunks=(10, 10))
    f.create_dataset("single_gzip", data=np.arange(100, dtype="<i4").reshape(10, 10), chunks=(10, 10), compression="gzip")
    # Implicit index: early allocation, no filters.
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_chunk((5, 5))
    dcpl.set_alloc_time(h5py.h5d.ALLOC_TIME_EARLY)
    space = h5py.h5s.create_simple((20, 17))
    h5py.h5d.create(f.id, b"implicit", h5py.h5t.STD_I16LE, space, dcpl=dcpl)
    f["implicit"][:] = np.arange(340, dtype="<i2").reshape(20, 17)
    # Compact layout.
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_layout(h5py.h5d.COMPACT)
    space = h5py.h5s.create_simple((6,))
    h5py.h5d.create(f.id, b"compact", h5py.h5t.STD_U8LE, space, dcpl=dcpl)
    f["compact"][:] = np.arange(6, dtype="u1")
