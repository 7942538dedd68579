#!/bin/sh
# leaves_within_step.sh EDDY MPIRUN SCENE OUT: pbf on SCENE (tests/mpi/leaves_domain.json: the left
# block, on rank 0, falls out of the floor) on one process and on 2. pbf's particles leave the domain
# in its predicted positions, found by rank 0's grid build within the step while rank 1 goes on to the
# step's exchange. Rank 0 must stop both with the one-process message (the test's TIMEOUT catches a
# hang: both once waited for ever, rank 0 in the final frame's collective, rank 1 in the step's), and
# keep the frames written before. Exit 77 without mpirun or MPI.
eddy=$1; mpirun=$2; scene=$3; out=$4
fail() { echo "leaves_within_step.sh: $*" >&2; exit 1; }
command -v "$mpirun" >/dev/null 2>&1 || { echo "skipped: no mpirun ('$mpirun')"; exit 77; }
"$eddy" --version | grep -q '^processes: MPI' || { echo "skipped: eddy was built without MPI"; exit 77; }
set -- run "$scene" --solver pbf --set time.output_interval=0.01 --quiet --no-picture
rm -rf "$out"
"$eddy" "$@" --out "$out/np1" >"$out.np1.log" 2>&1 && fail "one process: exit status 0"
"$mpirun" --oversubscribe -np 2 "$eddy" "$@" --out "$out/np2" >"$out.np2.log" 2>&1 && fail "2 processes: exit status 0"
cat "$out.np2.log"
one=$(sed -n 's/^eddy: error: \(solver .pbf. at step .*left the domain.*\)$/\1/p' "$out.np1.log")
[ -n "$one" ] || fail "one process does not fail in pbf's step on the domain: $(cat "$out.np1.log")"
grep -qxF -- "eddy: error: rank 0 of 2: $one" "$out.np2.log" || fail "2 processes do not say 'rank 0 of 2: $one'"
! grep -q "MPI_ERR_" "$out.np2.log" || fail "an MPI error instead of a stop"
# The frames before the failing step: every one the single process wrote before it (its last, the
# failed state, is written after the loop; the split run has stopped by then).
n1=$(ls "$out/np1/frames" | wc -l); n2=$(ls "$out/np2/frames" | wc -l)
[ "$n2" -ge 2 ] && [ "$n2" -eq $((n1 - 1)) ] || fail "$n2 frames on 2 processes, $n1 on one (expected one fewer)"
for f in "$out/np2/frames"/*; do
    cmp -s "$f" "$out/np1/frames/$(basename "$f")" || fail "$(basename "$f") differs from one process's"
done
echo "leaves_within_step.sh: stopped by rank 0 with the one-process message; $n2 frames as on one process"
