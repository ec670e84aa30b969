#!/bin/sh
# Measures acprun against the bare limit client and prints the table.
#
#   bench/run.sh            the full run (about 2½ minutes on 2 cores)
#   QUICK=1 bench/run.sh    a smoke run with small sizes
#   REPS=9 bench/run.sh     more repetitions of each timed comparison
#   ONLY=permissions bench/run.sh   only the measurements matching a regexp
#                           (flood100k flood1M permissions startup
#                           batch deadline grace suite)
#
# It builds acprun (without -race, static with CGO_ENABLED=0 as the README
# builds it), the flood agent, the limit client and
# the harness (static too) into a temporary directory, which it removes at the end.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/acprun-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
cd "$root"
# One go build for the four (acprun static, as the README builds it).
CGO_ENABLED=0 go build -o "$tmp/" . ./bench/floodagent ./bench/limitclient ./bench/harness
quick=
[ -n "${QUICK:-}" ] && [ "${QUICK:-}" != 0 ] && quick=-quick
echo "machine: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(go version | cut -d' ' -f3-)"
"$tmp/harness" -acprun "$tmp/acprun" -agent "$tmp/floodagent" -limit "$tmp/limitclient" -reps "${REPS:-5}" -only "${ONLY:-}" $quick
