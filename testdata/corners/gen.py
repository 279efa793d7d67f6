#!/usr/bin/python3
"""Makes the HDF5 corner fixtures of issue #30 and h5py's reading of each (FILE.json).

Run from this directory with Debian's python3-h5py and python3-hdf5plugin: ./gen.py [FAMILY...]
(all families when none is named). Each family is a file:
null.h5 (null dataspaces), padded.h5 (compounds with padding), arrayfields.h5 (compound
members that are arrays), committed.h5 (committed datatypes), opaque.h5 (opaque types and
h5py's NUMPY: tags), cattrs.h5 (compound attributes), vlencompound.h5 (compounds with
variable-length string members: alone, in arrays, with padding, chunked, unwritten), tagged.h5
(opaque types h5py tags with a numpy dtype: NUMPY:|S21 and others), filters.h5 (the HDF5
filters bitshuffle 32008, with and without its LZ4, and LZ4 32004), scaleoffset.h5 (the HDF5
scale-offset filter 6: integers of every size, signed and unsigned, little- and big-endian, with
minimum bits computed or given; floats with D-scale; chunks of equal values, with and without
a defined fill value, the fill value among the data, values that need every bit, partial edge
chunks, two dimensions, after deflate).

FILE.json is what h5py reads, object by object (path → record):
  group:    {"kind": "group", "attrs": {...}}
  dataset:  {"kind": "dataset", "shape": [..] or null (a null dataspace), "dtype": numpy descr,
             "value": nested lists (null for a null dataspace), "named": true when its
             datatype is a committed one (absent otherwise), "enum": h5py.check_enum_dtype's
             mapping for an enum (absent otherwise), "attrs": {...}}
  datatype: {"kind": "datatype", "dtype": numpy descr, "enum": as for a dataset, "attrs": {...}}
  attribute: {"shape": [..] or null, "dtype": numpy descr, "value": ...}
Values: numbers as JSON numbers, bytes as text (UTF-8), void/opaque bytes as lowercase hex,
datetime64/timedelta64 as their int64 count, references as the target's path, compound rows as
lists of their fields in order. A dataset h5py's high-level read refuses has its
"h5py_error" and the value its low-level read gives.
"""
import ctypes
import json
import sys
import numpy as np
import h5py
import hdf5plugin

REF = h5py.ref_dtype


def null_family(f):
    for name, dt in [("i4", "<i4"), ("f8", "<f8"), ("u1", "u1"), ("S5", "S5"), ("bool", "?")]:
        f.create_dataset("null_" + name, data=h5py.Empty(dt))
    f.create_dataset("null_vlen_str", data=h5py.Empty(h5py.string_dtype()))
    f.create_dataset("null_compound", data=h5py.Empty(np.dtype([("a", "<i4"), ("b", "<f8")])))
    f.attrs["empty_f4"] = h5py.Empty("<f4")
    f.attrs["empty_S3"] = h5py.Empty("S3")
    f.attrs["present"] = 7
    g = f.create_group("g")
    g.attrs["empty_i8"] = h5py.Empty("<i8")
    d = g.create_dataset("data", data=np.arange(4, dtype="<i2"))
    d.attrs["empty_str"] = h5py.Empty(h5py.string_dtype())
    d.attrs["units"] = "mV"
    f["null_i4"].attrs["empty_u2"] = h5py.Empty("<u2")
    f["null_i4"].attrs["note"] = "no elements"


def padded_family(f):
    trailing = np.dtype({"names": ["a", "b"], "formats": ["<u8", "<u2"], "offsets": [0, 8], "itemsize": 16})
    leading = np.dtype({"names": ["x"], "formats": ["<i4"], "offsets": [4], "itemsize": 8})
    internal = np.dtype({"names": ["c", "d"], "formats": ["u1", "<f8"], "offsets": [0, 8], "itemsize": 16})
    inner = np.dtype({"names": ["p", "q"], "formats": ["<i2", "<i4"], "offsets": [0, 4], "itemsize": 12})
    nested = np.dtype({"names": ["head", "in", "tail"], "formats": ["u1", inner, "<f4"], "offsets": [0, 4, 20], "itemsize": 28})
    f.create_dataset("trailing", data=np.array([(1, 2), (3, 4), (2**40, 65535)], dtype=trailing))
    f.create_dataset("leading", data=np.array([(-1,), (5,)], dtype=leading))
    f.create_dataset("internal", data=np.array([(1, 0.5), (2, -1.25)], dtype=internal))
    f.create_dataset("nested", data=np.array([(1, (2, 3), 4.5), (6, (-7, 8), 9.25)], dtype=nested))
    f.create_dataset("scalar", data=np.array((9, 10), dtype=trailing))
    f.create_dataset("grid", data=np.array([[(1, 1.5), (2, 2.5)], [(3, 3.5), (4, 4.5)]], dtype=internal))
    f.create_dataset("chunked", data=np.array([(i, i * 0.25) for i in range(10)], dtype=internal),
                     chunks=(4,), compression="gzip")
    f.attrs["padded_attr"] = np.array((5, 6), dtype=trailing)


def arrayfields_family(f):
    f.create_group("a")
    f.create_group("b")
    strs = np.dtype([("name", "S8", (3,)), ("n", "<i4")])
    nums = np.dtype([("v", "<i4", (2, 3)), ("w", "<f8", (2,))])
    f.create_dataset("strings", data=np.array([((b"ab", b"cde", b""), 1), ((b"x", b"yy", b"zzzzzzzz"), 2)], dtype=strs))
    f.create_dataset("numbers", data=np.array([(np.arange(6).reshape(2, 3), (0.5, 1.5)),
                                                (np.arange(6, 12).reshape(2, 3), (-1, 2))], dtype=nums))
    refs = np.dtype([("id", "<i4"), ("refs", REF, (2,))])
    d = f.create_dataset("refs", shape=(2,), dtype=refs)
    d[0] = (1, (f["a"].ref, f["b"].ref))
    d[1] = (2, (f["b"].ref, f["strings"].ref))
    f.attrs["arr_attr"] = np.array((np.array([1, 2, 3], dtype="<i2"), 7), dtype=[("xs", "<i2", (3,)), ("k", "u1")])


def committed_family(f):
    f["EnumType"] = h5py.enum_dtype({"RED": 0, "GREEN": 1, "BLUE": 2}, basetype="u1")
    f["CompoundType"] = np.dtype([("major", "<i4"), ("minor", "<i4")])
    f["IntType"] = np.dtype("<i8")
    f["IntType"].attrs["about"] = "a committed integer"
    g = f.create_group("types")
    g["StrType"] = np.dtype("S4")
    f.create_dataset("colors", data=np.array([0, 2, 1], dtype="u1"), dtype=f["EnumType"])
    f.create_dataset("versions", data=np.array([(1, 2), (3, 4)], dtype=f["CompoundType"].dtype), dtype=f["CompoundType"])
    f.create_dataset("plain", data=np.arange(3, dtype="<i8"), dtype=f["IntType"])
    f.create_dataset("codes", data=np.array([b"ab", b"cdef"], dtype="S4"), dtype=g["StrType"])
    f["plain"].attrs.create("count", 3, dtype=f["IntType"])
    f.attrs.create("color", 1, dtype=f["EnumType"])


def opaque_family(f):
    f.create_dataset("dt_s", data=np.array(["2024-01-02T03:04:05", "1970-01-01T00:00:00"], dtype="M8[s]").astype(h5py.opaque_dtype("M8[s]")))
    f.create_dataset("dt_ns", data=np.array(["2001-02-03T04:05:06.123456789"], dtype="M8[ns]").astype(h5py.opaque_dtype("M8[ns]")))
    f.create_dataset("td_ms", data=np.array([1500, -20], dtype="m8[ms]").astype(h5py.opaque_dtype("m8[ms]")))
    f.create_dataset("dt_scalar", data=np.array("2020-06-01", dtype="M8[D]").astype(h5py.opaque_dtype("M8[D]")))
    f.create_dataset("void4", data=np.array([b"\x01\x02\x03\x04", b"\x00\xff\x00\x10"], dtype="V4"))
    f.create_dataset("void7_scalar", data=np.void(b"abc\x00efg"))
    # An opaque type with a tag of its own (the HDF5 library's, not h5py's).
    tid = h5py.h5t.create(h5py.h5t.OPAQUE, 6)
    tid.set_tag(b"raw sensor frame")
    sid = h5py.h5s.create_simple((2,))
    dsid = h5py.h5d.create(f.id, b"tagged", tid, sid)
    dsid.write(h5py.h5s.ALL, h5py.h5s.ALL, np.frombuffer(b"ABCDEF\x00\x01\x02\x03\x04\x05", dtype="V6"), mtype=tid)
    f["void4"].attrs["stamp"] = np.array("2022-02-22T22:22:22", dtype="M8[s]").astype(h5py.opaque_dtype("M8[s]"))
    f.attrs["blob"] = np.void(b"\xde\xad\xbe\xef")
    f["void4"].attrs["deltas"] = np.array([1500, -20], dtype="m8[ms]").astype(h5py.opaque_dtype("m8[ms]"))
    f["dt_s"].attrs["grid"] = np.array([["2024-01-02", "NaT"], ["1969-12-31", "2000-02-29"]],
                                       dtype="M8[D]").astype(h5py.opaque_dtype("M8[D]"))
    f["dt_s"].attrs["voids"] = np.array([b"\x01\x02", b"\xff\x00"], dtype="V2")


def cattrs_family(f):
    version = np.dtype([("myMajor", "<i4"), ("myMinor", "<i4"), ("myPatch", "<i4")])
    f.attrs["version"] = np.array((1, 0, 0), dtype=version)
    f.attrs["versions"] = np.array([(1, 0, 0), (2, 1, 3)], dtype=version)
    mixed = np.dtype([("name", "S6"), ("gain", "<f8"), ("on", "?")])
    d = f.create_dataset("d", data=np.arange(3, dtype="<f4"))
    d.attrs["cal"] = np.array((b"probe", 0.25, True), dtype=mixed)
    g = f.create_group("g")
    g.attrs["cplx"] = np.complex128(1 + 2j)
    g.attrs["strs"] = np.array(("vlen text",), dtype=[("s", h5py.string_dtype())])


def vlencompound_family(f):
    s = h5py.string_dtype()
    b = h5py.string_dtype("ascii")
    alone = np.dtype([("s", s)])
    mixed = np.dtype([("id", "<i4"), ("name", s), ("v", "<f8")])
    arrays = np.dtype([("names", s, (3,)), ("n", "<i2")])
    padded = np.dtype({"names": ["k", "label", "tail"], "formats": ["u1", b, "S3"], "offsets": [0, 8, 40], "itemsize": 46})
    f.create_dataset("alone", data=np.array([("a",), ("",), ("longer text é",)], dtype=alone))
    f.create_dataset("mixed", data=np.array([(1, "one", 0.5), (-2, "two", 1.5)], dtype=mixed))
    f.create_dataset("arrays", data=np.array([(("x", "yy", ""), 3), (("", "q", "rrr"), -4)], dtype=arrays))
    f.create_dataset("padded", data=np.array([(1, b"ascii", b"abc"), (2, b"", b"de")], dtype=padded))
    f.create_dataset("chunked", data=np.array([(i, "row %d" % i, i / 4) for i in range(7)], dtype=mixed),
                     chunks=(3,), compression="gzip")
    f.create_dataset("scalar", data=np.array((5, "five", 5.5), dtype=mixed))
    f.create_dataset("unwritten", shape=(2,), dtype=mixed, chunks=(2,))


def tagged_family(f):
    f.create_dataset("s21", data=np.array([b"hello", b"world of strings"], dtype="S21").astype(h5py.opaque_dtype("S21")))
    f.create_dataset("i4", data=np.array([1, -2, 3], dtype="<i4").astype(h5py.opaque_dtype("<i4")))
    f.create_dataset("s4_scalar", data=np.array(b"abcd", dtype="S4").astype(h5py.opaque_dtype("S4")))


def filters_family(f):
    i2 = (np.arange(7 * 50, dtype="<i2").reshape(7, 50) * 37 % 1000 - 500).astype("<i2")
    f4 = np.linspace(-1, 1, 1003, dtype="<f4")
    u8 = np.arange(100, dtype="<u8") ** 3
    for name, filt in [("bitshuffle", hdf5plugin.Bitshuffle(nelems=0, cname="none")),
                       ("bitshuffle_lz4", hdf5plugin.Bitshuffle(nelems=0, cname="lz4")),
                       ("bitshuffle_blocks", hdf5plugin.Bitshuffle(nelems=64, cname="lz4")),
                       ("lz4", hdf5plugin.LZ4(nbytes=0)),
                       ("lz4_blocks", hdf5plugin.LZ4(nbytes=256))]:
        f.create_dataset(name + "_i2", data=i2, chunks=(3, 20), **filt)
        f.create_dataset(name + "_f4", data=f4, chunks=(250,), **filt)
        f.create_dataset(name + "_u8", data=u8, chunks=(33,), **filt)
    f.create_dataset("lz4_shuffle", data=i2, chunks=(4, 16), shuffle=True, **hdf5plugin.LZ4())
    f["lz4_i2"].attrs["units"] = "uV"


def scaleoffset_family(f):
    rng = np.random.default_rng(6)
    i8 = rng.integers(-50, 70, 50).astype("i1")
    u2 = (rng.integers(0, 40, 45) + 1000).astype("<u2")
    i4 = rng.integers(-3000, 3000, (13, 7)).astype("<i4")
    i8l = (rng.integers(-2**40, 2**40, 70)).astype("<i8")
    u8 = (np.uint64(2**64 - 5000) + rng.integers(0, 4000, 37).astype("<u8")).astype("<u8")
    f4 = (rng.standard_normal(101) * 40).astype("<f4")
    f8 = rng.standard_normal((9, 11)) * 1e3
    so = lambda name, data, **kw: f.create_dataset(name, data=data, **kw)
    so("int8_auto", i8, chunks=(16,), scaleoffset=0)
    so("int8_bits8", i8, chunks=(16,), scaleoffset=8)  # as many bits as the type: not filtered
    so("int8_full", np.array([-128, 127, 0, 5, -1], dtype="i1"), chunks=(5,), scaleoffset=0)
    so("uint8_bits3", np.arange(30, dtype="u1") % 9 + 200, chunks=(7,), scaleoffset=3)
    so("uint16_auto", u2, chunks=(10,), scaleoffset=0)
    so("uint16_bits5", u2, chunks=(10,), scaleoffset=5)  # the range needs 6: lossy, as h5py reads it
    so("uint16_be", u2.astype(">u2"), chunks=(10,), scaleoffset=0)
    so("int32_2d", i4, chunks=(5, 4), scaleoffset=0)
    so("int32_be_2d", i4.astype(">i4"), chunks=(4, 3), scaleoffset=0)
    so("int32_gzip", i4, chunks=(6, 7), scaleoffset=0, compression="gzip", shuffle=True)
    so("int64_auto", i8l, chunks=(16,), scaleoffset=0)
    so("int64_bits44", i8l, chunks=(16,), scaleoffset=44)
    so("int64_be", i8l.astype(">i8"), chunks=(16,), scaleoffset=0)
    so("uint64_auto", u8, chunks=(10,), scaleoffset=0)
    so("uint64_full", np.array([0, 2**64 - 1, 12, 2**63], dtype="<u8"), chunks=(3,), scaleoffset=0)
    so("uint64_be", u8.astype(">u8"), chunks=(10,), scaleoffset=0)
    so("int16_equal", np.full(24, -300, dtype="<i2"), chunks=(8,), scaleoffset=0)
    fillv = np.where(np.arange(40) % 3 == 0, -7, np.arange(40) * 11 - 200).astype("<i2")
    so("int16_fill", fillv, chunks=(12,), scaleoffset=0, fillvalue=-7)
    so("int16_fill_bits4", fillv, chunks=(12,), scaleoffset=4, fillvalue=-7)
    so("uint32_fill", np.array([9, 9, 3, 4, 9, 10, 2**32 - 2], dtype="<u4"), chunks=(4,), scaleoffset=0, fillvalue=9)
    so("float32_d3", f4, chunks=(25,), scaleoffset=3)
    so("float32_d0", f4, chunks=(25,), scaleoffset=0)
    so("float32_be_d2", f4.astype(">f4"), chunks=(30,), scaleoffset=2)
    so("float32_full", np.array([0, 1e9, -3.25, 7], dtype="<f4"), chunks=(4,), scaleoffset=2)
    so("float32_fill", np.array([1.5, 1.50001, 2, 3.75, 1.5, -4], dtype="<f4"), chunks=(4,), scaleoffset=2, fillvalue=1.5)
    so("float32_nanfill", f4[:20], chunks=(8,), scaleoffset=1, fillvalue=np.nan)
    so("float64_d5", f8, chunks=(4, 5), scaleoffset=5)
    so("float64_be_d1", f8.astype(">f8"), chunks=(4, 4), scaleoffset=1)
    so("float64_small", np.array([1e-9, -2e-7, 0.5, 3e-6, 0, 0.25], dtype="<f8"), chunks=(6,), scaleoffset=4)
    so("int16_be_full", np.array([-32768, 32767, 1], dtype=">i2"), chunks=(3,), scaleoffset=0)
    so("float64_be_full", np.array([0, 1e18, -1.5], dtype=">f8"), chunks=(3,), scaleoffset=2)
    so("float64_equal", np.full((3, 4), 2.5), chunks=(3, 4), scaleoffset=3)
    # Past the index's inline size: the index links these to the HDF5 file.
    so("int16_linked", rng.integers(-900, 900, 2500).astype("<i2"), chunks=(400,), scaleoffset=0)
    so("float32_linked", (rng.standard_normal((40, 30)) * 9).astype("<f4"), chunks=(16, 16), scaleoffset=2)
    # Chunks of equal values without a defined fill value: minbits 0, no values stored.
    undefined_fill(f, "int32_nofill", np.array([5] * 8 + list(range(12)), dtype="<i4"), (8,), h5py.h5z.SO_INT, 0)
    undefined_fill(f, "uint64_nofill", np.full(10, 2**64 - 3, dtype="<u8"), (4,), h5py.h5z.SO_INT, 0)
    undefined_fill(f, "float64_nofill", np.array([0.125] * 6 + [1, 2, 3], dtype="<f8"), (6,), h5py.h5z.SO_FLOAT_DSCALE, 2)
    undefined_fill(f, "float32_nofill", np.array([0.1] * 4 + [-1, 0, 1], dtype="<f4"), (4,), h5py.h5z.SO_FLOAT_DSCALE, 3)
    f["int32_2d"].attrs["units"] = "counts"


def undefined_fill(f, name, data, chunks, scale_type, factor):
    """Writes a scale-offset dataset whose fill value is undefined, which h5py cannot ask
    for: H5Pset_fill_value with no value, through the HDF5 library h5py loaded."""
    lib = ctypes.CDLL("libhdf5_serial.so.103")
    lib.H5Pset_fill_value.argtypes = [ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p]
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_chunk(chunks)
    dcpl.set_scaleoffset(scale_type, factor)
    tid = h5py.h5t.py_create(data.dtype)
    if lib.H5Pset_fill_value(dcpl.id, tid.id, None) < 0 or dcpl.fill_value_defined() != h5py.h5d.FILL_VALUE_UNDEFINED:
        raise RuntimeError("could not undefine the fill value")
    ds = h5py.h5d.create(f.id, name.encode(), tid, h5py.h5s.create_simple(data.shape), dcpl=dcpl)
    ds.write(h5py.h5s.ALL, h5py.h5s.ALL, data)


FAMILIES = [("null", null_family), ("padded", padded_family), ("arrayfields", arrayfields_family),
            ("committed", committed_family), ("opaque", opaque_family), ("cattrs", cattrs_family),
            ("vlencompound", vlencompound_family), ("tagged", tagged_family), ("filters", filters_family),
            ("scaleoffset", scaleoffset_family)]


def descr(dt):
    if dt.names is None and dt.subdtype is None:
        return dt.str
    if dt.subdtype is not None:
        return [descr(dt.subdtype[0]), list(dt.subdtype[1])]
    return {"names": list(dt.names), "formats": [descr(dt.fields[n][0]) for n in dt.names],
            "offsets": [dt.fields[n][1] for n in dt.names], "itemsize": dt.itemsize}


def jsonable(f, v, dt):
    if dt.names is not None:
        return [jsonable(f, v[n], dt.fields[n][0]) for n in dt.names]
    if dt.subdtype is not None:
        return [jsonable(f, x, dt.subdtype[0]) for x in np.asarray(v).reshape(-1)]
    if h5py.check_ref_dtype(dt) is not None or isinstance(v, h5py.Reference):
        return f[v].name if v else None
    if dt.kind in "Mm":
        return int(np.asarray(v).view("<i8"))
    if dt.kind == "V":
        return bytes(v).hex()
    if dt.kind == "S":
        return bytes(v).decode("utf-8")
    if dt.kind == "O":
        return v.decode("utf-8") if isinstance(v, bytes) else str(v)
    if dt.kind == "b":
        return bool(v)
    if dt.kind in "iu":
        return int(v)
    if dt.kind == "c":
        return [float(np.real(v)), float(np.imag(v))]
    return float(v)


def values(f, a, dt):
    a = np.asarray(a, dtype=dt) if not isinstance(a, np.ndarray) else a
    if a.ndim == 0:
        return jsonable(f, a[()], dt)
    return [values(f, x, dt) for x in a]


def record(f, v, dt):
    if isinstance(v, h5py.Empty):
        return {"shape": None, "dtype": descr(dt), "value": None}
    a = np.asarray(v)
    return {"shape": list(a.shape), "dtype": descr(dt), "value": values(f, a, dt)}


def attrs(f, o):
    out = {}
    for k in o.attrs:
        out[k] = record(f, o.attrs[k], o.attrs.get_id(k).dtype)
    return out


def dump(f):
    out = {"/": {"kind": "group", "attrs": attrs(f, f)}}

    def visit(name, o):
        p = "/" + name
        if isinstance(o, h5py.Group):
            out[p] = {"kind": "group", "attrs": attrs(f, o)}
        elif isinstance(o, h5py.Datatype):
            out[p] = {"kind": "datatype", "dtype": descr(o.dtype), "attrs": attrs(f, o)}
            if h5py.check_enum_dtype(o.dtype) is not None:
                out[p]["enum"] = h5py.check_enum_dtype(o.dtype)
        else:
            try:
                r = record(f, o[()], o.dtype)
            except OSError as e:
                # h5py's high-level read refuses an opaque type tagged other than
                # its own way; the low-level read with the file's type gives the bytes.
                a = np.empty(o.shape, dtype=o.dtype)
                o.id.read(h5py.h5s.ALL, h5py.h5s.ALL, a, mtype=o.id.get_type())
                r = record(f, a, o.dtype)
                r["h5py_error"] = str(e)
            r["kind"] = "dataset"
            r["attrs"] = attrs(f, o)
            if o.id.get_type().committed():
                r["named"] = True
            if h5py.check_enum_dtype(o.dtype) is not None:
                r["enum"] = h5py.check_enum_dtype(o.dtype)
            out[p] = r
    f.visititems(visit)
    return out


def main():
    only = set(sys.argv[1:])
    for name, make in FAMILIES:
        if only and name not in only:
            continue
        with h5py.File(name + ".h5", "w", track_order=False) as f:
            make(f)
        with h5py.File(name + ".h5", "r") as f:
            with open(name + ".json", "w") as out:
                json.dump(dump(f), out, indent=1, sort_keys=True)
                out.write("\n")


if __name__ == "__main__":
    main()
