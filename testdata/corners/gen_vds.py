#!/usr/bin/python3
"""Makes the virtual dataset (VDS) fixtures and h5py's reading of them (vds.json).

Run from this directory with Debian's python3-h5py: ./gen_vds.py
vds.h5 holds the virtual datasets; vds_src0.h5, vds_src1.h5, vds_src2.h5 are their source
files (each /data, 6 int32 numbers; vds_src1.h5 also /grid, 4×5 float64, and /pts, 10 int16;
vds_src2.h5 also /long, 600 int32).
vds.h5's virtual datasets:
  stacked     3×6 <i4: the classic h5py example, one row per source file
  same_file   2×5 <f8: rows of vds.h5's own /plain (source file ".")
  strided     12 <i4: source 0's data 0:6:2 at 0:6:2, source 2's blocked hyperslab (start 0,
              stride 3, count 2, block 2: elements 0,1,3,4) into another (start 1, stride 4,
              count 2, block 2: elements 1,2,5,6; element 2 overlaps the first mapping: the
              later wins), source 1's 2:5 into 9:12; elements no mapping covers fill (-1)
  subblock    6×7 <f8: source 1's /grid 1:3, 0:4 (2×4) into 2:4, 3:7; fill 0.5
  partial     10 <i2: source 1's /pts 0:4 into 3:7, fill 99
  missing     4 <i4: one mapping from a file that does not exist, fill 7, one from source 0
  reshaped    2×3 <i4: source 0's 6 numbers into a 2×3 block (different shapes, same count)
  big         2×600 <i4: source 2's /long (600 numbers, chunked by 100) in row 0, its first 500
              in row 1 from 100 on: its chunks are /long's
  shifted     1100 <i4: /long's 50: then its :550, off its chunk boundaries
vds_unlimited.h5's /printf maps vds_src%b.h5 (one block of 6 per file found) and /unlimited an
unlimited block: mappings lindi-go leaves out; /self is mapped from itself (h5py crashes reading it).
vds_up.h5's /up maps all of ../vds_src0.h5's /data: a source outside its directory.
vds.json: path → {"shape", "dtype", "fill", "value" (nested lists), "slices": {selection: value}},
the selections in lindi's text form, cut by numpy from h5py's whole read (h5py refuses
negative steps). HDF5 refuses point selections in a mapping ("point selections not currently
supported with virtual datasets"), so no fixture has one.
"""
import json
import numpy as np
import h5py

SOURCES = ["vds_src0.h5", "vds_src1.h5", "vds_src2.h5"]
SLICES = {
    "stacked": ["1", "0:3:2, 1:5", "..., 4", "::-1, ::3"],
    "same_file": ["1, 2:", ":, 0"],
    "strided": ["1:12:3", "::-1", "5"],
    "subblock": ["2:4, 3:7", "1:5, 2", "::2, ::2"],
    "partial": ["2:8", "::3"],
    "missing": ["1:3"],
    "reshaped": ["1", ":, 1:"],
    "big": ["1, 95:105", ":, 599"],
    "shifted": ["540:560"],
}


def write_sources():
    for i, name in enumerate(SOURCES):
        with h5py.File(name, "w") as f:
            f.create_dataset("data", data=np.arange(6, dtype="<i4") + 10 * (i + 1))
            if i == 2:
                f.create_dataset("long", data=np.arange(600, dtype="<i4") * 2, chunks=(100,))
            if i == 1:
                f.create_dataset("grid", data=np.arange(20, dtype="<f8").reshape(4, 5) / 4)
                f.create_dataset("pts", data=np.arange(10, dtype="<i2") * 3, chunks=(4,))


def write_vds():
    with h5py.File("vds.h5", "w") as f:
        layout = h5py.VirtualLayout(shape=(3, 6), dtype="<i4")
        for i, name in enumerate(SOURCES):
            layout[i] = h5py.VirtualSource(name, "data", shape=(6,))
        f.create_virtual_dataset("stacked", layout, fillvalue=-1)

        f.create_dataset("plain", data=np.arange(15, dtype="<f8").reshape(3, 5) * 1.5)
        layout = h5py.VirtualLayout(shape=(2, 5), dtype="<f8")
        layout[:, :] = h5py.VirtualSource(".", "plain", shape=(3, 5))[1:3, :]
        f.create_virtual_dataset("same_file", layout)

        layout = h5py.VirtualLayout(shape=(12,), dtype="<i4")
        layout[0:6:2] = h5py.VirtualSource(SOURCES[0], "data", shape=(6,))[0:6:2]
        src2 = h5py.VirtualSource(SOURCES[2], "data", shape=(6,))
        layout[h5py.MultiBlockSlice(start=1, stride=4, count=2, block=2)] = src2[h5py.MultiBlockSlice(start=0, stride=3, count=2, block=2)]
        layout[9:12] = h5py.VirtualSource(SOURCES[1], "data", shape=(6,))[2:5]
        f.create_virtual_dataset("strided", layout, fillvalue=-1)

        layout = h5py.VirtualLayout(shape=(6, 7), dtype="<f8")
        layout[2:4, 3:7] = h5py.VirtualSource(SOURCES[1], "grid", shape=(4, 5))[1:3, 0:4]
        f.create_virtual_dataset("subblock", layout, fillvalue=0.5)

        layout = h5py.VirtualLayout(shape=(10,), dtype="<i2")
        layout[3:7] = h5py.VirtualSource(SOURCES[1], "pts", shape=(10,))[0:4]
        f.create_virtual_dataset("partial", layout, fillvalue=99)

        layout = h5py.VirtualLayout(shape=(4,), dtype="<i4")
        layout[0:2] = h5py.VirtualSource("vds_nowhere.h5", "data", shape=(6,))[0:2]
        layout[2:4] = h5py.VirtualSource(SOURCES[0], "data", shape=(6,))[4:6]
        f.create_virtual_dataset("missing", layout, fillvalue=7)

        layout = h5py.VirtualLayout(shape=(2, 3), dtype="<i4")
        layout[:, :] = h5py.VirtualSource(SOURCES[0], "data", shape=(6,))
        f.create_virtual_dataset("reshaped", layout)

        layout = h5py.VirtualLayout(shape=(2, 600), dtype="<i4")
        layout[0] = h5py.VirtualSource(SOURCES[2], "long", shape=(600,))
        layout[1, 100:] = h5py.VirtualSource(SOURCES[2], "long", shape=(600,))[:500]
        f.create_virtual_dataset("big", layout, fillvalue=-3)

        layout = h5py.VirtualLayout(shape=(1100,), dtype="<i4")
        layout[:550] = h5py.VirtualSource(SOURCES[2], "long", shape=(600,))[50:]
        layout[550:] = h5py.VirtualSource(SOURCES[2], "long", shape=(600,))[:550]
        f.create_virtual_dataset("shifted", layout, fillvalue=-3)


def write_up():
    # A source named outside the virtual dataset's directory: a test copies vds_up.h5 into a
    # folder with vds_src0.h5 one level up, and opens it confined to that folder.
    with h5py.File("vds_up.h5", "w") as f:
        layout = h5py.VirtualLayout(shape=(6,), dtype="<i4")
        layout[:] = h5py.VirtualSource("../vds_src0.h5", "data", shape=(6,))
        f.create_virtual_dataset("up", layout, fillvalue=-1)


def write_unlimited():
    # Mappings lindi-go leaves out (h5py reads them): a printf-style source name ("%b", each
    # block from the next file) and an unlimited block, written with the low-level API.
    unlimited = h5py.h5s.UNLIMITED
    with h5py.File("vds_unlimited.h5", "w") as f:
        for name, source, count, block in [("printf", b"vds_src%b.h5", unlimited, 6),
                                           ("unlimited", b"vds_src0.h5", 1, unlimited)]:
            dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
            vspace = h5py.h5s.create_simple((6,), (unlimited,))
            vspace.select_hyperslab((0,), (count,), (6,), (block,))
            sspace = h5py.h5s.create_simple((6,), (unlimited,))
            if count == unlimited:
                sspace.select_all()
            else:
                sspace.select_hyperslab((0,), (1,), (1,), (unlimited,))
            dcpl.set_virtual(vspace, source, b"data", sspace)
            h5py.h5d.create(f.id, name.encode(), h5py.h5t.STD_I32LE, vspace, dcpl=dcpl)
        # A dataset mapped from itself, which h5py 3.7 (HDF5 1.10.8) crashes reading.
        layout = h5py.VirtualLayout(shape=(4,), dtype="<i4")
        layout[:] = h5py.VirtualSource(".", "self", shape=(4,))
        f.create_virtual_dataset("self", layout, fillvalue=3)


def key(text):
    """The numpy index of one of lindi's selection texts."""
    out = []
    for part in text.split(","):
        part = part.strip()
        if part == "...":
            out.append(Ellipsis)
        elif ":" in part:
            out.append(slice(*[int(x) if x else None for x in part.split(":")]))
        else:
            out.append(int(part))
    return tuple(out)


def dump():
    out = {}
    with h5py.File("vds.h5", "r") as f:
        for name, sels in SLICES.items():
            d = f[name]
            assert d.is_virtual, name
            out["/" + name] = {
                "shape": list(d.shape), "dtype": d.dtype.str, "fill": d.fillvalue.item(),
                "value": d[()].tolist(), "slices": {s: np.asarray(d[()][key(s)]).tolist() for s in sels},
            }
    with open("vds.json", "w") as w:
        json.dump(out, w, indent=1, sort_keys=True)
        w.write("\n")


if __name__ == "__main__":
    write_sources()
    write_vds()
    write_up()
    write_unlimited()
    dump()
