#!/usr/bin/python3
"""Writes shapes.h5: the numbers and shapes `lindi index` must carry over so
that Python lindi and lindi-go read its JSON as h5py reads the file.

  attributes  whole-number floats (30000.0, -1.0, -0.0), 1e-05, 1.5e+20, float32,
              NaN/±Inf, float arrays of whole numbers, 2-D float and int arrays,
              a string holding JSON text
  datasets    2-D and 3-D variable-length strings, 2-D fixed-length strings,
              2-D object references, a 1-D compound with NaN and a reference,
              complex numbers (inline and chunked), a float dataset whose
              fill value is NaN with unwritten chunks, a complex fill value

Run with Debian's python3-h5py: /usr/bin/python3 index/testdata/gen_shapes.py
(from the repository root).
"""
import os
import numpy as np
import h5py

out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "shapes.h5")
with h5py.File(out, "w", track_order=False) as f:
    a = f.attrs
    a["rate"] = 30000.0
    a["neg"] = -1.0
    a["negzero"] = -0.0
    a["tiny"] = 1e-05
    a["huge"] = 1.5e20
    a["f32"] = np.float32(0.1)
    a["nan"] = np.nan
    a["inf"] = np.inf
    a["ninf"] = -np.inf
    a["count"] = 30000
    a["whole_floats"] = np.array([1.0, 2.0, 3.0])
    a["with_nan"] = np.array([1.0, np.nan, -np.inf])
    a["grid_f"] = np.array([[1.0, 2.0], [3.0, 4.5]])
    a["grid_i"] = np.array([[1, 2, 3], [4, 5, 6]], dtype="i8")
    a["json_text"] = '{"a": 1, "b": [true, null]}'
    s = h5py.string_dtype()
    f.create_dataset("strings2d", data=np.array([["a", "bb", "ccc"], ["dé", "", "f"]], dtype=object), dtype=s)
    f.create_dataset("strings3d", data=np.array([[["a", "b"]], [["c", "d"]]], dtype=object), dtype=s)
    f.create_dataset("fixed2d", data=np.array([[b"ab", b"c"], [b"", b"def"]], dtype="S3"))
    x = f.create_dataset("x", data=np.arange(3.0))
    y = f.create_dataset("y", data=np.arange(4, dtype="i2"))
    refs = f.create_dataset("refs2d", shape=(2, 2), dtype=h5py.ref_dtype)
    refs[0, 0], refs[0, 1], refs[1, 0], refs[1, 1] = x.ref, y.ref, f.ref, x.ref
    ct = np.dtype([("start", "<i4"), ("value", "<f8"), ("target", h5py.ref_dtype)])
    rows = np.array([(0, 1.0, x.ref), (3, np.nan, y.ref), (7, -2.5, x.ref)], dtype=ct)
    f.create_dataset("table", data=rows)
    f.create_dataset("complex_small", data=np.array([[1 + 2j, 3 - 4j], [0j, -1.5j]], dtype="c16"))
    big = (np.arange(3000) + 1j * np.arange(3000)[::-1]).astype("c8")
    f.create_dataset("complex_chunked", data=big, chunks=(500,), compression="gzip")
    nanfill = f.create_dataset("nan_fill", shape=(2000,), chunks=(100,), dtype="f8", fillvalue=np.nan)
    nanfill[:150] = np.arange(150.0)
    cfill = f.create_dataset("complex_fill", shape=(1200,), chunks=(100,), dtype="c16", fillvalue=2 - 3j)
    cfill[:100] = 1j
