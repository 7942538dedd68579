#!/bin/sh
# alone.sh EDDY SCENE OUT TEXT: a launcher's process that finds itself alone (eddy built without MPI, or
# with another MPI than the launcher's) runs the whole scene by itself, and the launcher's rank 0 says
# so, with TEXT, before it runs: N whole runs into one folder were refused as "in use by another eddy
# run" with no cause named. Not refused: N runs into N folders (a sweep under mpirun) are what some mean.
# The launcher is played by a PMI launcher's variables (PMI_SIZE, PMI_RANK), so no mpirun is needed: an
# MPI build's MPI_Init then starts a world of one process, as it does under another MPI's mpiexec.
eddy=$1 scene=$2 out=$3 text=$4
fail() { echo "alone.sh: $*" >&2; exit 1; }
rm -rf "$out" "$out.1"
got=$(PMI_SIZE=2 PMI_RANK=0 "$eddy" run "$scene" --steps 2 --quiet --no-picture --out "$out" 2>&1)
status=$?
printf '%s\n' "$got"
[ "$status" -eq 0 ] || fail "rank 0 exited with $status, expected 0 (a whole run of its own)"
case "$got" in *"$text"*) ;; *) fail "rank 0 did not say: $text" ;; esac
[ -s "$out/run.json" ] || fail "rank 0 wrote no run into $out"
got=$(PMI_SIZE=2 PMI_RANK=1 "$eddy" run "$scene" --steps 2 --quiet --no-picture --out "$out.1" 2>&1)
status=$?
[ "$status" -eq 0 ] || fail "rank 1 exited with $status into a folder of its own: $got"
[ -z "$got" ] || fail "rank 1 said something; only rank 0 should: $got"
# Commands that run no scene say nothing of it.
got=$(PMI_SIZE=2 PMI_RANK=0 "$eddy" list 2>&1) || fail "eddy list failed under the launcher: $got"
case "$got" in *"the launcher started"*) fail "eddy list spoke of the launcher: $got" ;; esac
exit 0
