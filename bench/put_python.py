#!/usr/bin/python3
"""The Python anchor of `go run ./cmd/lindi-bench put`: `lindi put` of a .npy into an empty .lindi.tar against
Python lindi's np.load + create_dataset(data=a, ...) + close into a new .lindi.tar, each a whole
process, interleaved, per codec; and the disk's floor (a sequential write of the output's bytes with
fsync). Never run by go test or CI.

usage: PYTHONPATH=<lindi source> /usr/bin/python3 bench/put_python.py LINDI DATA.npy EMPTY.lindi.tar DIR [RUNS]
       (EMPTY.lindi.tar: a new file made by lindi, copied before each put)"""
import os, shutil, statistics, subprocess, sys, time

CODECS = [  # name, lindi put --codec, Python lindi create_dataset keywords (as Python source)
    ("zlib level 4", '{"id":"zlib","level":4}', 'dict(compression="zlib", compression_opts=4)'),
    ("blosc lz4 shuffle", '{"blocksize":0,"clevel":5,"cname":"lz4","id":"blosc","shuffle":1}', 'dict()'),
    ("zstd level 3", '{"id":"zstd","level":3}', 'dict(compression=numcodecs.Zstd(level=3))'),
]

PY = """
import sys, numpy as np, numcodecs, lindi
a = np.load(sys.argv[1])
f = lindi.LindiH5pyFile.from_lindi_file(sys.argv[2], mode="w")
f.create_dataset("data", data=a, **%s)
f.close()
"""


def timed(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, check=True)
    return time.perf_counter() - t


def floor(path, n):
    buf = bytes(range(256)) * (8 << 12)
    t = time.perf_counter()
    with open(path, "wb") as f:
        left = n
        while left > 0:
            k = min(left, len(buf))
            f.write(buf[:k])
            left -= k
        f.flush()
        os.fsync(f.fileno())
    took = time.perf_counter() - t
    os.remove(path)
    return took


def main():
    lindi_bin, npy, empty, d = sys.argv[1:5]
    runs = int(sys.argv[5]) if len(sys.argv) > 5 else 3
    print(f"{os.path.getsize(npy) / 1e6:.0f} MB .npy, whole processes, median of {runs}, interleaved")
    for name, config, kw in CODECS:
        ours, theirs, floors = [], [], []
        out, pyout = os.path.join(d, "go.lindi.tar"), os.path.join(d, "py.lindi.tar")
        for _ in range(runs):
            shutil.copy(empty, out)
            ours.append(timed([lindi_bin, "put", "--codec", config, out, "data", npy]))
            if os.path.exists(pyout):
                os.remove(pyout)
            theirs.append(timed([sys.executable, "-c", PY % kw, npy, pyout]))
            floors.append(floor(os.path.join(d, "floor.bin"), os.path.getsize(out)))
        o, p, fl = statistics.median(ours), statistics.median(theirs), statistics.median(floors)
        print(f"{name}: lindi put {o:.2f}s ({os.path.getsize(out) / 1e6:.0f} MB), Python lindi {p:.2f}s "
              f"({os.path.getsize(pyout) / 1e6:.0f} MB), ratio {o / p:.2f}x; disk floor {fl:.2f}s, vs floor {o / fl:.2f}x")
        print("   lindi", " ".join(f"{x:.2f}" for x in ours), "| python", " ".join(f"{x:.2f}" for x in theirs))


if __name__ == "__main__":
    main()
