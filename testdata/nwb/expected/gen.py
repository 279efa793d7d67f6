#!/usr/bin/python3
"""Writes the expected output of `lindi table -f json|csv` for every
DynamicTable of ../tables.nwb, from h5py and hdmf's layout rules alone (no
lindi code): colnames orders the columns; id holds the row ids; a VectorIndex
<col>_index holds end offsets into its target, so row i is
target[end[i-1]:end[i]] with end[-1] = 0, and <col>_index_index indexes the
index; a DynamicTableRegion holds row indices; object references become the
target's absolute path; compound elements become objects keyed by field;
bytes become text. JSON is Python's json module (NaN, Infinity, -Infinity as
bare tokens); CSV is Python's csv module, non-scalar cells as compact JSON.

Run from this directory: /usr/bin/python3 gen.py
"""
import csv
import io
import json

import h5py
import numpy as np

TABLES = {
    "electrodes": "general/extracellular_ephys/electrodes",
    "units": "units",
    "trials": "intervals/trials",
}


def value(f, v):
    if isinstance(v, h5py.Reference):
        return f[v].name
    if isinstance(v, bytes):
        return v.decode("utf-8")
    if isinstance(v, np.void):  # a compound element
        return {name: value(f, v[name]) for name in v.dtype.names}
    if isinstance(v, np.ndarray):
        return [value(f, x) for x in v]
    if isinstance(v, (np.floating, float)):
        return float(v)
    if isinstance(v, (np.bool_, bool)):
        return bool(v)
    if isinstance(v, (np.integer, int)):
        return int(v)
    if isinstance(v, str):
        return v
    raise TypeError(type(v))


def column(f, g, name):
    data = g[name]
    levels = [data]
    idx_name = name + "_index"
    while idx_name in g:
        levels.append(g[idx_name])
        idx_name += "_index"
    vals = [value(f, x) for x in data[()]]
    for idx in levels[1:]:
        ends = [int(e) for e in idx[()]]
        vals = [vals[(ends[i - 1] if i > 0 else 0):ends[i]] for i in range(len(ends))]
    return vals


def table(f, path):
    g = f[path]
    out = {"id": [int(i) for i in g["id"][()]]}
    for name in g.attrs["colnames"]:
        name = name.decode() if isinstance(name, bytes) else str(name)
        out[name] = column(f, g, name)
    return out


def cell_text(v):
    if isinstance(v, (list, dict)):
        return json.dumps(v, separators=(",", ":"), ensure_ascii=False)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return json.dumps(v)  # repr, with NaN and Infinity spelled as in JSON
    return str(v)


def main():
    with h5py.File("../tables.nwb", "r") as f:
        for name, path in TABLES.items():
            t = table(f, path)
            with open(name + ".json", "w") as out:
                out.write(json.dumps(t, separators=(",", ":"), ensure_ascii=False) + "\n")
            buf = io.StringIO()
            w = csv.writer(buf, lineterminator="\n")
            cols = list(t)
            w.writerow(cols)
            for i in range(len(t["id"])):
                w.writerow([cell_text(t[c][i]) for c in cols])
            with open(name + ".csv", "w") as out:
                out.write(buf.getvalue())


main()
