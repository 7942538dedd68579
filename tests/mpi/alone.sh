#!/bin/sh
# alone.sh EDDY SCENE OUT TEXT: a launcher's process that finds itself alone (eddy built without MPI, or
# with another MPI than the launcher's) refuses to run, before it writes anything. The launcher is played
# by a PMI launcher's variables (PMI_SIZE, PMI_RANK), so no mpirun is needed: an MPI build's MPI_Init then
# starts a world of one process, as it does under another MPI's mpiexec. Rank 0 says TEXT with status 2;
# rank 1 says nothing with status 2; `eddy --version` still answers there (how to ask a build about MPI).
eddy=$1 scene=$2 out=$3 text=$4
here=$(dirname "$0")
rm -rf "$out"
PMI_SIZE=2 PMI_RANK=0 sh "$here/../expect.sh" 2 "$text" "$eddy" run "$scene" --steps 2 --quiet --no-picture --out "$out" ||
    exit 1
[ ! -e "$out" ] || { echo "alone.sh: $out was created by a refused run" >&2; exit 1; }
got=$(PMI_SIZE=2 PMI_RANK=1 "$eddy" run "$scene" --steps 2 --quiet --no-picture --out "$out" 2>&1)
status=$?
[ "$status" -eq 2 ] || { echo "alone.sh: rank 1 exited with $status, expected 2: $got" >&2; exit 1; }
[ -z "$got" ] || { echo "alone.sh: rank 1 said something; only rank 0 should: $got" >&2; exit 1; }
[ ! -e "$out" ] || { echo "alone.sh: $out was created by rank 1's refused run" >&2; exit 1; }
PMI_SIZE=2 PMI_RANK=0 sh "$here/../expect.sh" 0 "processes: " "$eddy" --version
