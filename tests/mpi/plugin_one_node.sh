#!/bin/sh
# plugin_one_node.sh EDDY MPIRUN PLUGIN_DIR SCENE OUT: a run of a plugin solver (robust_sides, from
# PLUGIN_DIR) on 2 processes resumed where process 1's node does not find the plugin (EDDY_PLUGIN_PATH
# set for process 0 alone; the variable may differ from node to node). Every process must stop with the
# message naming the checkpoint and the solver, said once, exit status 1: the process without the
# plugin returned alone and the other waited for it in the session's first collective (MPI_Abort).
# Exit 77 without mpirun or MPI.
eddy=$1; mpirun=$2; plugins=$3; scene=$4; out=$5
fail() { echo "plugin_one_node.sh: $*" >&2; exit 1; }
command -v "$mpirun" >/dev/null 2>&1 || { echo "skipped: no mpirun ('$mpirun')"; exit 77; }
"$eddy" --version | grep -q '^processes: MPI' || { echo "skipped: eddy was built without MPI"; exit 77; }
rm -rf "$out"
EDDY_PLUGIN_PATH="$plugins" "$mpirun" --oversubscribe -np 2 "$eddy" run "$scene" --solver robust_sides --steps 5 \
    --quiet --no-picture --out "$out/run" >"$out.run.log" 2>&1 || fail "the run to resume failed: $(cat "$out.run.log")"
unset EDDY_PLUGIN_PATH
"$mpirun" --oversubscribe -np 1 env EDDY_PLUGIN_PATH="$plugins" "$eddy" resume "$out/run" --steps 10 --quiet --no-picture : \
    -np 1 "$eddy" resume "$out/run" --steps 10 --quiet --no-picture >"$out.log" 2>&1
status=$?
cat "$out.log"
[ "$status" -eq 1 ] || fail "exit status $status, expected 1"
[ "$(grep -c '^eddy: ' "$out.log")" -eq 1 ] || fail "more than one line said"
grep -q "^eddy: error: checkpoint '$out/run/checkpoint.p1.eddy' was written with the solver 'robust_sides', which this eddy does not find" \
    "$out.log" || fail "not the missing plugin's message"
! grep -q "MPI_ABORT\|MPI_ERR" "$out.log" || fail "an MPI abort or error"
echo "plugin_one_node.sh: a plugin missing on one node at resume is said once, status 1"
