"""Checks with pynwb what `go run ./amend SRC OUT` wrote (never run by go test):

  cd examples && go run ./amend ../nwb/testdata/amend/source.nwb /tmp/x.lindi.tar
  PYTHONPATH=... /usr/bin/python3 amend/testdata/check.py /tmp/x.lindi.tar > amend/testdata/check.log

(testdata/nwb/tables.nwb is not one pynwb reads: its ElectrodeGroups lack a device.)

numpy recomputes the moving average and the peaks from the source series as
pynwb reads it; pynwb.validate must report nothing.
"""
import sys
import warnings

import lindi
import numpy as np
import pynwb
from pynwb import NWBHDF5IO

warnings.simplefilter("ignore")
p = sys.argv[1]
nwb = NWBHDF5IO(file=lindi.LindiH5pyFile.from_lindi_file(p), mode="r").read()
mod = nwb.processing["analysis"]
s = mod["smoothed"]
src = next(iter(sorted(nwb.acquisition.items())))[1]
m = min(10000, src.data.shape[0])
x = np.asarray(src.data[:m], dtype=float) * src.conversion + src.offset
if x.ndim == 1:
    x = x[:, None]
k = np.ones(5)
norm = np.convolve(np.ones(m), k, "same")
ref = np.stack([np.convolve(x[:, c], k, "same") / norm for c in range(x.shape[1])], 1)
got = np.asarray(s.data[:], dtype=float).reshape(ref.shape)
ok = True
def check(cond, what):
    global ok
    print(("ok   " if cond else "FAIL ") + what)
    ok &= bool(cond)
check(type(mod).__name__ == "ProcessingModule" and mod.description == "lindi-go example", "processing/analysis")
check(type(s).__name__ == "TimeSeries" and s.data.dtype == np.float64 and s.unit == src.unit
      and s.conversion == 1.0 and s.offset == 0.0, "smoothed: float64 TimeSeries, source unit, conversion 1, offset 0")
check(np.abs(got - ref).max() <= 1e-12 * max(1.0, np.abs(ref).max()), "smoothed: the clipped 5-sample moving average")
if src.timestamps is None:
    check(s.rate == src.rate and s.starting_time == src.starting_time and s.timestamps is None, "smoothed: the source's rate and starting_time")
else:
    check(np.array_equal(s.timestamps[:], src.timestamps[:m]), "smoothed: the source's first timestamps")
df = mod["peaks"].to_dataframe()
check(mod["peaks"].description == "largest sample per channel" and list(df.columns) == ["channel", "sample", "value"],
      "peaks: description and columns")
check(list(df["channel"]) == list(range(ref.shape[1])) and list(df["sample"]) == list(np.argmax(ref, 0))
      and np.allclose(df["value"], ref.max(0), rtol=1e-12, atol=0), "peaks: a row per channel, argmax and max")
check(df["channel"].dtype == np.int64 and df["sample"].dtype == np.int64 and df["value"].dtype == np.float64, "peaks: dtypes")
errs = pynwb.validate(io=NWBHDF5IO(file=lindi.LindiH5pyFile.from_lindi_file(p), mode="r"))
print("validation:", errs)
check(not (errs[0] if isinstance(errs, tuple) else errs), "pynwb.validate reports nothing")
sys.exit(0 if ok else 1)
