#!/bin/sh
# check_detects.sh EDDY OUT SCENE SOLVER TERM-SET RUN-ARGS...: check_paths.py, the comparison simd_path.sh
# holds a wider path to, must fail when one run lacks a term: two baseline runs of 2 steps of SCENE with
# RUN-ARGS, the second with `--set TERM-SET` as well (a viscosity set to 0), and the step-0 accelerations
# must differ beyond the tolerance. Else the path tests could not see a path that dropped that term.
set -u
eddy=$1 out=$2 scene=$3 solver=$4 term=$5; shift 5
here=$(dirname "$0")
export OMP_WAIT_POLICY=passive EDDY_SIMD=baseline
rm -rf "$out"
run() { # run DIR ARGS...
    dir=$1; shift
    "$eddy" run "$scene" --solver "$solver" --steps 2 --threads 2 --quiet --format csv --no-picture \
        --out "$out/$dir" "$@" || { echo "check_detects.sh: the run $dir the term failed" >&2; exit 1; }
}
run with "$@"
run without "$@" --set "$term"
report=$(python3 "$here/check_paths.py" "$out/with/frames" "$out/without/frames" "$scene")
status=$?
printf '%s\n' "$report"
[ $status = 1 ] || { echo "check_detects.sh: check_paths.py exited $status without $term, expected 1" >&2; exit 1; }
case "$report" in
    *"step 0: acceleration_"*FAILED*) exit 0 ;;
    *) echo "check_detects.sh: no step-0 acceleration failed without $term" >&2; exit 1 ;;
esac
