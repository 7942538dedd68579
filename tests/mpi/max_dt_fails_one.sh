#!/bin/sh
# max_dt_fails_one.sh EDDY MPIRUN PLUGIN_DIR SCENE OUT: the robust test solver's max_dt_error_by_side
# fault fails max_dt from step 3 on the process that owns particles at x >= 0.08 only (2 processes split
# along x). Every process must return that error, agreed: said once, without a rank, exit status 1, no
# MPI_Abort; the others used to wait in the time step's reduction until the failing process stopped
# them all with MPI_Abort after 5 s. Exit 77 without mpirun or MPI.
eddy=$1; mpirun=$2; plugins=$3; scene=$4; out=$5
fail() { echo "max_dt_fails_one.sh: $*" >&2; exit 1; }
command -v "$mpirun" >/dev/null 2>&1 || { echo "skipped: no mpirun ('$mpirun')"; exit 77; }
"$eddy" --version | grep -q '^processes: MPI' || { echo "skipped: eddy was built without MPI"; exit 77; }
export EDDY_PLUGIN_PATH="$plugins"
rm -rf "$out" && mkdir -p "$out" || fail "cannot make $out"
set -- run "$scene" --solver robust_sides --set solvers.robust_sides.fault=max_dt_error_by_side \
    --set solvers.robust_sides.side_x=0.08 --set solvers.robust_sides.at_step=3 --until 0.01 --quiet --no-picture
message="eddy: error: solver 'robust_sides' at step 3 (t = 0.0001 s): device lost (the side at x >= 0.08)"
"$eddy" "$@" --out "$out/np1" >"$out/np1.log" 2>&1 && fail "one process: the failing max_dt ran"
grep -qxF -- "$message" "$out/np1.log" || fail "one process does not say '$message': $(cat "$out/np1.log")"
"$mpirun" --oversubscribe -np 2 "$eddy" "$@" --out "$out/np2" >"$out/np2.log" 2>&1
status=$?
cat "$out/np2.log"
[ "$status" -eq 1 ] || fail "2 processes: exit status $status, expected 1"
[ "$(grep -c 'device lost' "$out/np2.log")" -eq 1 ] || fail "2 processes do not say the error once"
grep -qxF -- "$message" "$out/np2.log" || fail "2 processes do not say '$message' (as one process does)"
! grep -q "MPI_ABORT" "$out/np2.log" || fail "2 processes ended with MPI_Abort, not the agreed error"
echo "max_dt_fails_one.sh: one process's failing max_dt is every process's error, said once"
