#!/bin/sh
# mpmd.sh EDDY MPIRUN SCENE OUT: processes given different runs under one command line (a scene file that
# differs between nodes: here one relative path read from two working folders, one copy with another
# viscosity) are refused by name, once, before anything is written (eddy run's comparison of the scene's
# contents, host/drive/run.c); they once ran to a state mixing the two physics. Command lines that differ
# are refused before by main (tests/mpi/mpmd_commands.sh). Different --threads are allowed.
# Exit 77 without mpirun or MPI.
eddy=$1; mpirun=$2; scene=$3; out=$4
fail() { echo "mpmd.sh: $*" >&2; exit 1; }
command -v "$mpirun" >/dev/null 2>&1 || { echo "skipped: no mpirun ('$mpirun')"; exit 77; }
"$eddy" --version | grep -q '^processes: MPI' || { echo "skipped: eddy was built without MPI"; exit 77; }
rm -rf "$out"
mkdir -p "$out/node0" "$out/node1"
cp "$scene" "$out/node0/scene.json"
sed 's/"viscosity": *[0-9.e+-]*/"viscosity": 0.2/' "$scene" >"$out/node1/scene.json"
! cmp -s "$out/node0/scene.json" "$out/node1/scene.json" || fail "could not change the viscosity of $scene"
set -- run scene.json --steps 5 --quiet --no-picture --out "$out/mixed"
log=$("$mpirun" --oversubscribe -np 1 --wdir "$out/node0" "$eddy" "$@" : -np 1 --wdir "$out/node1" "$eddy" "$@" 2>&1) &&
    fail "exit status 0 for processes given different runs"
printf '%s\n' "$log"
want="eddy: error: process 1 of 2 was given another run than process 0 (its scene file's contents, or its --solver"
[ "$(printf '%s\n' "$log" | grep -cF -- "$want")" -eq 1 ] || fail "not refused once by name"
[ ! -e "$out/mixed" ] || fail "the refused run wrote $out/mixed"
set -- run "$scene" --steps 5 --quiet --no-picture --out "$out/threads"
"$mpirun" --oversubscribe -np 1 "$eddy" "$@" --threads 1 : -np 1 "$eddy" "$@" --threads 2 || fail "different --threads refused"
echo "mpmd.sh: different runs refused once; different --threads run"
