#!/bin/sh
# usage_one_rank.sh EDDY MPIRUN SCENE OUT: an MPMD launch where process 1 has a bad command line and
# process 0 a good one, alike but for --threads (which may differ, so main's comparison of the command
# lines lets them through: host/cli/main.c, same_launch; other command lines are refused there,
# tests/mpi/mpmd_commands.sh). Process 1 must stop the job with its usage error (exit status non-zero)
# rather than wait in MPI_Finalize while process 0 waits for it in its first collective: the test's TIMEOUT,
# and the `timeout` here, catch the hang this once was.
# Exit 77 (skipped) where mpirun is absent or eddy was built without MPI.
eddy=$1; mpirun=$2; scene=$3; out=$4
if ! command -v "$mpirun" >/dev/null 2>&1; then echo "skipped: no mpirun ('$mpirun'): install openmpi-bin"; exit 77; fi
if ! "$eddy" --version | grep -q '^processes: MPI'; then echo "skipped: eddy was built without MPI"; exit 77; fi
rm -rf "$out"
timeout 60 "$mpirun" --oversubscribe -np 1 "$eddy" run "$scene" --steps 10 --quiet --no-picture --out "$out" --threads 1 : \
    -np 1 "$eddy" run "$scene" --steps 10 --quiet --no-picture --out "$out" --threads 0 >"$out.txt" 2>&1
rc=$?
cat "$out.txt"
[ "$rc" -ne 124 ] || { echo "usage_one_rank.sh: the job hung (killed after 60 s)" >&2; exit 1; }
[ "$rc" -ne 0 ] || { echo "usage_one_rank.sh: exit status 0; expected the usage error to stop the job" >&2; exit 1; }
# (said by the process that has it alone, with its rank: the others had a good command line)
grep -qF "eddy: rank 1 of 2: --threads expects an integer in [1, 4096], got '0'" "$out.txt" || { echo "usage_one_rank.sh: the usage error is not shown" >&2; exit 1; }
exit 0
