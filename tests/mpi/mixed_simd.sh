#!/bin/sh
# mixed_simd.sh EDDY MPIRUN SCENE OUT: two processes on different SIMD paths (EDDY_SIMD=baseline on one,
# the CPU's widest on the other, as on a cluster of unlike nodes) run, and rank 0 warns once that the
# result is not bit-identical to one process's. Exit 77 (skipped) without mpirun or MPI, or where the
# CPU has no path but the baseline.
eddy=$1; mpirun=$2; scene=$3; out=$4
if ! command -v "$mpirun" >/dev/null 2>&1; then echo "skipped: no mpirun ('$mpirun'): install openmpi-bin"; exit 77; fi
if ! "$eddy" --version | grep -q '^processes: MPI'; then echo "skipped: eddy was built without MPI"; exit 77; fi
if "$eddy" --version | grep -q '^simd: baseline '; then echo "skipped: this CPU runs the baseline path only"; exit 77; fi
rm -rf "$out"
"$mpirun" --oversubscribe -np 1 env EDDY_SIMD=baseline "$eddy" run "$scene" --steps 2 --no-picture --out "$out" : \
    -np 1 "$eddy" run "$scene" --steps 2 --no-picture --out "$out" >"$out.txt" 2>&1
rc=$?
cat "$out.txt"
[ "$rc" -eq 0 ] || { echo "mixed_simd.sh: the run failed ($rc)" >&2; exit 1; }
n=$(grep -c "^eddy: warning: the processes run different SIMD paths of the SPH neighbour loops (baseline to " "$out.txt")
[ "$n" -eq 1 ] || { echo "mixed_simd.sh: the warning is printed $n times, expected once" >&2; exit 1; }
exit 0
