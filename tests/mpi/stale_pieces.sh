#!/bin/sh
# stale_pieces.sh EDDY MPIRUN SCENE OUT: a run on 3 processes, resumed on 2, then on 1. Each checkpoint
# leaves only the files that name it: the 2-process one no checkpoint.p2.eddy, the 1-process one no
# piece at all (they were left behind, gigabytes at scale, named by no manifest). Exit 77 without MPI.
eddy=$1; mpirun=$2; scene=$3; out=$4
fail() { echo "stale_pieces.sh: $*" >&2; exit 1; }
command -v "$mpirun" >/dev/null 2>&1 || { echo "skipped: no mpirun ('$mpirun')"; exit 77; }
"$eddy" --version | grep -q '^processes: MPI' || { echo "skipped: eddy was built without MPI"; exit 77; }
rm -rf "$out"
"$mpirun" --oversubscribe -np 3 "$eddy" run "$scene" --steps 20 --quiet --no-picture --out "$out" || fail "run on 3"
[ -f "$out/checkpoint.p2.eddy" ] || fail "no checkpoint.p2.eddy after the run on 3"
"$mpirun" --oversubscribe -np 2 "$eddy" resume "$out" --steps 40 --quiet --no-picture || fail "resume on 2"
[ -f "$out/checkpoint.p1.eddy" ] && [ -f "$out/checkpoint.manifest" ] || fail "no 2-piece checkpoint"
[ ! -e "$out/checkpoint.p2.eddy" ] || fail "checkpoint.p2.eddy left after the resume on 2"
"$eddy" resume "$out" --steps 60 --quiet --no-picture || fail "resume on 1"
[ -f "$out/checkpoint.eddy" ] || fail "no checkpoint.eddy after the resume on 1"
left=$(ls "$out" | grep -E '^checkpoint\.(p[0-9]+\.eddy|manifest)$')
[ -z "$left" ] || fail "left after the resume on 1: $left"
"$eddy" resume "$out" --steps 61 --quiet --no-picture || fail "resume on 1 from its own checkpoint"
echo "stale_pieces.sh: each checkpoint leaves only its own files"
