#!/usr/bin/python3
"""The Python anchor of `go run ./cmd/lindi-bench write`: Python lindi's create_dataset(data=..., compression=...)
of a noisy int16 array (384 channels of random walks plus noise, as lindi-bench write makes) into a
.lindi.tar, closed (written) and timed, per codec. Never run by go test or CI.

usage: PYTHONPATH=<lindi source> /usr/bin/python3 bench/write_python.py [MB] [DIR]"""
import os, sys, tempfile, time
import numpy as np
import numcodecs
import lindi

mb = int(sys.argv[1]) if len(sys.argv) > 1 else 2048
d = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp()
channels = 384
rows = (mb << 20) // 2 // channels
rng = np.random.default_rng(7)
walk = np.zeros(channels)
data = np.empty((rows, channels), dtype="<i2")
block = 65536
for i in range(0, rows, block):
    n = min(block, rows - i)
    steps = rng.normal(0, 8, (n, channels))
    # walk[t] = 0.999 walk[t-1] + step: a first-order filter, row by row in blocks
    w = np.empty((n, channels))
    for t in range(n):
        walk = 0.999 * walk + steps[t]
        w[t] = walk
    data[i:i + n] = (w + rng.normal(0, 20, (n, channels))).astype("<i2")
print(f"writing {rows}x{channels} int16 ({data.nbytes / 1e6:.0f} MB) with Python lindi into {d}, "
      f"numcodecs {numcodecs.__version__}, blosc threads {numcodecs.blosc.get_nthreads()}")
for name, kw in [("zlib level 4", dict(compression="zlib", compression_opts=4)),
                 ("blosc lz4 shuffle", dict()),
                 ("zstd level 3", dict(compression=numcodecs.Zstd(level=3)))]:
    path = os.path.join(d, "py.lindi.tar")
    if os.path.exists(path):
        os.remove(path)
    t = time.perf_counter()
    f = lindi.LindiH5pyFile.from_lindi_file(path, mode="w")
    f.create_group("acquisition").create_group("ElectricalSeries").create_dataset("data", data=data, **kw)
    f.close()
    took = time.perf_counter() - t
    print(f"{name}: {took:.2f}s, {data.nbytes / 1e6 / took:.0f} MB/s in, file {os.path.getsize(path) / 1e6:.0f} MB")
    os.remove(path)
