#!/bin/sh
# out_one_node.sh EDDY MPIRUN SCENE OUT CKEDIT: an output folder that differs between nodes (each process in a
# working folder of its own, one relative --out). One node cannot make it (a file in its way): every
# process stops with that message, said once, status 1 (that process stopped the others with
# MPI_Abort). One node holds an earlier run there and the other nothing: the run goes on (the processes
# disagreed on clearing it and met in different collectives, MPI_ERR_TRUNCATE), also where rank 0's
# folder is not there yet. Exit 77 without MPI.
eddy=$1; mpirun=$2; scene=$3; out=$4; ckedit=$5
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
# ... and on node 1 only, where rank 0's folder is not there yet (rank 0 refused to clear it).
"$eddy" run "$scene" --steps 5 --quiet --no-picture --out "$out/node1/earlier1" || fail "the earlier run failed"
split_run earlier1 earlier1
[ "$status" -eq 0 ] || fail "earlier1: exit status $status with an earlier run on node 1 only"
[ -s "$out/node0/earlier1/checkpoint.manifest" ] || fail "earlier1: no checkpoint manifest written"
# A run stopped before its end in the folder on node 1 only: its refusal is every process's, said once
# (process 0 said "another process refused the output folder", process 1 its own, and both aborted).
# (a run of 5 steps whose checkpoint says it was to run 20: a run stopped on the way, as an interrupt leaves)
"$eddy" run "$scene" --steps 5 --quiet --no-picture --out "$out/node1/stopped" || fail "the stopped run failed"
"$ckedit" "$out/node1/stopped/checkpoint.eddy" setting end_steps 20 || fail "ckedit failed"
split_run stopped stopped
[ "$status" -eq 1 ] || fail "stopped: exit status $status, expected 1"
[ "$(grep -c '^eddy: ' "$out/stopped.log")" -eq 1 ] || fail "stopped: more than one line said"
grep -q "^eddy: error: the output folder 'stopped' holds a run stopped at step 5 " "$out/stopped.log" ||
    fail "stopped: not the stopped run's message"
! grep -q "MPI_ABORT\|MPI_ERR" "$out/stopped.log" || fail "stopped: an MPI abort or error"
echo "out_one_node.sh: a folder one node cannot make, or holding a stopped run there, is said once; an earlier run on one node only is no obstacle"
