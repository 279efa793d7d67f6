"""Writes expected.json: what h5grove answers for the conformance fixture
(../../testdata/conformance/fixture.h5), computed here with h5py and numpy the
way h5grove's documentation describes its answers, for the Go tests of
package h5grove to compare every file form against.

    /usr/bin/python3 gen.py    # needs h5py and numpy; run from this directory
"""

import json
import os

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURE = os.path.join(HERE, "..", "..", "testdata", "conformance", "fixture.h5")


def type_meta(t):
    """h5grove's typeMetadata of an h5py TypeID."""
    m = {"class": t.get_class(), "size": t.get_size()}
    dt = t.dtype
    m["dtype"] = dt.str if dt.fields is None else {k: v[0].str for k, v in dt.fields.items()}
    if isinstance(t, h5py.h5t.TypeIntegerID) and not isinstance(t, h5py.h5t.TypeEnumID):
        m.update(order=t.get_order(), sign=t.get_sign())
    elif isinstance(t, h5py.h5t.TypeFloatID):
        m.update(order=t.get_order())
    elif isinstance(t, h5py.h5t.TypeStringID):
        m.update(cset=t.get_cset(), strpad=t.get_strpad(), vlen=t.is_variable_str())
    elif isinstance(t, h5py.h5t.TypeCompoundID):
        m["members"] = [dict(name=t.get_member_name(i).decode(), **type_meta(t.get_member_type(i)))
                        for i in range(t.get_nmembers())]
    elif isinstance(t, h5py.h5t.TypeEnumID):
        m["members"] = {t.get_member_name(i).decode(): int(t.get_member_value(i)) for i in range(t.get_nmembers())}
        m["base"] = type_meta(t.get_super())
    return m


def entity_meta(f, path):
    obj = f[path]
    m = {"name": path.split("/")[-1],
         "attributes": [{"name": k, "shape": list(obj.attrs.get_id(k).shape)} for k in sorted(obj.attrs)]}
    if isinstance(obj, h5py.Dataset):
        m.update(kind="dataset", shape=list(obj.shape), type=type_meta(obj.id.get_type()),
                 chunks=list(obj.chunks) if obj.chunks else None)
    else:
        m.update(kind="group", children=sorted(obj.keys()))
    return m


def jsonable(v):
    """A value as h5grove's JSON has it."""
    if isinstance(v, h5py.Reference):
        return None  # the text of a reference differs; the tests check its presence
    if isinstance(v, np.ndarray):
        return [jsonable(x) for x in v.tolist()]
    if isinstance(v, (bytes, np.bytes_)):
        return v.decode()
    if isinstance(v, np.generic):
        return jsonable(v.item())
    if isinstance(v, float) and not np.isfinite(v):
        return None
    if isinstance(v, list):
        return [jsonable(x) for x in v]
    return v


def stats(data):
    """h5grove's /stats of an array: finite values only for floats."""
    data = np.asarray(data)
    if np.issubdtype(data.dtype, np.floating):
        data = data[np.isfinite(data)]
    if data.size == 0:
        return dict.fromkeys(["strict_positive_min", "positive_min", "min", "max", "mean", "std"])
    cast = float if np.issubdtype(data.dtype, np.floating) else int
    sp, p = data[data > 0], data[data >= 0]
    return {"strict_positive_min": cast(sp.min()) if sp.size else None,
            "positive_min": cast(p.min()) if p.size else None,
            "min": cast(data.min()), "max": cast(data.max()),
            "mean": cast(np.mean(data)), "std": cast(np.std(data))}


def main():
    out = {"meta": {}, "attrs": {}, "stats": [], "data": [], "paths": {}}
    with h5py.File(FIXTURE, "r") as f:
        paths = ["/"]
        f.id.links.visit(lambda name: paths.append("/" + name.decode()))
        out["paths"]["/"] = paths
        sub = ["/misc"]
        misc = f["misc"]
        misc.id.links.visit(lambda name: sub.append("/misc/" + name.decode()))
        out["paths"]["/misc"] = sub
        for p in paths:
            out["meta"][p] = entity_meta(f, p)
            obj = f[p]
            out["attrs"][p] = {k: jsonable(obj.attrs[k]) for k in obj.attrs}
        for p, sel in [("/misc/f4_2d_edge", None), ("/misc/f4_2d_edge", "3:40:2, 7"),
                       ("/misc/u1", None), ("/misc/i1", "5:60"), ("/misc/bool", None),
                       ("/misc/partially_written", "::3, 1:"), ("/misc/big_endian_f8", "-100:"),
                       ("/acquisition/ElectricalSeries/data", "100:900, 3:20:4"),
                       ("/misc/empty_1d", None), ("/misc/scalar_int", None)]:
            ds = f[p]
            if sel is None:
                data = ds[()]
            else:
                data = ds[tuple(parse_member(m) for m in sel.split(","))]
            out["stats"].append({"path": p, "selection": sel, "stats": stats(data)})
        for p, sel in [("/misc/vlen_strings", None), ("/misc/fixed_strings", "1:"),
                       ("/session_description", None), ("/identifier", None),
                       ("/misc/compound", "::2"), ("/misc/bool", "0:10"),
                       ("/misc/scalar_int", None), ("/misc/u8", "30:"),
                       ("/misc/big_endian_i4", "0:5")]:
            ds = f[p]
            data = ds[()] if sel is None else ds[tuple(parse_member(m) for m in sel.split(","))]
            out["data"].append({"path": p, "selection": sel, "value": jsonable(data)})
    with open(os.path.join(HERE, "expected.json"), "w") as w:
        json.dump(out, w, indent=1, sort_keys=True)
        w.write("\n")


def parse_member(m):
    """One member of h5grove's selection syntax: an int or a slice."""
    if ":" not in m:
        return int(m)
    parts = [int(x) if x.strip() else None for x in m.split(":")]
    if len(parts) == 2 and parts[0] is None:
        parts[0] = 0
    return slice(*parts)


if __name__ == "__main__":
    main()
