#!/bin/sh
# mpmd.sh EDDY MPIRUN SCENE OUT: processes given different runs under one command line (a scene file that
# differs between nodes: here one relative path read from two working folders, one copy with another
# viscosity) are refused by name, once, before anything is written (eddy run's comparison of the scene's
# contents, host/drive/run.c); they once ran to a state mixing the two physics. Command lines that differ
# are refused before by main (tests/mpi/mpmd_commands.sh). Different --threads are allowed.
# compare and bench are refused alike, and a scene missing on one node is named as such.
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
want="eddy: error: process 1 of 2 reads another scene file under 'scene.json' than process 0 (the contents differ: a copy that differs between nodes?): every process of a run must read the same scene file"
[ "$(printf '%s\n' "$log" | grep -cxF -- "$want")" -eq 1 ] || fail "not refused once by name"
[ ! -e "$out/mixed" ] || fail "the refused run wrote $out/mixed"
# compare and bench read the scene too: they ran to a report and figures mixing both, status 0.
set -- compare scene.json --solvers tait --steps 5 --quiet --out "$out/mixed_compare"
log=$("$mpirun" --oversubscribe -np 1 --wdir "$out/node0" "$eddy" "$@" : -np 1 --wdir "$out/node1" "$eddy" "$@" 2>&1) &&
    fail "compare: exit status 0 for processes given different scenes"
printf '%s\n' "$log"
[ "$(printf '%s\n' "$log" | grep -cxF -- "$want")" -eq 1 ] || fail "compare: not refused once by name"
set -- bench scene.json --steps 1 --repeats 1 --quiet
log=$("$mpirun" --oversubscribe -np 1 --wdir "$out/node0" "$eddy" "$@" : -np 1 --wdir "$out/node1" "$eddy" "$@" 2>&1) &&
    fail "bench: exit status 0 for processes given different scenes"
printf '%s\n' "$log"
[ "$(printf '%s\n' "$log" | grep -cxF -- "$want")" -eq 1 ] || fail "bench: not refused once by name"
# A scene missing on one node is said as such (it read as a run that differs).
mkdir -p "$out/node2"
missing="eddy: error: the scene file 'scene.json' cannot be read on process 1 of 2 (missing on its node?), while process 0 reads it: every process of a run must read the same scene file"
for cmd in "run scene.json --steps 5 --quiet --no-picture --out $out/missing" "compare scene.json --solvers tait --steps 5 --quiet --out $out/missing_compare"; do
    # shellcheck disable=SC2086 # the words are meant to split
    log=$("$mpirun" --oversubscribe -np 1 --wdir "$out/node0" "$eddy" $cmd : -np 1 --wdir "$out/node2" "$eddy" $cmd 2>&1) &&
        fail "${cmd%% *}: exit status 0 with the scene missing on one process"
    printf '%s\n' "$log"
    [ "$(printf '%s\n' "$log" | grep -cxF -- "$missing")" -eq 1 ] || fail "${cmd%% *}: the missing scene is not said once"
done
[ ! -e "$out/missing" ] || fail "the refused run wrote $out/missing"
set -- run "$scene" --steps 5 --quiet --no-picture --out "$out/threads"
"$mpirun" --oversubscribe -np 1 "$eddy" "$@" --threads 1 : -np 1 "$eddy" "$@" --threads 2 || fail "different --threads refused"
echo "mpmd.sh: different scenes refused once (run, compare, bench), a scene missing on one node named; different --threads run"
