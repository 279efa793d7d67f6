# Writes the recordings of beam/bench/run.sh:
#   make.py OUT          int16 [520000, 384], gzip 1, chunks of 40000 rows (about 280 MB stored)
#   make.py OUT issue    int16 [4000000, 64], gzip 1 + shuffle, chunks of 20000 × 64 (512 MB of
#                        samples, 200 chunks): the dataset issue 38 measured
import numpy as np, h5py, sys
rng = np.random.default_rng(1)
issue = len(sys.argv) > 2 and sys.argv[2] == "issue"
n, c, rows = (4000000, 64, 20000) if issue else (520000, 384, 40000)
with h5py.File(sys.argv[1], "w") as f:
    d = f.create_dataset("data", shape=(n, c), dtype="<i2", chunks=(rows, c), compression="gzip",
                         compression_opts=1, shuffle=issue)
    t = np.arange(rows)[:, None]
    for i in range(0, n, rows):
        m = min(rows, n - i)
        x = (200 * np.sin((t[:m] + i) / 50.0 + np.arange(c)[None, :]) + rng.normal(0, 30, (m, c))).astype("<i2")
        d[i:i + m] = x
