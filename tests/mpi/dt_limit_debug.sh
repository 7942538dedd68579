#!/bin/sh
# dt_limit_debug.sh EDDY MPIRUN PLUGIN_DIR SCENE OUT: with EDDY_LOG=debug, the line that says which limit
# sets the time step, on 2 processes whose own limits differ (the robust test solver's dt_by_side: "left"
# 2e-5 s, "right" 1e-5 s), names the step's limit (the right side's), is said once, by the first process,
# and not again at every step (tests/dt_said.sh). Exit 77 without mpirun or MPI.
eddy=$1; mpirun=$2; plugins=$3; scene=$4; out=$5
command -v "$mpirun" >/dev/null 2>&1 || { echo "skipped: no mpirun ('$mpirun')"; exit 77; }
"$eddy" --version | grep -q '^processes: MPI' || { echo "skipped: eddy was built without MPI"; exit 77; }
export EDDY_PLUGIN_PATH="$plugins"
rm -rf "$out"
exec sh "$(dirname "$0")/../dt_said.sh" \
    "eddy: dt: step 1 (t = 0 s): dt 1e-05 s, set by the solver's right limit (the scene's time.dt is 5e-05 s)" \
    "$mpirun" --oversubscribe -np 2 "$eddy" run "$scene" --solver robust_sides --set solvers.robust_sides.fault=dt_by_side \
    --set solvers.robust_sides.side_x=0.08 --steps 6 --quiet --no-picture --format csv --out "$out"
