#!/bin/sh
# out_one_node.sh EDDY MPIRUN SCENE OUT: an output folder that differs between nodes (each process in a
# working folder of its own, one relative --out). One node cannot make it (a file in its way): every
# process stops with that message, said once, status 1 (that process stopped the others with
# MPI_Abort). One node holds an earlier run there and the other nothing: the run goes on (the processes
# disagreed on clearing it and met in different collectives, MPI_ERR_TRUNCATE). Exit 77 without MPI.
eddy=$1; mpirun=$2; scene=$3; out=$4
fail() { echo "out_one_node.sh: $*" >&2; exit 1; }
command -v "$mpirun" >/dev/null 2>&1 || { echo "skipped: no mpirun ('$mpirun')"; exit 77; }
"$eddy" --version | grep -q '^processes: MPI' || { echo "skipped: eddy was built without MPI"; exit 77; }
rm -rf "$out" && mkdir -p "$out/node0" "$out/node1" || fail "cannot create $out"
split_run() { # name --out: the run from node0 (process 0) and node1 (process 1)
    name=$1; dir=$2
    "$mpirun" --oversubscribe -np 1 --wdir "$out/node0" "$eddy" run "$scene" --steps 5 --quiet --no-picture --out "$dir" : \
        -np 1 --wdir "$out/node1" "$eddy" run "$scene" --steps 5 --quiet --no-picture --out "$dir" >"$out/$name.log" 2>&1
    status=$?
    cat "$out/$name.log"
}
touch "$out/node1/blocker"
split_run blocked blocker/x
[ "$status" -eq 1 ] || fail "blocked: exit status $status, expected 1"
[ "$(grep -c '^eddy: ' "$out/blocked.log")" -eq 1 ] || fail "blocked: more than one line said"
grep -qxF "eddy: error: cannot create output folder 'blocker/x': 'blocker' is not a directory" "$out/blocked.log" ||
    fail "blocked: not the folder's message, said for every process"
! grep -q "MPI_ABORT\|MPI_ERR" "$out/blocked.log" || fail "blocked: an MPI abort or error"
"$eddy" run "$scene" --steps 5 --quiet --no-picture --out "$out/node0/earlier" || fail "the earlier run failed"
split_run earlier earlier
[ "$status" -eq 0 ] || fail "earlier: exit status $status with an earlier run on one node only"
[ -s "$out/node0/earlier/checkpoint.manifest" ] || fail "earlier: no checkpoint manifest written"
echo "out_one_node.sh: a folder one node cannot make is said once; an earlier run on one node only is no obstacle"
