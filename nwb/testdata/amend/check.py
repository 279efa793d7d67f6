"""Reads the amendments TestAmendWrite leaves in DIR with pynwb, checks every
new object's type and values against what the test wrote, and compares
pynwb.validate's findings with the source's.  Run by run.sh (never by go test):

  go test ./nwb -run 'TestAmendWrite|TestAmendExtension' -amend DIR && /usr/bin/python3 check.py DIR

pynwb 2.3.1 + hdmf 3.5.1 (see /work/shared/check/README.md); exits 1 on the
first difference.
"""
import math
import os
import sys
import warnings

import numpy as np
import lindi
import pynwb
from pynwb import NWBHDF5IO

warnings.simplefilter("ignore")
HERE = os.path.dirname(os.path.abspath(__file__))
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def near(a, b):
    return np.allclose(np.asarray(a, dtype=float), np.asarray(b, dtype=float), rtol=0, atol=1e-12)


def validate(io):
    errs = pynwb.validate(io=io)
    if isinstance(errs, tuple):
        errs = errs[0]
    return sorted(str(e) for e in errs)


def main(d):
    src_io = NWBHDF5IO(os.path.join(HERE, "source.nwb"), "r")
    src = src_io.read()
    src_errs = validate(NWBHDF5IO(os.path.join(HERE, "source.nwb"), "r"))
    print("source validation:", src_errs)
    sv = src.acquisition["ElectricalSeries"]
    volts = sv.data[:100, :] * sv.conversion + sv.offset
    for name in sorted(os.listdir(d)):
        if not name.startswith("amended"):
            continue
        p = os.path.join(d, name)
        print("==", name)
        f = lindi.LindiH5pyFile.from_lindi_file(p)
        io = NWBHDF5IO(file=f, mode="r")
        nwb = io.read()
        # The source's objects, alongside.
        es = nwb.acquisition["ElectricalSeries"]
        check(es.data.shape == (400, 4) and np.array_equal(es.data[:], sv.data[:]), "source ElectricalSeries reads as in the source")
        beh = nwb.processing["behavior"]
        check(type(beh).__name__ == "ProcessingModule" and beh.description == "behavioural measures", "behavior module")
        speed = beh["speed"]
        check(type(speed).__name__ == "TimeSeries" and speed.unit == "m/s" and speed.data.dtype == np.float32
              and near(speed.data[:], [1.5, 2, -0.25, 4, 8]) and near(speed.timestamps[:], [0, 0.1, 0.25, 0.5, 0.75])
              and speed.description == "running speed" and speed.conversion == 1.0 and speed.resolution == -1.0,
              "speed: float32 TimeSeries with timestamps")
        pos = beh["position"]
        check(pos.rate == 50 and pos.starting_time == 1.25 and pos.timestamps is None and pos.data.shape == (6, 2)
              and near(pos.data[:], np.arange(12).reshape(6, 2) * 0.5) and pos.conversion == 0.01
              and pos.continuity == "continuous" and pos.unit == "cm",
              "position: 2-D TimeSeries with starting_time and rate")
        sc = beh["scores"]
        df = sc.to_dataframe()
        check(type(sc).__name__ == "DynamicTable" and list(df.index) == [10, 11, 12]
              and list(sc.colnames) == ["n", "label", "hist", "nest", "electrode", "electrodes", "ref"],
              "scores: ids and colnames")
        check(list(df["n"]) == [7, -3, 12] and list(df["label"]) == ["a", "\u00e9", ""], "scores: numbers and strings")
        check([list(x) for x in df["hist"]] == [[1, 2], [], [3, 4, 5]], "scores: ragged column")
        check([[list(y) for y in x] for x in df["nest"]] == [[[1], [2, 3]], [], [[], [4, 5, 6]]], "scores: doubly ragged column")
        reg = sc["electrode"]
        check(type(reg).__name__ == "DynamicTableRegion" and reg.table is nwb.electrodes and list(reg.data[:]) == [0, 5, 2],
              "scores: region into the electrodes table")
        check(list(df["electrode"].iloc[1].index) == [5], "scores: region row resolves")
        rr = sc["electrodes"]
        check(type(rr.target).__name__ == "DynamicTableRegion"
              and [list(x.index) for x in df["electrodes"]] == [[0, 1], [2], [3, 4, 5]], "scores: ragged region")
        refs = list(sc["ref"].data[:])
        check(refs[0] is es and refs[1] is speed and refs[2] is nwb.units, "scores: references resolve to the containers")
        ec = nwb.processing["ecephys"]
        h = ec["halved"]
        check(type(h).__name__ == "ElectricalSeries" and h.unit == "volts" and h.rate == 1000 and h.starting_time == 0.5
              and near(h.data[:], volts / 2) and h.electrodes.table is nwb.electrodes and list(h.electrodes.data[:]) == [0, 1, 2, 3]
              and h.filtering == "none", "halved: ElectricalSeries with an electrodes region")
        su = ec["sorted"]
        sdf = su.to_dataframe()
        check(type(su).__name__ == "Units" and [list(x) for x in sdf["spike_times"]] == [[1, 2], [3]]
              and su["waveform_mean"].data.shape == (2, 5) and near(su["waveform_mean"].data[:], np.arange(10).reshape(2, 5) / 4)
              and su.waveform_rate == 30000 and su.waveform_unit == "volts", "sorted: a new Units table with waveform_mean")
        wf = [[[list(e) for e in spike] for spike in unit] for unit in sdf["waveforms"]]
        check(wf == [[[[1, 2, 3], [4, 5, 6]], [[7, 8, 9]]], [[[10, 11, 12], [13, 14, 15], [16, 17, 18]]]]
              and su["waveforms"].target.target.data.dtype == np.float32, "sorted: doubly ragged waveforms (unit, spike, electrode, samples)")
        udf = nwb.units.to_dataframe()
        check(list(udf.index) == [0, 1, 2, 3, 4]
              and [list(x) for x in udf["spike_times"]] == [[0.1, 0.2, 0.35], [0.05], [0.5, 0.6], [], [0.01, 0.02, 0.03]],
              "units: rows appended, spike times")
        check([list(x.index) for x in udf["electrodes"]] == [[0], [1, 2], [3], [4, 5], [0]], "units: appended electrodes")
        edf = nwb.electrodes.to_dataframe()
        check(len(edf) == 8 and list(edf["location"])[6:] == ["CA3", "DG"] and edf["group"].iloc[7] is nwb.electrode_groups["shank0"]
              and list(edf["x"]) == [0, 1, 2, 3, 4, 5, 6, 7], "electrodes: rows appended, string and reference columns")
        tdf = nwb.trials.to_dataframe()
        check(list(tdf["start_time"]) == [0, 0.2, 0.4, 0.6] and list(tdf["stop_time"]) == [0.1, 0.3, 0.5, 0.7]
              and list(tdf["correct"]) == [True, False, True, True], "trials: rows appended")
        ep = nwb.intervals["epochs"]
        edf = ep.to_dataframe()
        check(type(ep).__name__ == "TimeIntervals" and [list(x) for x in edf["tags"]] == [["rest"], ["run", "fast"]]
              and list(edf["start_time"]) == [0, 1], "epochs: TimeIntervals with tags")
        if name == "amended.lindi.tar":
            licks = beh["licks"]
            check(list(licks.data[:]) == [1, 0, 1] and licks.rate == 10, "licks: added by reopening the amendment")
        ids = set()
        for o in nwb.objects.values():
            ids.add(o.object_id)
        check(len(ids) == len(nwb.objects), "object ids are unique")
        errs = validate(NWBHDF5IO(file=lindi.LindiH5pyFile.from_lindi_file(p), mode="r"))
        new = [e for e in errs if e not in src_errs]
        print("validation:", errs)
        check(not new, "pynwb.validate reports nothing new")
    p = os.path.join(d, "python.nwb.lindi.tar")
    if os.path.exists(p):
        print("== python.nwb.lindi.tar (written by Python lindi, amended by Go)")
        nwb = NWBHDF5IO(file=lindi.LindiH5pyFile.from_lindi_file(p), mode="r").read()
        s = nwb.processing["behavior"]["speed"]
        check(near(s.data[:], [1.5, 2, -0.25, 4, 8]) and near(s.timestamps[:], [0, 0.1, 0.25, 0.5, 0.75]), "speed added by Go")
        check([list(x) for x in nwb.units.to_dataframe()["spike_times"]] == [[0.1, 0.2, 0.35], [0.05], [1]], "a unit appended by Go")
        errs = validate(NWBHDF5IO(file=lindi.LindiH5pyFile.from_lindi_file(p), mode="r"))
        check(not [e for e in errs if e not in src_errs], "pynwb.validate reports nothing new")
        f = lindi.LindiH5pyFile.from_lindi_file(p, mode="r+")
        f.attrs["python_again"] = "yes"
        f.close()
        check(lindi.LindiH5pyFile.from_lindi_file(p).attrs["python_again"] == "yes", "Python lindi amends it again (r+)")
    p = os.path.join(d, "extension.lindi.tar")
    if os.path.exists(p):
        # pynwb 2.3.1 reads cached namespaces only when asked (load_namespaces=True).
        print("== extension.lindi.tar")
        nwb = NWBHDF5IO(file=lindi.LindiH5pyFile.from_lindi_file(p), mode="r", load_namespaces=True).read()
        s = nwb.processing["behavior"]["labelled"]
        check(type(s).__name__ == "LabelledSeries" and s.namespace == "ndx-lindi-test" and s.label == "hello"
              and list(s.data[:]) == [1, 2, 3] and s.rate == 2, "labelled: an extension type, from the cached namespace")
        ns = NWBHDF5IO.get_namespaces(file=lindi.LindiH5pyFile.from_lindi_file(p))
        check(ns == {"core": "2.6.0-alpha", "hdmf-common": "1.5.1", "hdmf-experimental": "0.2.0", "ndx-lindi-test": "0.1.0"},
              "cached namespaces: the source's and the extension's, one version each")
        for n in (None, "ndx-lindi-test"):
            io = NWBHDF5IO(file=lindi.LindiH5pyFile.from_lindi_file(p), mode="r", load_namespaces=True)
            errs = pynwb.validate(io=io, namespace=n) if n else validate(io)
            if isinstance(errs, tuple):
                errs = errs[0]
            print("validation", n or "core", ":", errs)
            check(not [e for e in errs if str(e) not in src_errs], "pynwb.validate (%s) reports nothing new" % (n or "core"))
    if failures:
        print(len(failures), "failures")
        sys.exit(1)
    print("all checks passed")


main(sys.argv[1])
