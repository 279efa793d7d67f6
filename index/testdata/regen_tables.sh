#!/bin/sh
# Regenerates testdata/nwb/tables.nwb.lindi.json with lindi index. Run from
# the repository root. The committed file keeps ./tables.nwb refs
# (--relative-refs): an absolute path would tie it to one checkout. lindi-go
# reads it anywhere; Python lindi 0.4.5 cannot (it resolves ./ refs only in a
# .lindi.tar or .lindi.d), so Python checks index a fresh copy instead (see
# lindi_dump_check.sh).
set -e
go run ./cmd/lindi index --relative-refs testdata/nwb/tables.nwb
