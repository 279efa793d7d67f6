#!/bin/sh
# Writes the amendments with Go, then reads them with pynwb (check.py) and
# with pynwb_dump.py --strict-lindi; the output is check.log.
set -e
here=$(cd "$(dirname "$0")" && pwd)
dir=$(mktemp -d)
export PYTHONPATH=/root/.cache/lindi-check/lindipy:/root/.cache/lindi-check/pynwb:/root/.cache/lindi-check/remfile
(cd "$here/../../.." && go test ./nwb -run 'TestAmendWrite|TestAmendExtension' -count=1 -amend "$dir" >/dev/null)
# A .lindi.tar Python lindi writes, amended by Go (OpenAmendment).
/usr/bin/python3 -c 'import lindi, sys; f = lindi.LindiH5pyFile.from_hdf5_file(sys.argv[1], url=sys.argv[1]); f.write_lindi_file(sys.argv[2])' \
	"$here/source.nwb" "$dir/python.nwb.lindi.tar"
(cd "$here/../../.." && go test ./nwb -run 'TestAmendPythonTar' -count=1 -pytar "$dir/python.nwb.lindi.tar" >/dev/null)
{
	/usr/bin/python3 "$here/check.py" "$dir"
	for f in amended.lindi.tar amended.lindi.d; do
		/usr/bin/python3 /work/shared/check/pynwb_dump.py --strict-lindi --compact "$dir/$f" >/dev/null && echo "pynwb_dump --strict-lindi $f: ok"
	done
} 2>&1 | sed "s|$dir|DIR|g; s|$here|HERE|g"
rm -rf "$dir"
