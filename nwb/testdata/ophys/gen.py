"""What pynwb 2.3.1 reads of the ophys objects of testdata/nwbzarr/ophys_behavior.nwb,
for TestOphysAgainstPynwb. Run from the repository root with pynwb on PYTHONPATH
(see /work/shared/check/README.md):
    /usr/bin/python3 nwb/testdata/ophys/gen.py > nwb/testdata/ophys/expected.json
"""
import json, sys
import numpy as np
import pynwb

def path(obj):
    parts = []
    while obj.parent is not None:
        parts.append(obj.name)
        obj = obj.parent
    return parts

out = {}
with pynwb.NWBHDF5IO("testdata/nwbzarr/ophys_behavior.nwb", "r") as io:
    f = io.read()
    planes = {}
    for name, ip in f.imaging_planes.items():
        planes[name] = {
            "description": ip.description, "indicator": ip.indicator, "location": ip.location,
            "excitation_lambda": float(ip.excitation_lambda), "imaging_rate": float(ip.imaging_rate),
            "device": ip.device.name,
            "optical_channels": [{"name": c.name, "description": c.description, "emission_lambda": float(c.emission_lambda)} for c in ip.optical_channel],
        }
    out["imaging_planes"] = planes
    tps = f.acquisition["TwoPhotonSeries"]
    out["two_photon_series"] = {"/acquisition/TwoPhotonSeries": {"imaging_plane": tps.imaging_plane.name}}
    ps = f.processing["ophys"]["ImageSegmentation"]["PlaneSegmentation"]
    out["plane_segmentation"] = {
        "imaging_plane": ps.imaging_plane.name,
        "rows": len(ps),
        "image_mask": np.asarray(ps["image_mask"].data[:]).tolist(),
        "pixel_mask": [[[int(x), int(y), float(w)] for (x, y, w) in ps["pixel_mask"][i]] for i in range(len(ps))],
        "voxel_mask": None if "voxel_mask" not in ps.colnames else [[list(v) for v in ps["voxel_mask"][i]] for i in range(len(ps))],
    }
    rrs = f.processing["ophys"]["Fluorescence"]["RoiResponseSeries"]
    out["roi_response_series"] = {"rois": [int(x) for x in rrs.rois.data[:]], "table": rrs.rois.table.name, "ids": [int(x) for x in rrs.rois.table.id[:]]}
json.dump(out, sys.stdout, indent=1, sort_keys=True)
print()
