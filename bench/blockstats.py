"""Anchor of `go run ./cmd/lindi-bench blocks`: per-channel mean and standard deviation
(ddof 0) of an ElectricalSeries in physical units, read block by block with
h5py and numpy. Run by hand, never in CI.

    python3 blockstats.py make FILE      # the synthetic recording (h5py)
    python3 blockstats.py run FILE [ROWS]  # the h5py loop; prints time and a checksum
    python3 blockstats.py compare FILE LINDI_BENCH [RUNS]  # both, as whole processes, interleaved

LINDI_BENCH is a lindi-bench binary (go build -o lindi-bench ./cmd/lindi-bench).

The recording: 262,144 x 192 int16 (random walks plus noise), gzip level 1,
chunks 16,384 x 64, conversion 0.195e-6 V, offset 1e-6, and a
channel_conversion, in an NWB-shaped file.
"""
import statistics
import subprocess
import sys
import time

SERIES = "acquisition/ElectricalSeries"


def make(path):
    import h5py
    import numpy as np
    rows, chans = 262144, 192
    rng = np.random.default_rng(7)
    walk = np.cumsum(rng.normal(0, 3, (rows, chans)), axis=0)
    walk -= np.linspace(0, 1, rows)[:, None] * walk[-1]  # keep it bounded
    data = np.clip(walk + rng.normal(0, 20, (rows, chans)), -32768, 32767).astype("<i2")
    with h5py.File(path, "w") as f:
        f.attrs["neurodata_type"] = "NWBFile"
        f.attrs["namespace"] = "core"
        f.attrs["nwb_version"] = "2.7.0"
        g = f.create_group(SERIES)
        g.attrs["neurodata_type"] = "ElectricalSeries"
        g.attrs["namespace"] = "core"
        d = g.create_dataset("data", data=data, chunks=(16384, 64), compression="gzip", compression_opts=1)
        d.attrs["unit"] = "volts"
        d.attrs["conversion"] = 0.195e-6
        d.attrs["offset"] = 1e-6
        d.attrs["resolution"] = -1.0
        st = g.create_dataset("starting_time", data=0.0)
        st.attrs["rate"] = 30000.0
        st.attrs["unit"] = "seconds"
        g.create_dataset("channel_conversion", data=1 + np.arange(chans) / 1000.0)


def run(path, rows=65536):
    import h5py
    import numpy as np
    t0 = time.perf_counter()
    with h5py.File(path, "r") as f:
        g = f[SERIES]
        d = g["data"]
        conv = d.attrs["conversion"] * g["channel_conversion"][:]
        off = d.attrs["offset"]
        n, chans = d.shape
        s = np.zeros(chans)
        ss = np.zeros(chans)
        for i in range(0, n, rows):
            x = d[i:i + rows].astype(np.float64) * conv + off
            s += x.sum(axis=0)
            ss += (x * x).sum(axis=0)
        mean = s / n
        std = np.sqrt(np.maximum(ss / n - mean * mean, 0))
    print(f"h5py {time.perf_counter() - t0:.3f}s mean[0] {mean[0]:.6e} std[0] {std[0]:.6e} sum(mean) {mean.sum():.6e}")


def timed(cmd):
    t0 = time.perf_counter()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return time.perf_counter() - t0, out.strip().splitlines()[-1]


def compare(path, lindi_bench, runs=5):
    ours, theirs = [], []
    for _ in range(runs):
        t, o = timed([lindi_bench, "blocks", "-runs", "1", path, SERIES])
        ours.append(t)
        t, h = timed([sys.executable, __file__, "run", path])
        theirs.append(t)
    print("lindi:", o)
    print("h5py: ", h)
    mo, mh = statistics.median(ours), statistics.median(theirs)
    print(f"whole process, median of {runs}: lindi {mo:.3f}s  h5py {mh:.3f}s  ratio {mo / mh:.2f}x")
    print("lindi runs", " ".join(f"{x:.3f}" for x in ours))
    print("h5py runs ", " ".join(f"{x:.3f}" for x in theirs))


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "make":
        make(sys.argv[2])
    elif cmd == "run":
        run(sys.argv[2], *(int(a) for a in sys.argv[3:]))
    elif cmd == "compare":
        compare(sys.argv[2], sys.argv[3], *(int(a) for a in sys.argv[4:]))
    else:
        sys.exit(__doc__)
