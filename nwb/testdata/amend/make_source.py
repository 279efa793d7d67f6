"""Writes source.nwb, the pynwb-made NWB file the amendment tests start from.

Run once (its output is committed):
  PYTHONPATH=... /usr/bin/python3 make_source.py
pynwb 2.3.1 + hdmf 3.5.1. Everything is deterministic but the object ids and
file_create_date, which the tests never compare.
"""
from datetime import datetime, timezone

import numpy as np
from pynwb import NWBFile, NWBHDF5IO
from pynwb.ecephys import ElectricalSeries

f = NWBFile(session_description="amendment source", identifier="amend-src-1",
            session_start_time=datetime(2024, 1, 2, 3, 4, 5, tzinfo=timezone.utc))
dev = f.create_device(name="probe")
grp = f.create_electrode_group(name="shank0", description="shank 0", location="CA1", device=dev)
for i in range(6):
    f.add_electrode(x=float(i), y=2.0 * i, z=0.0, imp=-1.0, location="CA1", filtering="none", group=grp)
region = f.create_electrode_table_region(region=[0, 1, 2, 3], description="first four")
t = np.arange(400)
data = (1000 * np.sin(t[:, None] / (7.0 + np.arange(4)))).astype(np.int16)
f.add_acquisition(ElectricalSeries(name="ElectricalSeries", data=data, electrodes=region,
                                   starting_time=0.5, rate=1000.0, conversion=2.5e-6, offset=0.001))
f.add_unit(spike_times=[0.1, 0.2, 0.35], electrodes=[0])
f.add_unit(spike_times=[0.05], electrodes=[1, 2])
f.add_trial_column(name="correct", description="whether the trial was correct")
f.add_trial(start_time=0.0, stop_time=0.1, correct=True)
f.add_trial(start_time=0.2, stop_time=0.3, correct=False)
with NWBHDF5IO("source.nwb", "w") as io:
    io.write(f)
