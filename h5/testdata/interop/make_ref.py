#!/usr/bin/python3
"""Writes ref.h5 with h5py: the content h5/interop_test.go's writeInterop
writes through lindi-go (without the zstd and lz4 datasets Python lindi cannot read), so that lindi_dump.py ref.h5 --compare ours.lindi.json says whether
Python lindi reads our file as h5py reads the same content. usage: make_ref.py DIR"""
import sys, math
import numpy as np
import h5py


def make(path):
    with h5py.File(path, "w") as f:
        g = f.create_group("g")
        x = (np.arange(50 * 7) * 13 - 900).astype("<i2").reshape(50, 7)
        x[10:20:3, ::2] = (-1 - np.arange(16)).reshape(4, 4)
        d = g.create_dataset("x", data=x, chunks=(16, 7))
        f.attrs["s"] = "hello"
        f.attrs["i"] = 3
        f.attrs["fl"] = 30000.0
        f.attrs["nan"] = float("nan")
        f.attrs["inf"] = float("-inf")
        f.attrs["b"] = True
        f.attrs["arr"] = [1, 2, 3]
        f.attrs["farr"] = [1.5, 2.5]
        f.attrs["strlist"] = ["a", "b"]
        f.attrs["m2"] = [[1, 2], [3, 4]]
        f.attrs["ref"] = d.ref
        g.attrs["description"] = "a group"
        d.attrs["unit"] = "mV"
        d.attrs["conversion"] = 1.0
        ramp = (np.arange(3000) * 37 % 1001 - 500) + 0.25
        for codec in ["blosc_lz4", "blosc_lz4hc", "blosc_zstd", "blosc_zlib", "zlib", "gzip", "none"]:
            g.create_dataset("codec_" + codec, data=ramp)
        g.create_dataset("f4", data=np.array([1.5, -2, np.inf, 3.25], dtype="<f4"))
        g.create_dataset("u1", data=np.array([0, 1, 255], dtype="u1"))
        g.create_dataset("u8", data=np.array([0, 2**64 - 1], dtype="<u8"))
        g.create_dataset("i8", data=np.array([-2**63, 5], dtype="<i8"))
        g.create_dataset("bool", data=np.array([True, False, True]))
        f.create_dataset("scalar", data=2.5)
        f.create_dataset("strs", data=["a", "é", "", "a longer string"], dtype=h5py.string_dtype())
        f.create_dataset("fixed", data=np.array([b"ab", b"cdefg"], dtype="S5"))
        f.create_dataset("refs", data=[d.ref, g.ref], dtype=h5py.ref_dtype)
        f.create_dataset("unwritten", shape=(5,), dtype="<f8", fillvalue=7.5)
        ct = np.dtype([("idx_start", "<i4"), ("count", "<i4"), ("timeseries", h5py.ref_dtype)])
        c = f.create_dataset("compound", shape=(3,), dtype=ct)
        c[0] = (0, 5, d.ref)
        c[1] = (5, 2, d.ref)
        c[2] = (7, 1, g.ref)
        f["link"] = h5py.SoftLink("/g/x")


make(sys.argv[1] + "/ref.h5")
