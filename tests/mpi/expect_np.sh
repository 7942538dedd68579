#!/bin/sh
# expect_np.sh EDDY MPIRUN N TEXT ARG...: `mpirun -np N EDDY ARG...` must fail (non-zero) and say TEXT
# exactly once (rank 0 alone speaks; TEXT without a "rank K of N: "). Exit 77 without mpirun or MPI.
eddy=$1; mpirun=$2; n=$3; text=$4; shift 4
if ! command -v "$mpirun" >/dev/null 2>&1; then echo "skipped: no mpirun ('$mpirun'): install openmpi-bin"; exit 77; fi
if ! "$eddy" --version | grep -q '^processes: MPI'; then echo "skipped: eddy was built without MPI"; exit 77; fi
out=$("$mpirun" --oversubscribe -np "$n" "$eddy" "$@" 2>&1)
rc=$?
printf '%s\n' "$out"
[ "$rc" -ne 0 ] || { echo "expect_np.sh: exit status 0; expected a refusal" >&2; exit 1; }
# Counted without the "rank K of N: " of a process speaking for itself, so that the same line from
# every process counts N times.
k=$(printf '%s\n' "$out" | sed 's/rank [0-9]* of [0-9]*: //' | grep -cF -- "$text")
[ "$k" -eq 1 ] || { echo "expect_np.sh: the output says '$text' $k times, expected once" >&2; exit 1; }
