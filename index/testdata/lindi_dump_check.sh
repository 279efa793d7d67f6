#!/bin/sh
# Indexes every HDF5/NWB fixture with `lindi index` (default and --all-chunks)
# and compares, with ../shared/check/lindi_dump.py, what h5py reads from the
# source with what Python lindi reads from the index. Run from the repository
# root: index/testdata/lindi_dump_check.sh > index/testdata/lindi_dump_check.txt
# Exit status 1 when any comparison is not SAME.
set -u
CHECK=${CHECK:-/work/shared/check/lindi_dump.py}
FIXTURES=${FIXTURES:-/work/shared/fixtures}
PY=${PY:-/usr/bin/python3}
export PYTHONPATH=${PYTHONPATH:-/root/.cache/lindi-check/lindipy:/root/.cache/lindi-check/pynwb:/root/.cache/lindi-check/remfile}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/lindi" ./cmd/lindi || exit 2
echo "lindi: $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . || echo +dirty)"
echo "check: $CHECK"
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
		res=$("$PY" "$CHECK" "$src" --compare "$out" 2>&1)
		case "$res" in
		SAME) echo "SAME $src $mode" ;;
		*)
			echo "DIFF $src $mode"
			echo "$res" | sed 's/^/    /'
			status=1
			;;
		esac
	done
done
exit $status
