#!/usr/bin/env python3
"""Writes the parity fixtures: small files that exercise where a reader of
h5py / LINDI / zarr files may differ from them.

  parity.h5, parity.lindi.json  the same objects in HDF5 and in LINDI JSON
                                (the JSON written here by LINDI's rules:
                                _SCALAR, _COMPOUND_DTYPE, _REFERENCE, json2
                                object arrays, "<U n" for a vlen string scalar)
  features.h5, ext-target.h5    HDF5 features: dimension scales, enums,
                                complex numbers, region references, filters,
                                maxshape, a compact dataset, external links
  broken.h5, raw.bin            one virtual and one external-storage dataset
                                beside a readable one
  dt.zarr                       numpy datetime64/timedelta64 arrays

Run with Debian's python3-h5py, python3-numpy and python3-zarr:
  /usr/bin/python3 testdata/parity/gen_parity.py   (from the repository root)
"""
import base64
import json
import os
import shutil

import h5py
import numpy as np
import zarr

HERE = os.path.dirname(os.path.abspath(__file__))


def path(name):
    return os.path.join(HERE, name)


def write_parity():
    with h5py.File(path("parity.h5"), "w", libver="earliest") as f:
        f.attrs["sweep_number"] = np.uint64(5)
        f.attrs["matrix"] = np.arange(6, dtype="i4").reshape(2, 3)
        f.attrs["cube"] = np.arange(8, dtype="f8").reshape(2, 2, 2) / 2
        f.attrs["f32"] = np.float32(0.1)
        f.attrs["u32s"] = np.array([1, 2, 3], dtype="u4")
        f.attrs["names"] = np.array(["a", "bb"], dtype=h5py.string_dtype())
        ts1 = f.create_dataset("acquisition/ts1/data", data=np.arange(5, dtype="f8"))
        ts2 = f.create_dataset("acquisition/ts2/data", data=np.arange(3, dtype="i2"))
        f["acquisition/ts1"].attrs["neurodata_type"] = "TimeSeries"
        ct = np.dtype([("idx_start", "i4"), ("count", "i4"), ("timeseries", h5py.ref_dtype)])
        rows = np.array([(0, 5, ts1.parent.ref), (5, 3, ts2.parent.ref), (8, 2, ts1.parent.ref), (10, 1, ts2.parent.ref)], dtype=ct)
        f.create_dataset("intervals/epochs/timeseries", data=rows)
        f.create_dataset("intervals/epochs/start_time", data=np.array([0.0, 1.5, 3.0, 4.5]))
        f.create_dataset("session_description", data="a parity fixture", dtype=h5py.string_dtype())
        f.create_dataset("misc/u16_scalar", data=np.uint16(9))
        f.create_dataset("misc/u64", data=np.array([1, 2, 2**63 + 1], dtype="u8"))


def b64(a):
    return "base64:" + base64.b64encode(np.ascontiguousarray(a).tobytes()).decode()


JSON2 = {"allow_nan": True, "check_circular": True, "encoding": "utf-8", "ensure_ascii": True, "id": "json2",
         "indent": None, "separators": [",", ":"], "skipkeys": False, "sort_keys": True, "strict": True}


def lindi_ref(f, ref):
    return {"_REFERENCE": {"object_id": None, "path": f[ref].name, "source": ".", "source_object_id": None}}


def lindi_attr(f, v):
    if isinstance(v, h5py.Reference):
        return lindi_ref(f, v)
    if isinstance(v, np.ndarray):
        return [lindi_attr(f, x) for x in v] if v.dtype.kind == "O" else v.tolist()
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, np.generic):
        return v.item()
    return v


def write_lindi():
    """Converts parity.h5 the way LINDI's h5_to_zarr does, chunks inline."""
    refs = {}
    with h5py.File(path("parity.h5"), "r") as f:
        def attrs(obj):
            return {k: lindi_attr(f, v) for k, v in obj.attrs.items()}

        def visit(name, obj):
            key = name
            if isinstance(obj, h5py.Group):
                refs[key + "/.zgroup"] = {"zarr_format": 2}
                refs[key + "/.zattrs"] = attrs(obj)
                return
            a = attrs(obj)
            data = obj[()]
            shape = list(obj.shape)
            if shape == []:
                a["_SCALAR"] = True
                shape = [1]
                data = np.array([data])
            meta = {"chunks": shape, "compressor": None, "fill_value": 0, "filters": None, "order": "C",
                    "shape": shape, "zarr_format": 2}
            if obj.dtype.kind == "V":
                a["_COMPOUND_DTYPE"] = [[n, "<REFERENCE>" if obj.dtype[n] == h5py.ref_dtype else str(obj.dtype[n])]
                                        for n in obj.dtype.names]
                items = [[lindi_ref(f, x) if isinstance(x, h5py.Reference) else x.item() for x in row] for row in data]
                meta.update(dtype="|O", filters=[JSON2])
                refs[key + "/0"] = json.dumps(items + ["|O", shape], separators=(",", ":"))
            elif obj.dtype.kind == "O" and obj.attrs.get("_SCALAR") is None and a.get("_SCALAR"):
                s = data[0].decode()
                meta.update(dtype="<U%d" % len(s), fill_value="")
                refs[key + "/0"] = b64(np.array([s], dtype="<U%d" % len(s)))
            else:
                meta["dtype"] = obj.dtype.str
                refs[key + "/" + ".".join("0" * len(shape))] = b64(data)
            refs[key + "/.zarray"] = meta
            refs[key + "/.zattrs"] = a

        refs[".zgroup"] = {"zarr_format": 2}
        refs[".zattrs"] = attrs(f)
        f.visititems(visit)
    with open(path("parity.lindi.json"), "w") as out:
        json.dump({"version": 1, "refs": refs}, out, indent=1, sort_keys=True)


def write_features():
    with h5py.File(path("ext-target.h5"), "w") as t:
        t.create_dataset("data", data=np.arange(4, dtype="i4"))
        t["back"] = h5py.ExternalLink("features.h5", "/ext_loop")
    with h5py.File(path("features.h5"), "w") as f:
        x = f.create_dataset("scales/x", data=np.array([0.0, 0.5, 1.0]))
        x.make_scale("x axis")
        d = f.create_dataset("scales/data", data=np.arange(6, dtype="f4").reshape(3, 2))
        d.dims[0].attach_scale(x)
        d.dims[0].label = "time"
        d.dims[1].label = "chan"
        e = h5py.enum_dtype({"RED": 0, "GREEN": 1, "BLUE": 2}, basetype="i1")
        f.create_dataset("enum", data=np.array([0, 2, 1, 1], dtype="i1"), dtype=e)
        f.create_dataset("complex64", data=np.array([1 + 2j, -3.5j, 4], dtype="c8"))
        f.create_dataset("complex128", data=np.array([[1 + 2j, 3 - 4j]], dtype="c16"))
        grid = f.create_dataset("grid", data=np.arange(100, dtype="i4").reshape(10, 10))
        regs = f.create_dataset("regions", (3,), dtype=h5py.regionref_dtype)
        regs[0] = grid.regionref[1:3, 2:5]
        regs[1] = grid.regionref[0, :]
        regs[2] = grid.regionref[4:8:2, 9]
        grid.attrs["corner"] = grid.regionref[0:2, 0:2]
        sp = grid.id.get_space()
        sp.select_elements(np.array([[1, 1], [2, 3]], dtype="u8"))
        grid.attrs["points"] = h5py.h5r.create(grid.id, b".", h5py.h5r.DATASET_REGION, sp)
        f.create_dataset("filtered", data=np.arange(100, dtype="i4"), chunks=(10,), maxshape=(None,),
                         compression="gzip", compression_opts=4, shuffle=True, fletcher32=True)
        f.create_dataset("scaleoffset", data=np.arange(20, dtype="i4"), chunks=(5,), scaleoffset=0)
        f.create_dataset("fixed_max", data=np.arange(6, dtype="i2").reshape(2, 3), maxshape=(4, 3), chunks=(1, 3))
        space = h5py.h5s.create_simple((4,))
        dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
        dcpl.set_layout(h5py.h5d.COMPACT)
        c = h5py.h5d.create(f.id, b"compact", h5py.h5t.STD_I32LE, space, dcpl=dcpl)
        c.write(h5py.h5s.ALL, h5py.h5s.ALL, np.array([7, 8, 9, 10], dtype="i4"))
        f["ext"] = h5py.ExternalLink("ext-target.h5", "/data")
        f["ext_missing"] = h5py.ExternalLink("no-such-file.h5", "/data")
        f["ext_loop"] = h5py.ExternalLink("ext-target.h5", "/back")


def write_broken():
    with open(path("raw.bin"), "wb") as r:
        r.write(np.arange(4, dtype="<i4").tobytes())
    with h5py.File(path("broken.h5"), "w") as f:
        f.create_dataset("good", data=np.arange(4, dtype="i4"))
        f.create_dataset("external", shape=(4,), dtype="<i4", external=[("raw.bin", 0, 16)])
        layout = h5py.VirtualLayout(shape=(4,), dtype="i4")
        layout[:] = h5py.VirtualSource("ext-target.h5", "data", shape=(4,))
        f.create_virtual_dataset("virtual", layout)


def write_dt():
    shutil.rmtree(path("dt.zarr"), ignore_errors=True)
    g = zarr.open_group(path("dt.zarr"), mode="w")
    g.create_dataset("times", data=np.array(["2020-01-01T00:00:00", "2021-06-01T12:30:00", "NaT"], dtype="M8[s]"),
                     compressor=None)
    g.create_dataset("days", data=np.array(["2020-01-01", "2020-03-01"], dtype="M8[D]"), compressor=None)
    g.create_dataset("deltas", data=np.array([1500, -20], dtype="m8[ms]"), compressor=None)
    g.create_dataset("good", data=np.array([1, 2, 3], dtype="i4"), compressor=None)


if __name__ == "__main__":
    write_parity()
    write_lindi()
    write_features()
    write_broken()
    write_dt()
