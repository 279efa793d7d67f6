#!/bin/sh
# Writes our interop files (go test -run TestInteropWrite -interop DIR) and h5py's reference
# (make_ref.py), then asks Python lindi whether it reads each of ours as h5py reads the
# reference (../shared/check/lindi_dump.py --compare). Run from the repository root; the log is
# h5/testdata/interop/run.log. Python lindi 0.4.5 zero-pads every numeric chunk shorter than its
# raw size before decoding, inline or member, so it cannot decode zstd or lz4 chunks: ours.* leave
# those datasets out, and numcodecs decodes them from all_*, found through the refs, the tar's
# index or the directory (zarr_members.py).
set -e
DIR=$(mktemp -d)
CHECK=${CHECK:-../shared/check}
export PYTHONPATH=${PYTHONPATH:-$HOME/.cache/lindi-check/lindipy:$HOME/.cache/lindi-check/pynwb:$HOME/.cache/lindi-check/remfile}
go test ./h5 -count=1 -run TestInteropWrite -interop "$DIR" >/dev/null
/usr/bin/python3 h5/testdata/interop/make_ref.py "$DIR"
for ours in ours.lindi.json ours.lindi.tar ours.lindi.d; do
	printf '%s (Python lindi) vs ref.h5 (h5py): ' "$ours"
	/usr/bin/python3 "$CHECK/lindi_dump.py" "$DIR/ref.h5" --compare "$DIR/$ours" || true
done
/usr/bin/python3 h5/testdata/interop/zarr_members.py "$DIR"/all_ours.lindi.json "$DIR"/all_ours.lindi.tar "$DIR"/all_ours.lindi.d || true
rm -rf "$DIR"
