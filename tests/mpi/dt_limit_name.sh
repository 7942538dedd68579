#!/bin/sh
# dt_limit_name.sh EDDY MPIRUN PLUGIN_DIR SCENE OUT: the robust test solver's dt_by_side fault names its
# time-step limit after where a process's particles are ("left" at 2e-5 s, "right" at 1e-5 s; x >= 0.08
# is right), so on 2 processes split along x the left process's own limit is not the step's. The
# warning, and the error of a limit too small to advance the clock (1e-21 s on the right from step 3),
# must name the right side's limit, as one process does, and be said once; so must eddy compare's
# summary. Exit 77 without mpirun or MPI.
eddy=$1; mpirun=$2; plugins=$3; scene=$4; out=$5
fail() { echo "dt_limit_name.sh: $*" >&2; exit 1; }
command -v "$mpirun" >/dev/null 2>&1 || { echo "skipped: no mpirun ('$mpirun')"; exit 77; }
"$eddy" --version | grep -q '^processes: MPI' || { echo "skipped: eddy was built without MPI"; exit 77; }
export EDDY_PLUGIN_PATH="$plugins"
rm -rf "$out"
set -- run "$scene" --solver robust_sides --set solvers.robust_sides.fault=dt_by_side \
    --set solvers.robust_sides.side_x=0.08 --no-picture
"$eddy" "$@" --steps 3 --out "$out/np1" >"$out.np1.log" 2>&1 || fail "one process: $(cat "$out.np1.log")"
"$mpirun" --oversubscribe -np 2 "$eddy" "$@" --steps 3 --out "$out/np2" >"$out.np2.log" 2>&1 ||
    fail "2 processes: $(cat "$out.np2.log")"
cat "$out.np2.log"
warning="eddy: warning: time step 5e-05 s is above the solver's right limit; stepping with 1e-05 s"
grep -qxF -- "$warning" "$out.np1.log" || fail "one process does not warn '$warning': $(cat "$out.np1.log")"
[ "$(grep -c '^eddy: warning: time step' "$out.np2.log")" -eq 1 ] || fail "2 processes do not warn once"
grep -qxF -- "$warning" "$out.np2.log" || fail "2 processes do not warn '$warning'"
! grep -q "left limit" "$out.np2.log" || fail "2 processes name the left side's limit"
# eddy compare's summary names the limit of each solver's steps
"$mpirun" --oversubscribe -np 2 "$eddy" compare "$scene" --solvers robust_sides --set solvers.robust_sides.fault=dt_by_side \
    --set solvers.robust_sides.side_x=0.08 --steps 3 --quiet --out "$out/compare" >"$out.compare.log" 2>&1 ||
    fail "compare on 2 processes: $(cat "$out.compare.log")"
grep -qF "steps below the scene's 5e-05 s under its right limit (1e-05 s)" "$out/compare/summary.md" ||
    fail "compare's summary.md does not name the right side's limit: $(grep 'robust_sides.:' "$out/compare/summary.md")"

set -- "$@" --set solvers.robust_sides.at_step=3 --until 0.01 --quiet
"$eddy" "$@" --out "$out/tiny1" >"$out.tiny1.log" 2>&1 && fail "one process: a tiny limit ran"
"$mpirun" --oversubscribe -np 2 "$eddy" "$@" --out "$out/tiny2" >"$out.tiny2.log" 2>&1
status=$?
cat "$out.tiny2.log"
one=$(grep "too small to advance the clock" "$out.tiny1.log")
case "$one" in *"max_dt returned 1e-21 s (right), too small"*) ;; *) fail "one process: '$one'" ;; esac
[ "$status" -eq 1 ] || fail "2 processes: exit status $status, expected 1 (one agreed error)"
[ "$(grep -c 'too small to advance the clock' "$out.tiny2.log")" -eq 1 ] || fail "2 processes do not say it once"
grep -qxF -- "$one" "$out.tiny2.log" || fail "2 processes do not say '$one'"
echo "dt_limit_name.sh: the step's limit named, once, as on one process"
