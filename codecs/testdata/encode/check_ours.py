#!/usr/bin/python3
"""Decode our encoders' output with numcodecs 0.11.

Run from this directory with Debian's /usr/bin/python3 after
`go test ./codecs -run OursGolden -update`; it writes check_ours.txt:

  OK <label>/<input>.dat <sha256> <bytes> <same|differs> as numcodecs

one line per file of ours/, where the config is ours/manifest.json's (our
Config(), which numcodecs.get_codec must accept), the decoding is compared
byte for byte with the input (or item for item with objects.json), and the
last field says whether numcodecs' own encoding is the same bytes. Any
failure is a FAIL line and a non-zero exit. The Go test TestOursGolden
refuses ours/ files whose hash has no OK line here.
"""
import hashlib
import json
import sys

import numcodecs
import numpy as np

sys.path.insert(0, ".")
import gen  # noqa: E402  (the object arrays; byte inputs come from inputs/)


def main():
    with open("ours/manifest.json") as f:
        ours = json.load(f)
    with open("manifest.json") as f:
        golden = json.load(f)
    lines, failures = [], 0
    for label in sorted(ours):
        entry = ours[label]
        try:
            config = json.loads(entry["config"])
            codec = numcodecs.get_codec(dict(config))
        except Exception as e:  # the config itself is refused
            lines.append("FAIL %s config %s: %r" % (label, entry["config"], e))
            failures += 1
            continue
        for name in entry["inputs"]:
            path = "%s.dat" % label if entry.get("objects") else "%s/%s.dat" % (label, name)
            with open("ours/" + path, "rb") as f:
                data = f.read()
            digest = hashlib.sha256(data).hexdigest()
            try:
                if entry.get("objects"):
                    ok, same = check_objects(codec, name, data)
                else:
                    ok, same = check_bytes(codec, golden, label, name, data)
            except Exception as e:
                lines.append("FAIL %s %s: %r" % (path, digest, e))
                failures += 1
                continue
            if not ok:
                lines.append("FAIL %s %s: decodes to different data" % (path, digest))
                failures += 1
                continue
            lines.append("OK %s %s %d %s as numcodecs" % (path, digest, len(data), "same" if same else "differs"))
    same = sum(1 for l in lines if l.endswith("same as numcodecs"))
    ok = sum(1 for l in lines if l.startswith("OK"))
    header = ["# check_ours.py: numcodecs %s, c-blosc %s" % (numcodecs.__version__, numcodecs.blosc.VERSION_STRING),
              "# %d files decoded equal to their input, %d failures; %d byte-identical to numcodecs' own encoding"
              % (ok, failures, same)]
    with open("check_ours.txt", "w") as f:
        f.write("\n".join(header + lines) + "\n")
    print("\n".join(header))
    return 1 if failures else 0


def check_bytes(codec, golden, label, name, data):
    info = golden["inputs"][name]
    with open("inputs/%s.bin" % name, "rb") as f:
        raw = f.read()
    # numcodecs is given an array of the input's dtype, as zarr gives it.
    arr = np.frombuffer(raw, dtype=info["dtype"])
    dec = np.frombuffer(bytes(codec.decode(data)), dtype="|u1")
    ok = np.array_equal(dec, arr.view("|u1").ravel())
    with open("numcodecs/%s/%s.dat" % (label, name), "rb") as f:
        theirs = f.read()
    return ok, theirs == data


def check_objects(codec, name, data):
    config, items, shape = gen.OBJECTS[name]
    want = gen.object_array(config, items, shape)
    dec = codec.decode(data)
    if config["id"] == "json2":
        ok = dec.shape == want.shape and json.dumps(dec.tolist(), sort_keys=True) == json.dumps(want.tolist(), sort_keys=True)
    else:
        ok = list(np.asarray(dec).ravel()) == list(want.ravel())
    return ok, bytes(codec.encode(want)) == data


if __name__ == "__main__":
    sys.exit(main())
