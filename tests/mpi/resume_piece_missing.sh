#!/bin/sh
# resume_piece_missing.sh EDDY MPIRUN SCENE OUT: a checkpoint of 2 processes resumed where one node's
# copy of the run folder lacks something (each process in a working folder of its own, one relative
# run path): a piece missing on process 1's node, and a folder without the manifest there. The
# process that cannot read it failed alone and stopped the others with MPI_Abort after a wait; every
# process must now stop with one message, said once, exit status 1. Exit 77 without mpirun or MPI.
eddy=$1; mpirun=$2; scene=$3; out=$4
fail() { echo "resume_piece_missing.sh: $*" >&2; exit 1; }
command -v "$mpirun" >/dev/null 2>&1 || { echo "skipped: no mpirun ('$mpirun')"; exit 77; }
"$eddy" --version | grep -q '^processes: MPI' || { echo "skipped: eddy was built without MPI"; exit 77; }
rm -rf "$out" && mkdir -p "$out/node0" "$out/node1" || fail "cannot create $out"
"$mpirun" --oversubscribe -np 2 "$eddy" run "$scene" --steps 10 --quiet --no-picture --out "$out/node0/run" ||
    fail "the run to resume failed"
resume_split() { # name: resume "run" from node0 (process 0) and node1 (process 1)
    "$mpirun" --oversubscribe -np 1 --wdir "$out/node0" "$eddy" resume run --steps 20 --quiet --no-picture : \
        -np 1 --wdir "$out/node1" "$eddy" resume run --steps 20 --quiet --no-picture >"$out/$1.log" 2>&1
    status=$?
    cat "$out/$1.log"
    [ "$status" -eq 1 ] || fail "$1: exit status $status, expected 1"
    [ "$(grep -c '^eddy: ' "$out/$1.log")" -eq 1 ] || fail "$1: more than one line said"
    ! grep -q "MPI_ABORT\|rank 1 of 2" "$out/$1.log" || fail "$1: said by one process alone, or an MPI_Abort"
}
cp -r "$out/node0/run" "$out/node1/run" && rm "$out/node1/run/checkpoint.p1.eddy"
resume_split piece
grep -qxF "eddy: error: no checkpoint 'run/checkpoint.p1.eddy' (eddy run writes one when it ends, is interrupted, or every --checkpoint-every seconds; eddy compare and eddy validate write none: run the scene with eddy run --solver ID to continue it)" \
    "$out/piece.log" || fail "piece: not the missing piece's message"
rm -rf "$out/node1/run" && cp -r "$out/node0/run" "$out/node1/run" && rm "$out/node1/run/checkpoint.manifest"
resume_split manifest
grep -q "^eddy: error: no checkpoint 'run/checkpoint.eddy'" "$out/manifest.log" || fail "manifest: not the message of the folder without it"
# Process 1's folder holds a run of one process (a checkpoint.eddy and no manifest): readable, but another
# checkpoint than process 0's pieces; the two once went on into collectives that did not match.
rm -rf "$out/node1/run" && "$eddy" run "$scene" --steps 10 --quiet --no-picture --out "$out/node1/run" ||
    fail "the one-process run failed"
resume_split other
grep -qxF "eddy: error: process 1 of 2 reads another checkpoint in 'run' than process 0 (another number of pieces, or none: a run folder that differs between nodes?)" \
    "$out/other.log" || fail "other: not the message of another checkpoint"
echo "resume_piece_missing.sh: a piece or manifest missing on one node, or another checkpoint there, stops every process with one message"
