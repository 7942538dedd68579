#!/bin/sh
# forces.sh EDDY MPIRUN SCENE OUT STEPS N [ARG...]: on N processes, the "force" probe (a pressure fitted
# at each surface sample, not a sum over particles) is measured on the particles gathered to rank 0
# (docs/mpi.md), in id order, so probes.csv equals the single-process run's byte for byte: the floor's
# load and the left wall's push, next to a pressure probe (a sum). The floor's load must move over the
# rows and be positive. Exit 77 without mpirun or MPI.
eddy=$1; mpirun=$2; scene=$3; out=$4; steps=$5; n=$6; shift 6
if ! command -v "$mpirun" >/dev/null 2>&1; then echo "skipped: no mpirun ('$mpirun'): install openmpi-bin"; exit 77; fi
if ! "$eddy" --version | grep -q '^processes: MPI'; then echo "skipped: eddy was built without MPI"; exit 77; fi
fail() { echo "forces.sh: $*" >&2; exit 1; }
probes='probes=[{"name":"floor","kind":"force","wall":"-y","axis":"-y"},
{"name":"left","kind":"force","wall":"-x","axis":"-x"},
{"name":"p_bottom","kind":"pressure","point":[0.05,0.01]}]'
rm -rf "$out"
mkdir -p "$out"
"$eddy" run "$scene" --steps "$steps" --format vtk --no-picture --quiet --set "$probes" "$@" --out "$out/serial" \
    >"$out/serial.txt" 2>&1 || { cat "$out/serial.txt" >&2; fail "the single-process run failed"; }
EDDY_LOG=debug "$mpirun" --oversubscribe -np "$n" "$eddy" run "$scene" --steps "$steps" --format vtk --no-picture \
    --quiet --set "$probes" "$@" --out "$out/np$n" >"$out/np$n.txt" 2>&1 ||
    { cat "$out/np$n.txt" >&2; fail "the run on $n processes failed"; }
grep -q 'gather of every particle' "$out/np$n.txt" || fail "the run on $n processes never gathered (force needs it)"
rows=$(tail -n +2 "$out/serial/probes.csv" | wc -l)
[ "$rows" -gt 2 ] || fail "one process wrote $rows probe rows; the test needs several"
loads=$(tail -n +2 "$out/serial/probes.csv" | cut -d, -f3 | sort -u | wc -l)
[ "$loads" -gt 2 ] || fail "the floor's load reads $loads distinct values over $rows rows; it must move"
tail -n +2 "$out/serial/probes.csv" | cut -d, -f3 | awk '!($1 > 0) { bad = 1 } END { exit bad }' ||
    fail "the floor's load is not positive in every row"
cmp "$out/serial/probes.csv" "$out/np$n/probes.csv" || fail "probes.csv on $n processes differs from one process's"
echo "$rows rows, $(head -1 "$out/serial/probes.csv"): equal on $n processes"
exit 0
