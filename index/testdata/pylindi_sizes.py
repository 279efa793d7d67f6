"""Measures Python lindi's index of pynwb-written files, for TestSizeAgainstPythonLindi.

Run from the repository root with Python lindi on PYTHONPATH (see
/work/shared/check/README.md):
    /usr/bin/python3 index/testdata/pylindi_sizes.py > index/testdata/pylindi_sizes.json
For each file: the size of the .lindi.json Python lindi writes
(LindiH5pyFile.from_hdf5_file(path, url=path).write_lindi_file(out)) and, for
each inline chunk (a string ref), the length as JSON text of its value and of
the compressor in its .zarray (what it takes to store and decode it). The
refs name the file by the same relative path the test indexes it by.
"""
import json, os, sys, tempfile
import lindi

FILES = ["testdata/nwbzarr/ecephys.nwb", "testdata/nwbzarr/ophys_behavior.nwb", "testdata/nwb/tables.nwb"]
out = {"lindi_version": getattr(lindi, "__version__", "HEAD"), "files": {}}
with tempfile.TemporaryDirectory() as tmp:
    for src in FILES:
        dst = os.path.join(tmp, "x.lindi.json")
        lindi.LindiH5pyFile.from_hdf5_file(src, url=src).write_lindi_file(dst)
        refs = json.load(open(dst))["refs"]
        out["files"][src] = {
            "size": os.path.getsize(dst),
            "inline": {
                k: len(json.dumps(v)) + len(json.dumps(refs[k.rsplit("/", 1)[0] + "/.zarray"]["compressor"], separators=(",", ":")))
                for k, v in sorted(refs.items())
                if isinstance(v, str) and not k.rsplit("/", 1)[1].startswith(".")
            },
        }
json.dump(out, sys.stdout, indent=1, sort_keys=True)
print()
