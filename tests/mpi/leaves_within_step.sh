#!/bin/sh
# leaves_within_step.sh EDDY MPIRUN SCENE OUT [NP]: pbf on SCENE (tests/mpi/leaves_domain.json: the
# left block, on rank 0, falls out of the floor) on one process and on NP (default 2). pbf's particles
# leave the domain in its predicted positions, found by rank 0's grid build within the step while rank 1
# goes on to the step's exchange. All must stop with the one-process message, said once, and exit 1 as
# one process does (the test's TIMEOUT catches a hang: both once waited for ever, rank 0 in the final frame's
# collective, rank 1 in the step's; then rank 0 stopped both with MPI_Abort), and write the frames one
# process writes, the failed state's last one included. On 3 processes the left block lies in the slabs
# of ranks 0 and 1, and the count of particles outside must be the whole run's (it was rank 0's alone,
# halo copies included: 19 of 20). Exit 77 without mpirun or MPI.
eddy=$1; mpirun=$2; scene=$3; out=$4; np=${5:-2}
fail() { echo "leaves_within_step.sh: $*" >&2; exit 1; }
command -v "$mpirun" >/dev/null 2>&1 || { echo "skipped: no mpirun ('$mpirun')"; exit 77; }
"$eddy" --version | grep -q '^processes: MPI' || { echo "skipped: eddy was built without MPI"; exit 77; }
set -- run "$scene" --solver pbf --set time.output_interval=0.01 --quiet --no-picture
rm -rf "$out"
"$eddy" "$@" --out "$out/np1" >"$out.np1.log" 2>&1 && fail "one process: exit status 0"
"$mpirun" --oversubscribe -np "$np" "$eddy" "$@" --out "$out/np$np" >"$out.np$np.log" 2>&1
status=$?
cat "$out.np$np.log"
[ "$status" -eq 1 ] || fail "$np processes: exit status $status, expected 1"
one=$(sed -n 's/^eddy: error: \(solver .pbf. at step .*left the domain.*\)$/\1/p' "$out.np1.log")
[ -n "$one" ] || fail "one process does not fail in pbf's step on the domain: $(cat "$out.np1.log")"
[ "$(grep -c '^eddy: ' "$out.np$np.log")" -eq 1 ] || fail "$np processes say more than one line"
grep -qxF -- "eddy: error: $one" "$out.np$np.log" || fail "$np processes do not say 'eddy: error: $one'"
! grep -q "MPI_ERR_\|MPI_ABORT" "$out.np$np.log" || fail "an MPI error or abort instead of a stop"
# Every frame the single process wrote, the last (the failed state, written after the loop) included.
n1=$(ls "$out/np1/frames" | wc -l); n2=$(ls "$out/np$np/frames" | wc -l)
[ "$n2" -ge 2 ] && [ "$n2" -eq "$n1" ] || fail "$n2 frames on $np processes, $n1 on one"
for f in "$out/np$np/frames"/*; do
    cmp -s "$f" "$out/np1/frames/$(basename "$f")" || fail "$(basename "$f") differs from one process's"
done
echo "leaves_within_step.sh: $np processes stopped with the one-process message, said once; $n2 frames as on one process"
