#!/bin/sh
# Python lindi makes a .lindi.tar of an NWB file; lindi-go amends it (lindi put/attr); Python
# lindi must still read the original objects as h5py reads the NWB file, and read the new ones.
# Run from the repository root; never run by go test.
set -e
DIR=$(mktemp -d)
CHECK=${CHECK:-../shared/check}
export PYTHONPATH=${PYTHONPATH:-$HOME/.cache/lindi-check/lindipy:$HOME/.cache/lindi-check/pynwb:$HOME/.cache/lindi-check/remfile}
SRC=$(pwd)/testdata/nwb/tables.nwb
/usr/bin/python3 -c "
import lindi, sys
f = lindi.LindiH5pyFile.from_hdf5_file(sys.argv[1], url=sys.argv[1])
f.write_lindi_file(sys.argv[2])
" "$SRC" "$DIR/py.lindi.tar"
go build -o "$DIR/lindi" ./cmd/lindi
/usr/bin/python3 -c "import numpy as np, sys; np.save(sys.argv[1], np.arange(3000, dtype='<f8').reshape(1000, 3))" "$DIR/x.npy"
"$DIR/lindi" put "$DIR/py.lindi.tar" processing/new/x "$DIR/x.npy"
"$DIR/lindi" attr "$DIR/py.lindi.tar" processing/new/x rate 30000.0
printf 'original objects through the amended tar (Python lindi) vs the NWB file (h5py): '
cp -r "$DIR/py.lindi.tar" "$DIR/orig.lindi.tar"
"$DIR/lindi" rm "$DIR/orig.lindi.tar" processing  # the source has no /processing
/usr/bin/python3 "$CHECK/lindi_dump.py" "$SRC" --compare "$DIR/orig.lindi.tar" || true
printf 'the new dataset in Python lindi: '
/usr/bin/python3 -c "
import lindi, sys, numpy as np
f = lindi.LindiH5pyFile.from_lindi_file(sys.argv[1])
x = f['processing/new/x']
ok = np.array_equal(x[()], np.arange(3000).reshape(1000, 3)) and isinstance(x.attrs['rate'], float)
print('SAME' if ok else 'DIFFERENT', x.shape, x.dtype, dict(x.attrs))
" "$DIR/py.lindi.tar"
rm -rf "$DIR"
