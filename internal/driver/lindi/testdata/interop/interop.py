#!/usr/bin/python3
"""Interop of the Go writable LINDI containers with Python lindi 0.4.5.

Run from anywhere (never from go test), with lindi on PYTHONPATH (see
/work/shared/check/README.md):

  PYTHONPATH=<lindipy>:<pynwb>:<remfile> /usr/bin/python3 interop.py > interop.log

(a) a .lindi.tar and a .lindi.d that Go creates and commits three times open
    in lindi.LindiH5pyFile.from_lindi_file and read the same as in Go;
(b) ping-pong on one tar: Python lindi amends it (mode="r+", create_dataset,
    close), Go opens it (OpenSink) and commits twice, again and again, until
    lindi.json and the index have outgrown their slots on both sides (Python
    trashing and appending, Python rewriting in place, Go appending); after
    every step both sides read everything, and Python's tarfile lists every
    member of the index; then Go compacts it (to a new file, and in place)
    and both sides amend and read it again;
(c) the same for a .lindi.d (Python amends, Go amends);
(e) crash states: the Go writer of TestCrash (its test binary), killed at each
    stage of a commit, leaves a tar Python lindi reads at the last committed
    state or the one being committed; where the kill left no zero tail
    (so lindi could not append), Go's OpenSink restores it and Python lindi
    amends the file;
(d) fixtures for go test: the empty tar Python lindi creates, and a tar in
    which Python lindi trashed lindi.json and its index (.trash/ members).
"""
import json, os, shutil, subprocess, sys, tarfile, tempfile
import numpy as np
import lindi

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "../../../../.."))
TMP = tempfile.mkdtemp(prefix="lindi-interop-")
GOSTEP = os.path.join(TMP, "gostep")
subprocess.run(["go", "build", "-o", GOSTEP, "./internal/driver/lindi/testdata/interop/gostep"], cwd=REPO, check=True)


def go(*args):
    r = subprocess.run([GOSTEP, *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"gostep {' '.join(args)} failed: {r.stderr}")
    return r.stdout


def godump(path):
    return {k: {"shape": v["shape"], "data": [float(x) for x in v["data"]]} for k, v in json.loads(go("dump", path)).items()}


def pydump(path):
    f = lindi.LindiH5pyFile.from_lindi_file(path)
    out = {}

    def visit(g, prefix):
        for k in g.keys():
            obj = g[k]
            if isinstance(obj, lindi.LindiH5pyDataset):
                a = np.asarray(obj[()])
                out[prefix + k] = {"shape": list(a.shape), "data": [float(x) for x in a.reshape(-1)]}
            else:
                visit(obj, prefix + k + "/")
    visit(f, "/")
    f.close()
    return out


def sizes(path):
    return json.loads(go("sizes", path))


def same(label, path, want=None):
    g, p = godump(path), pydump(path)
    if g != p:
        diff = sorted(set(g) ^ set(p)) or [k for k in g if g[k] != p[k]]
        raise SystemExit(f"{label}: Go and Python read {path} differently: {diff[:5]}")
    if want is not None:
        missing = sorted(set(want) - set(g))
        if missing:
            raise SystemExit(f"{label}: datasets lost: {missing}")
        for k in want:
            if want[k] != g[k]:
                raise SystemExit(f"{label}: {k} changed")
    n = sum(len(v["data"]) for v in g.values())
    print(f"{label}: Go and Python read the same {len(g)} datasets ({n} values)")
    return g


def check_tar(label, path):
    with tarfile.open(path) as t:
        names = set(t.getnames())
    with open(path, "rb") as f:
        f.seek(512)
        entry = json.loads(f.read(1024))
        f.seek(entry["index"]["d"])
        index = json.loads(f.read(entry["index"]["s"]))
        f.seek(-1024, 2)
        tail = f.read(1024)
    listed = {r["n"] for r in index["files"]}
    assert listed <= names, f"{label}: tarfile does not list {listed - names}"
    assert tail == b"\0" * 1024, f"{label}: no zero tail"
    trash = sorted(n for n in names if n.startswith(".trash/"))
    s = sizes(path)
    print(f"{label}: tarfile lists all {len(listed)} indexed members ({len(names)} in all, {len(trash)} in .trash/); "
          f"index slot {s['index']} bytes, lindi.json slot {s['lindi.json']} bytes")
    return s


def py_amend(path, name, n, pad):
    f = lindi.LindiH5pyFile.from_lindi_file(path, mode="r+")
    data = (np.arange(n) + 7000000).astype(np.int32)
    d = f.create_dataset(name, data=data, chunks=(400,), compression=None)
    d.attrs["note"] = "p" * pad
    f.close()
    print(f"python amended {os.path.basename(path)}: dataset /{name} ({n} int32 in chunks of 400)")


# (a) Go creates; Python reads the same.
for name in ["a.lindi.tar", "a.lindi.d"]:
    p = os.path.join(TMP, name)
    go("create", p)
    same(f"(a) go-created {name}", p)
    if name.endswith(".tar"):
        check_tar(f"(a) go-created {name}", p)

# (b) Ping-pong on a tar.
p = os.path.join(TMP, "b.lindi.tar")
go("create", p)
have = same("(b) created", p)
grew = {"python trashed": False, "python in place": False}
for step in range(1, 5):
    before = sizes(p)
    py_amend(p, f"py{step}", 120000, 20000)  # 300 chunks: 300 index records
    after = check_tar(f"(b) step {step} python", p)
    grew["python trashed"] |= after["index"] > before["index"]
    grew["python in place"] |= after["index"] == before["index"] and after["files"] > before["files"]
    have = same(f"(b) step {step} python", p, have)
    go("amend", p, f"g{step}")
    check_tar(f"(b) step {step} go", p)
    have = same(f"(b) step {step} go", p, have)
print(f"(b) python outgrew the index and lindi.json Go wrote (trash, append): {grew['python trashed']}; "
      f"python rewrote Go's index in place: {grew['python in place']}")
assert all(grew.values())
for q in [p + ".compacted.lindi.tar", p]:
    go("compact", p, q)
    check_tar(f"(b) compacted {'in place' if q == p else 'to a new file'}", q)
    same(f"(b) compacted {'in place' if q == p else 'to a new file'}", q, have)
py_amend(p, "py5", 120000, 20000)
check_tar("(b) compacted, then python", p)
have = same("(b) compacted, then python", p, have)
go("amend", p, "g5")
have = same("(b) compacted, then python, then go", p, have)

# (c) Ping-pong on a directory.
p = os.path.join(TMP, "c.lindi.d")
go("create", p)
have = same("(c) created", p)
for step in range(1, 3):
    py_amend(p, f"py{step}", 4000, 100)
    have = same(f"(c) step {step} python", p, have)
    go("amend", p, f"g{step}")
    have = same(f"(c) step {step} go", p, have)

# (e) Crash states, read by Python.
TEST = os.path.join(TMP, "lindi.test")
subprocess.run(["go", "test", "-c", "-o", TEST, "./internal/driver/lindi"], cwd=REPO, check=True)
for stage in ["blobs", "doc", "index", "synced", "entry", "done"]:
    p = os.path.join(TMP, f"e-{stage}.lindi.tar")
    go("create", p)
    env = dict(os.environ, LINDI_CRASH_WRITER=f"tar|{p}|{stage}|2|5")
    r = subprocess.run([TEST, "-test.run=^TestHelperWriter$"], env=env, capture_output=True, text=True)
    assert r.returncode == -9, f"the writer was not killed at {stage}: {r.returncode} {r.stderr}"
    done = [int(l.split()[1]) for l in r.stdout.splitlines() if l.startswith("done")]
    begun = [int(l.split()[1]) for l in r.stdout.splitlines() if l.startswith("begin")]
    f = lindi.LindiH5pyFile.from_lindi_file(p)
    state = int(f.attrs["state"])
    f.close()
    assert state in (done[-1], begun[-1]), f"{stage}: python reads state {state}, not {done[-1]} or {begun[-1]}"
    with open(p, "rb") as fh:
        fh.seek(-1024, 2)
        torn = fh.read(1024) != b"\0" * 1024
    if torn:
        go("repair", p)
    check_tar(f"(e) killed at {stage}", p)
    py_amend(p, "after", 4000, 10)
    have = same(f"(e) killed at {stage}, {'repaired by Go, ' if torn else ''}amended by python", p)
    print(f"(e) killed at {stage}: python read state {state} (committed {done[-1]}, committing {begun[-1]}); "
          f"zero tail {'torn, restored by OpenSink' if torn else 'intact'}")

# (d) Fixtures.
p = os.path.join(TMP, "e.lindi.tar")
lindi.LindiH5pyFile.from_lindi_file(p, mode="w").close()
shutil.copy(p, os.path.join(HERE, "python-empty.lindi.tar"))
p = os.path.join(TMP, "t.lindi.tar")
f = lindi.LindiH5pyFile.from_lindi_file(p, mode="w")
f.create_dataset("x", data=np.arange(1000, dtype=np.int32), chunks=(400,), compression=None)
f.close()
for i in range(2):
    f = lindi.LindiH5pyFile.from_lindi_file(p, mode="r+")
    f.attrs[f"grow{i}"] = "q" * (9000 * (i + 1))  # outgrows lindi.json: trashed, appended
    f.close()
check_tar("(d) python-trashed.lindi.tar", p)
fixture = os.path.join(HERE, "python-trashed.lindi.tar")
if not os.path.exists(fixture):  # its trash names are random: kept once written
    shutil.copy(p, fixture)
print("(d) fixtures written: python-empty.lindi.tar (always the same bytes), python-trashed.lindi.tar (if absent)")
shutil.rmtree(TMP)
print("all interop checks passed")
