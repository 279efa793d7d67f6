#!/bin/bash
# The Beam benchmark (never run by go test or CI): stats of a 280 MB gzip int16 HDF5 dataset over
# HTTP at 20 ms (../shared/bench's slowserve), whole processes, interleaved, three runs each:
# lindi-beam stats (in-process prism) against one `lindi cat -f npy` of the same data (Beam's
# overhead) and against dask over h5py + fsspec (Debian's python3-dask, python3-h5py, python3-fsspec).
# usage (from the repository's root): beam/bench/run.sh WORKDIR
set -e
W=${1:?usage: beam/bench/run.sh WORKDIR}; R=$(pwd); B=$R/beam/bench
mkdir -p "$W"
[ -f "$W/ephys.h5" ] || /usr/bin/python3 "$B/make.py" "$W/ephys.h5"
go build -o "$W/lindi" ./cmd/lindi
(cd beam && go build -o "$W/lindi-beam" ./cmd/lindi-beam)
(cd ../shared/bench/slowserve && go build -o "$W/slowserve" .)
rm -f "$W/port"; "$W/slowserve" -dir "$W" -latency 20ms -portfile "$W/port" & S=$!
trap 'kill $S' EXIT
sleep 1; U="http://$(cat "$W/port")/ephys.h5"
t() { /usr/bin/time -f "%e s, max RSS %M KB" "$@" 2>&1 >/dev/null | tail -1; }
for r in 1 2 3; do
  echo "lindi cat -f npy    $(t "$W/lindi" cat -f npy "$U" data)"
  echo "lindi-beam stats    $(t "$W/lindi-beam" stats --out "$W/stats.json" "$U" data)"
  echo "dask (h5py+fsspec)  $(t /usr/bin/python3 "$B/dask_stats.py" "$U" data)"
done
