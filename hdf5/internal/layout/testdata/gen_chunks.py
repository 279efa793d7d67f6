"""Writes chunks.json.gz: ground truth for the layout tests.

For every dataset of testdata/conformance/fixture.h5, fixture-latest.h5 and
indexes.h5 (made by gen_indexes.py):
its object header address, shape, element size, layout and, for chunked
datasets, every stored chunk (grid coordinates, filter mask, address, size)
as the HDF5 library reports it. Run from this directory with Debian's
python3-h5py:  /usr/bin/python3 gen_chunks.py
The tests never run Python; they read the JSON this writes.
"""
import gzip
import json

import h5py
import numpy as np

FILE_BYTES = b""

LAYOUTS = {h5py.h5d.COMPACT: "compact", h5py.h5d.CONTIGUOUS: "contiguous", h5py.h5d.CHUNKED: "chunked"}


def describe(f):
    out = []

    def visit(name, obj):
        if not isinstance(obj, h5py.Dataset):
            return
        dcpl = obj.id.get_create_plist()
        d = {
            "path": name,
            "header": h5py.h5o.get_info(obj.id).addr,
            "shape": list(obj.shape) if obj.shape is not None else None,
            "elemSize": obj.id.get_type().get_size(),
            "layout": LAYOUTS.get(dcpl.get_layout(), "other"),
            "filters": [dcpl.get_filter(i)[0] for i in range(dcpl.get_nfilters())],
        }
        if d["layout"] == "chunked":
            d["chunks"] = list(obj.chunks)
            stored = []
            for i in range(obj.id.get_num_chunks()):
                info = obj.id.get_chunk_info(i)
                coords = [o // c for o, c in zip(info.chunk_offset, obj.chunks)]
                if obj.attrs.get("chunk_value_is_index", False):
                    # One-element chunks holding linear index + 1: trust
                    # the data, not H5Dget_chunk_info's coordinates.
                    v = int(np.frombuffer(FILE_BYTES[info.byte_offset:info.byte_offset + info.size], obj.dtype)[0])
                    coords = [int(x) for x in np.unravel_index(v - 1, obj.shape)]
                stored.append([coords, info.filter_mask, info.byte_offset, info.size])
            d["stored"] = stored
        elif d["layout"] == "contiguous":
            d["addr"] = obj.id.get_offset()
            d["size"] = obj.id.get_storage_size()
        out.append(d)

    f.visititems(visit)
    return out


result = {}
for name in ["../../../testdata/conformance/fixture.h5", "../../../testdata/conformance/fixture-latest.h5", "indexes.h5"]:
    with open(name, "rb") as fp:
        FILE_BYTES = fp.read()
    with h5py.File(name, "r") as f:
        result[name.rsplit("/", 1)[-1]] = describe(f)
with gzip.GzipFile("chunks.json.gz", "wb", mtime=0) as fp:
    fp.write(json.dumps(result, separators=(",", ":")).encode() + b"\n")
