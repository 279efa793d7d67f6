# Writes the benchmark recording of beam/bench/run.sh: int16 [520000, 384], gzip 1, chunks of 40000 rows (about 280 MB stored).
import numpy as np, h5py, sys
rng = np.random.default_rng(1)
n, c = 520000, 384
with h5py.File(sys.argv[1], "w") as f:
    d = f.create_dataset("data", shape=(n, c), dtype="<i2", chunks=(40000, c), compression="gzip", compression_opts=1)
    t = np.arange(40000)[:, None]
    for i in range(0, n, 40000):
        m = min(40000, n - i)
        x = (200 * np.sin((t[:m] + i) / 50.0 + np.arange(c)[None, :]) + rng.normal(0, 30, (m, c))).astype("<i2")
        d[i:i + m] = x
