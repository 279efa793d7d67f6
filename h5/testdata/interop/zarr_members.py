#!/usr/bin/python3
"""Decodes every chunk of the zstd and lz4 datasets of our interop files with numcodecs 0.11,
found as zarr finds them (the refs of lindi.json: inline, or a member through the tar's index or
the directory), and compares them with the values written. usage: zarr_members.py FILE..."""
import base64, json, sys, tarfile
import numpy as np
import numcodecs


def refs_and_reader(path):
    if path.endswith(".lindi.json"):
        return json.load(open(path))["refs"], None
    if path.endswith(".lindi.d"):
        doc = json.load(open(path + "/lindi.json"))["refs"]
        return doc, lambda name, off, n: open(path + "/" + name, "rb").read()[off:off + n]
    raw = open(path, "rb").read()
    entry = json.loads(raw[512:1536])
    i = entry["index"]
    index = {f["n"]: f for f in json.loads(raw[i["d"]:i["d"] + i["s"]])["files"]}
    doc = index["lindi.json"]
    refs = json.loads(raw[doc["d"]:doc["d"] + doc["s"]])["refs"]

    def member(name, off, n):
        m = index[name]
        assert off + n <= m["s"], (name, off, n, m)
        return raw[m["d"] + off:m["d"] + off + n]
    return refs, member


def main():
    want = (np.arange(3000) * 37 % 1001 - 500) + 0.25
    bad = 0
    for path in sys.argv[1:]:
        refs, member = refs_and_reader(path)
        for name in ("g/codec_zstd", "g/codec_lz4"):
            za = refs[name + "/.zarray"]
            codec = numcodecs.get_codec(za["compressor"])
            c = za["chunks"][0]
            got = np.zeros(((3000 + c - 1) // c) * c)
            kinds = set()
            for k in range((3000 + c - 1) // c):
                r = refs[f"{name}/{k}"]
                if isinstance(r, str):
                    b = base64.b64decode(r[7:]) if r.startswith("base64:") else r.encode("latin-1")
                    kinds.add("inline")
                else:
                    assert r[0].startswith("./"), r
                    b = member(r[0][2:], r[1], r[2])
                    kinds.add("member")
                got[k * c:(k + 1) * c] = np.frombuffer(codec.decode(b), dtype="<f8")
            ok = np.array_equal(got[:3000], want)
            bad += not ok
            print(f"{path.rsplit('/', 1)[-1]} {name} ({codec.codec_id}, {'+'.join(sorted(kinds))} chunks): {'SAME' if ok else 'DIFFERENT'}")
    return 1 if bad else 0


sys.exit(main())
