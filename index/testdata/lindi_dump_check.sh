#!/bin/sh
# Indexes every HDF5/NWB fixture with `lindi index` (default and --all-chunks)
# and compares, with ../shared/check/lindi_dump.py, what h5py reads from the
# source with what Python lindi reads from the index. Run from the repository
# root: index/testdata/lindi_dump_check.sh > index/testdata/lindi_dump_check.txt
# Exit status 1 when any comparison is not SAME. Where one is not, the log
# also shows how Python lindi's own index of the file compares.
#
# The differences left (lindi_dump_check.txt), none of them ours to fix in
# the index:
#   parity/parity.h5    int32/uint32 array attributes read back as int64: LINDI
#                       keeps no attribute type (Python lindi's own index too).
#   parity/broken.h5    /virtual reads as zeros through the _EXTERNAL_ARRAY_LINK:
#                       Python lindi opens the HDF5 file as a Python file object,
#                       where h5py finds no virtual-dataset sources (its own index
#                       too; lindi-go does not read virtual datasets at all).
#   parity/ext-target.h5, parity/features.h5
#                       h5py cannot dump the source (an external-link loop):
#                       ext-target is SAME without it; features.h5 then differs in
#                       what LINDI cannot hold: its external link /ext, region
#                       references (as attributes; the /regions dataset is linked,
#                       but Python lindi cannot dereference the h5py region refs it
#                       gets back) and h5py's dimension-scale attributes of
#                       references and compounds, which lindi refuses. Python
#                       lindi cannot index the file at all (complex numbers).
set -u
CHECK=${CHECK:-/work/shared/check/lindi_dump.py}
FIXTURES=${FIXTURES:-/work/shared/fixtures}
PY=${PY:-/usr/bin/python3}
export PYTHONPATH=${PYTHONPATH:-/root/.cache/lindi-check/lindipy:/root/.cache/lindi-check/pynwb:/root/.cache/lindi-check/remfile}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/lindi" ./cmd/lindi || exit 2
echo "lindi: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!index/testdata/lindi_dump_check.txt' || echo +dirty)"
echo "check: $CHECK"
# compare runs a dump script from the source's directory: h5py resolves
# external links and external raw data files against the working directory.
compare() {
	(cd "$(dirname "$2")" && "$PY" "$1" "$(basename "$2")" --compare "$3" 2>&1)
}

# The check script, leaving out the links of parity/features.h5 and
# ext-target.h5 that h5py cannot follow (a loop of external links, a missing
# file): with them the source side fails before anything is compared.
sed 's/        for k in sorted(g.keys()):/        for k in sorted(x for x in g.keys() if x not in ("ext_loop", "back", "ext_missing")):/' \
	"$CHECK" >"$tmp/noloop.py"

# pylindi compares what Python lindi's own index of a file (made with
# LindiH5pyFile.from_hdf5_file) reads with what h5py reads: a difference that
# it shares is one of the LINDI format or of Python lindi, not ours.
pylindi() {
	py="$2/py.lindi.json"
	abs=$(realpath "$1")
	if ! err=$(cd "$(dirname "$1")" && "$PY" -c 'import sys, lindi
lindi.LindiH5pyFile.from_hdf5_file(sys.argv[1], url=sys.argv[1]).write_lindi_file(sys.argv[2])' "$abs" "$py" 2>&1 </dev/null); then
		echo "    Python lindi's own index: FAILED: $(echo "$err" | tail -1)"
		return
	fi
	res=$(compare "$CHECK" "$1" "$py")
	case "$res" in
	SAME) echo "    Python lindi's own index: SAME" ;;
	*)
		echo "    Python lindi's own index: DIFF"
		echo "$res" | sed 's/^/        /'
		;;
	esac
}

status=0
n=0
for src in $(find testdata hdf5 index/testdata -name '*.h5' -o -name '*.nwb' | grep -v /hostile/ | sort) \
	"$FIXTURES"/conformance/*.h5 "$FIXTURES"/nwb/*.nwb "$FIXTURES"/nwbzarr/*.nwb; do
	n=$((n + 1))
	dir="$tmp/$n"
	mkdir "$dir"
	for mode in default --all-chunks; do
		out="$dir/$(basename "$src").$mode.lindi.json"
		flag=
		[ "$mode" = --all-chunks ] && flag=--all-chunks
		if ! "$tmp/lindi" index $flag -o "$out" "$src" >/dev/null 2>"$dir/err"; then
			echo "INDEX FAILED $src $mode: $(cat "$dir/err")"
			status=1
			continue
		fi
		res=$(compare "$CHECK" "$src" "$out")
		case "$res" in
		SAME) echo "SAME $src $mode" ;;
		*)
			echo "DIFF $src $mode"
			echo "$res" | sed 's/^/    /'
			status=1
			case "$res" in *"too many links"*)
				echo "    without the external-link loop and the dangling link (ext_loop, back, ext_missing):"
				compare "$tmp/noloop.py" "$src" "$out" | sed 's/^/        /'
			esac
			[ "$mode" = default ] && pylindi "$src" "$dir"
			;;
		esac
	done
done
exit $status
