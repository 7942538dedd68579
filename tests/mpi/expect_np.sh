#!/bin/sh
# expect_np.sh EDDY MPIRUN N TEXT ARG...: `mpirun -np N EDDY ARG...` must fail (non-zero) and say TEXT
# exactly once, as one process says it: rank 0 alone speaks, without a "rank K of N: " before TEXT, and
# every process ends normally (no MPI_Abort: Open MPI's "MPI_ABORT was invoked" notice fails the test).
# Exit 77 without mpirun or MPI.
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
! printf '%s\n' "$out" | grep -F -- "$text" | grep -q 'rank [0-9]* of [0-9]*: ' ||
    { echo "expect_np.sh: one process said it for itself ('rank K of N: '), not as one process says it" >&2; exit 1; }
! printf '%s\n' "$out" | grep -q 'MPI_ABORT was invoked' ||
    { echo "expect_np.sh: a process stopped the others with MPI_Abort; every process should end normally" >&2; exit 1; }
exit 0
