"""Writes oracle.json: what h5grove's own Flask app answers for every entity
of the HDF5 files the tests of package h5grove serve, for TestOracle to
compare `lindi serve`'s answers with, one by one.

h5grove is not reimplemented here: its Flask blueprint (src/h5grove/
flask_utils.py, the app of example/flask_app.py) answers each request through
Flask's test client. Rerun after changing a file it reads or updating h5grove:

    git --git-dir=/work/.mirror/silx-kit+h5grove/repo archive HEAD | tar -x -C /tmp/h5grove-src
    H5GROVE_COMMIT=$(git --git-dir=... rev-parse HEAD) PYTHONPATH=/tmp/h5grove-src/src:DEPS \
        /usr/bin/python3 oracle.py   # from this directory

/usr/bin/python3 needs Debian's python3-h5py, python3-numpy, python3-hdf5plugin
and python3-tifffile; DEPS is a folder holding Flask 3 (with werkzeug,
itsdangerous, blinker, click, jinja2, markupsafe) and orjson, which Debian 12
does not package (any site-packages of another Python 3.11 that has them).

For each file (FILES, relative to ../../testdata) it asks /paths of the root,
then for every path: /meta (of a link also with resolve_links none and all),
/attr (and with attr_keys its first attribute) and, for a dataset (but the NWB
specifications pynwb caches, long JSON texts), /data as json, as json with
flatten=true, as bin, as bin with dtype=safe (what h5web asks for numbers) and
as npy, its /stats, and as json a strided slice and an index of its first
axis. A dataset of more than SMALL elements is asked for a selection of its
first elements along each axis, as h5web asks for slices. An answer is stored
as {"status", "json"} (its parsed JSON) or, for bin and npy, {"status",
"bytes", "sha256"}; "objects": true marks a bin answer of data that holds
Python objects (h5grove sends their memory addresses). The versions of
h5grove, h5py, numpy, orjson and HDF5 are recorded in oracle.json.
"""

import hashlib
import json
import logging
import os
import urllib.parse

import flask
import h5grove
import h5py
import numpy as np
import orjson
from h5grove.flask_utils import BLUEPRINT

HERE = os.path.dirname(os.path.abspath(__file__))
TESTDATA = os.path.join(HERE, "..", "..", "testdata")
FILES = ["conformance/fixture.h5", "conformance/fixture-latest.h5"] + sorted(
    "corners/" + n for n in os.listdir(os.path.join(TESTDATA, "corners")) if n.endswith(".h5")
) + ["parity/features.h5", "parity/parity.h5", "parity/broken.h5", "parity/ext-target.h5",
     "zarrshadow/data.h5", "nwb/tables.nwb", "nwbzarr/ecephys.nwb", "nwbzarr/ophys_behavior.nwb"]
SMALL = 100


def client():
    """A test client of h5grove's Flask app serving TESTDATA."""
    app = flask.Flask("h5grove-oracle")
    app.config["H5_BASE_DIR"] = os.path.abspath(TESTDATA)
    app.register_blueprint(BLUEPRINT)
    logging.getLogger("h5grove-oracle").disabled = True
    return app.test_client()


def ask(c, endpoint, **query):
    """One answer of h5grove: its status and JSON, or its bytes' digest."""
    r = c.get(endpoint + "?" + urllib.parse.urlencode(query))
    out = {"endpoint": endpoint, "query": query, "status": r.status_code}
    if r.headers.get("Content-Type") == "application/json":
        out["json"] = json.loads(r.data)
    elif r.status_code == 200:
        out["bytes"] = len(r.data)
        out["sha256"] = hashlib.sha256(r.data).hexdigest()
    return out


def selection(shape):
    """The slice h5web-like clients ask of a large dataset: the first
    elements along each axis, about SMALL in all."""
    if shape is None or int(np.prod(shape)) <= SMALL:
        return None
    per = max(1, int(SMALL ** (1 / len(shape))))
    return ",".join(f"0:{min(n, per)}" for n in shape)


def holds_objects(path, h5file):
    """Whether h5py reads the dataset at path into Python objects."""
    try:
        return h5file[path].dtype.hasobject
    except Exception:
        return False


def answers_of(c, name, h5file):
    """Every answer asked of the file name (relative to TESTDATA)."""
    paths = ask(c, "/paths", file=name, path="/")
    out = [paths]
    for p in paths.get("json", []):
        meta = ask(c, "/meta", file=name, path=p)
        out += [meta] + attr_answers(c, name, p, meta) + link_answers(c, name, p, h5file)
        if meta.get("json", {}).get("kind") != "dataset" or p.startswith("/specifications/"):
            continue
        out += data_answers(c, name, p, meta["json"]["shape"], holds_objects(p, h5file))
    return out


def attr_answers(c, name, p, meta):
    """/attr of the entity at p: all its attributes, and its first alone
    (attr_keys) when it has any."""
    out = [ask(c, "/attr", file=name, path=p)]
    attrs = meta.get("json", {}).get("attributes") or []
    if attrs:
        out.append(ask(c, "/attr", file=name, path=p, attr_keys=attrs[0]["name"]))
    return out


def link_answers(c, name, p, h5file):
    """/meta of a soft or external link at p with resolve_links none and
    all."""
    if p == "/" or not isinstance(h5file.get(p, getlink=True), (h5py.SoftLink, h5py.ExternalLink)):
        return []
    return [ask(c, "/meta", file=name, path=p, resolve_links=r) for r in ("none", "all")]


def data_answers(c, name, p, shape, objects):
    """/data of the dataset at p in every format, and its /stats."""
    q = {"file": name, "path": p}
    sel = selection(shape)
    if sel is not None:
        q["selection"] = sel
    out = [ask(c, "/data", **q), ask(c, "/data", flatten="true", **q)]
    for binary in ask(c, "/data", format="bin", **q), ask(c, "/data", format="bin", dtype="safe", **q):
        if objects:
            binary["objects"] = True
        out.append(binary)
    out += [ask(c, "/data", format="npy", **q), ask(c, "/stats", **q)]
    if shape:
        # A strided slice of the first axis, and one index of it.
        step = {**q, "selection": ",".join([f"1:{min(shape[0], SMALL)}:3"] + [f"0:{min(n, 4)}" for n in shape[1:]])}
        first = {**q, "selection": ",".join(["0"] + [f"0:{min(n, 4)}" for n in shape[1:]])}
        out += [ask(c, "/data", **step), ask(c, "/data", **first)]
    return out


def version():
    """h5grove's version, and the commit its source was archived from when
    H5GROVE_COMMIT names it."""
    commit = os.environ.get("H5GROVE_COMMIT")
    return h5grove.version + (" " + commit if commit else "")


def main():
    c = client()
    out = {"h5grove": version(), "h5py": h5py.__version__, "numpy": np.__version__, "orjson": orjson.__version__,
           "hdf5": h5py.version.hdf5_version, "answers": []}
    for name in FILES:
        with h5py.File(os.path.join(TESTDATA, name), "r") as f:
            for a in answers_of(c, name, f):
                out["answers"].append({"file": name, **a})
    answers = out.pop("answers")
    with open(os.path.join(HERE, "oracle.json"), "w") as w:
        # One answer a line, for diffs that say which answers changed.
        w.write(json.dumps(out, sort_keys=True)[:-1] + ', "answers": [\n')
        w.write(",\n".join(json.dumps(a, sort_keys=True) for a in answers))
        w.write("\n]}\n")
    print(f"{len(answers)} answers of h5grove written to oracle.json")


if __name__ == "__main__":
    main()
