#!/usr/bin/python3
"""Golden frames for the encoders, written by numcodecs 0.11.

Run from this directory with Debian's /usr/bin/python3 (numcodecs 0.11,
c-blosc 1.21.3). It writes:

  inputs/<name>.bin         fixed deterministic inputs (raw array bytes)
  objects.json              object-array inputs (codec, items, chunk shape)
  numcodecs/<label>/<name>.dat  numcodecs' encoding of input <name>
  numcodecs/objects/<name>.dat  numcodecs' encoding of object input <name>
  manifest.json             labels -> configs, inputs -> dtype, frame list

The Go tests decode every frame with package codecs and compare to the
input (expected values come from here, never from Go), and encode every
input with our encoders into ours/ (go test -run Ours -update), which
check_ours.py decodes with numcodecs. Rerunning this script rewrites the
same bytes except for gzip frames, whose header carries the time.
"""
import json
import os
import shutil

import numcodecs
import numpy as np

assert numcodecs.__version__.startswith("0.11"), numcodecs.__version__

rng = np.random.default_rng(20240611)


def noisy_int16(n):
    """Ephys-like samples: a random walk plus noise."""
    walk = np.cumsum(rng.normal(0, 4, n))
    return (walk + rng.normal(0, 20, n)).astype("<i2")


# name -> numpy array (its dtype gives numcodecs' typesize)
INPUTS = {
    "u1_ramp": (np.arange(3000) // 7 % 256).astype("|u1"),
    "u1_small": np.arange(100, dtype="|u1"),
    "f8_small": np.linspace(0, 1, 5).astype("<f8"),  # 40 bytes: memcpyed
    "i2_noisy": noisy_int16(18000),  # 36000 bytes: leftover blocks above 32 KiB
    "i2_block": noisy_int16(2048),  # 4096 bytes: exactly one forced block
    "i4_ramp": np.arange(4000, dtype="<i4") * 3,
    "f8_sine": np.sin(np.arange(2000) / 50.0).astype("<f8"),
    "v20": np.frombuffer(np.repeat(np.arange(500, dtype="<u4"), 5).tobytes(), dtype="|V20"),
    "s300": np.array([("row %d " % i) * (i % 30 + 1) for i in range(30)], dtype="|S300"),
    "u4_random": rng.integers(0, 2**32, 1000, dtype="<u4"),  # incompressible
}

INTS = ["u1_ramp", "u1_small", "i2_noisy", "i2_block", "i4_ramp", "u4_random"]
ALL = list(INPUTS)


def blosc(cname, clevel=5, shuffle=1, blocksize=0):
    return {"id": "blosc", "cname": cname, "clevel": clevel, "shuffle": shuffle, "blocksize": blocksize}


# label -> (config, inputs, decode_only). decode_only configs are refused
# by our encoders (blosclz, snappy and bit shuffle are read, not written).
CONFIGS = {
    "zlib1": ({"id": "zlib", "level": 1}, ALL, False),
    "zlib9": ({"id": "zlib", "level": 9}, ALL, False),
    "gzip4": ({"id": "gzip", "level": 4}, ALL, False),
    "zstd1": ({"id": "zstd", "level": 1}, ALL, False),
    "zstd3": ({"id": "zstd", "level": 3}, ALL, False),
    "zstd19": ({"id": "zstd", "level": 19}, ALL, False),
    "zstdneg": ({"id": "zstd", "level": -5}, ALL, False),
    "lz4": ({"id": "lz4", "acceleration": 1}, ALL, False),
    "lz4acc8": ({"id": "lz4", "acceleration": 8}, ALL, False),
    "shuffle": None,  # per input: elementsize = itemsize, filled below
    "delta": None,  # per integer input: dtype = its dtype
    "blosc_default": (blosc("lz4"), ALL, False),
    "blosc_lz4_noshuf": (blosc("lz4", 5, 0), ALL, False),
    "blosc_lz4_c1": (blosc("lz4", 1, 1), ALL, False),
    "blosc_lz4_c9": (blosc("lz4", 9, 1), ALL, False),
    "blosc_lz4hc": (blosc("lz4hc", 5, 1), ALL, False),
    "blosc_lz4hc_noshuf": (blosc("lz4hc", 9, 0), ALL, False),
    "blosc_zstd": (blosc("zstd", 5, 1), ALL, False),
    "blosc_zstd_noshuf": (blosc("zstd", 3, 0), ALL, False),
    "blosc_zstd_c1": (blosc("zstd", 1, 1), ALL, False),
    "blosc_zstd_c9": (blosc("zstd", 9, 1), ALL, False),
    "blosc_zlib": (blosc("zlib", 5, 1), ALL, False),
    "blosc_zlib_noshuf": (blosc("zlib", 1, 0), ALL, False),
    "blosc_c0": (blosc("lz4", 0, 1), ALL, False),
    "blosc_autoshuf": (blosc("lz4", 5, -1), ALL, False),
    "blosc_bs4096": (blosc("lz4", 5, 1, 4096), ALL, False),
    "blosc_zstd_bs4096": (blosc("zstd", 5, 0, 4096), ALL, False),
    "blosc_blosclz": (blosc("blosclz", 5, 1), ALL, True),
    "blosc_snappy": (blosc("snappy", 5, 1), ALL, True),
    "blosc_bitshuf": (blosc("lz4", 5, 2), ALL, True),
}

# Object arrays: name -> (codec config, items, chunk shape). NaN and the
# infinities are bare tokens, as json2 writes them.
JSON2 = {"id": "json2", "allow_nan": True, "check_circular": True, "encoding": "utf-8", "ensure_ascii": True,
         "indent": None, "separators": [",", ":"], "skipkeys": False, "sort_keys": True, "strict": True}
OBJECTS = {
    "json2_strings": (JSON2, ["a", "h\u00e9llo", "\U0001F600 emoji", "quote\" back\\ nl\n tab\t del\x7f ctl\x01", ""], [5]),
    "json2_numbers": (JSON2, [0, -1, 2**63 - 1, 2**64 - 1, 10**30, 1.5, -0.0, 1e16, 1e15, 1e-5, 1e-4, 0.1,
                              5e-324, 1.7976931348623157e308, float("nan"), float("inf"), float("-inf"), 123456.789],
                      [18]),
    "json2_mixed": (JSON2, [None, True, False, {"b": 1, "a": [1, {"z": None, "\u00e9": 2.5}], "A": "x"}, [], [1, "two"],
                            {"_REFERENCE": {"object_id": None, "path": "/units/spikes", "source": ".",
                                            "source_object_id": None}}, "end"], [8]),
    "json2_2d": (JSON2, ["c", 0, "\u00e9", 0, "d", "e"], [3, 2]),
    "json2_3d": (JSON2, [1, 2, 3, 4, 5, 6, 7, 8], [2, 2, 2]),
    "json2_empty": (JSON2, [], [0]),
    "json2_empty_axis": (JSON2, [], [2, 0]),
    "vlen_utf8": ({"id": "vlen-utf8"}, ["a", "", "h\u00e9llo", "\U0001F600", "x" * 300], [5]),
    "vlen_utf8_2d": ({"id": "vlen-utf8"}, ["a", "b", "c", "d", "e", "f"], [2, 3]),
    "vlen_bytes": ({"id": "vlen-bytes"}, ["61", "", "00ff10", "7f" * 200], [4]),  # hex
}


def object_array(config, items, shape):
    if config["id"] == "vlen-bytes":
        items = [bytes.fromhex(x) for x in items]
    a = np.empty(len(items), dtype=object)
    a[:] = items
    return a.reshape(shape)


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def main():
    for d in ("inputs", "numcodecs"):
        shutil.rmtree(d, ignore_errors=True)
    manifest = {"numcodecs": numcodecs.__version__, "blosc": numcodecs.blosc.VERSION_STRING,
                "inputs": {}, "configs": {}, "frames": []}
    objects = {}
    for name, arr in INPUTS.items():
        write("inputs/%s.bin" % name, arr.tobytes())
        manifest["inputs"][name] = {"dtype": arr.dtype.str, "itemsize": arr.dtype.itemsize, "nbytes": arr.nbytes}

    configs = dict(CONFIGS)
    del configs["shuffle"], configs["delta"]
    for name, arr in INPUTS.items():
        configs["shuffle_" + name] = ({"id": "shuffle", "elementsize": arr.dtype.itemsize}, [name], False)
    for name in INTS:
        configs["delta_" + name] = ({"id": "delta", "dtype": INPUTS[name].dtype.str}, [name], False)

    for label, (config, names, decode_only) in configs.items():
        codec = numcodecs.get_codec(dict(config))
        manifest["configs"][label] = {"config": config, "decode_only": decode_only}
        for name in names:
            enc = codec.encode(INPUTS[name])
            enc = np.asarray(enc).tobytes() if not isinstance(enc, bytes) else enc
            assert np.array_equal(np.frombuffer(codec.decode(enc), dtype=INPUTS[name].dtype).view("|u1"),
                                  INPUTS[name].view("|u1").ravel()), (label, name)
            write("numcodecs/%s/%s.dat" % (label, name), enc)
            manifest["frames"].append({"config": label, "input": name})

    for name, (config, items, shape) in OBJECTS.items():
        codec = numcodecs.get_codec(dict(config))
        enc = codec.encode(object_array(config, items, shape))
        write("numcodecs/objects/%s.dat" % name, bytes(enc))
        objects[name] = {"config": config, "items": items, "shape": shape}

    with open("manifest.json", "w") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")
    with open("objects.json", "w") as f:  # bare NaN/Infinity: read with the codecs JSON parser
        json.dump(objects, f, indent=1, sort_keys=True)
        f.write("\n")
    print("%d frames, %d object frames" % (len(manifest["frames"]), len(objects)))


if __name__ == "__main__":
    main()
