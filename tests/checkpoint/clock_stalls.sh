#!/bin/sh
# clock_stalls.sh EDDY CKEDIT SCENE DIR: a checkpoint whose clock stands at t = 1e15 s (edited, checksum
# recomputed; output_interval 1e9 s keeps its frame index in range), resumed to an end 1e5 s later
# (1e-10 of its time: not yet reached) with the scene's time.dt of 5e-05 s, below the clock's
# resolution there (0.125 s). Every step left the clock where it was: the resume ran for ever. It must
# stop at the first step with the exact message and status 1.
eddy=$1 ckedit=$2 scene=$3 dir=$4
fail() { echo "clock_stalls.sh: $*" >&2; exit 1; }
rm -rf "$dir"
"$eddy" run "$scene" --steps 2 --set time.output_interval=1e9 --quiet --no-picture --out "$dir" || fail "the run"
"$ckedit" "$dir/checkpoint.eddy" time 1e15 && "$ckedit" "$dir/checkpoint.eddy" setting next_frame 1000000 ||
    fail "ckedit"
got=$("$eddy" resume "$dir" --until 1000000000100000 --quiet --no-picture 2>&1); status=$?
printf '%s\n' "$got"
want="eddy: error: at step 3: time.dt = 5e-05 s is too small to advance the clock from t = 1000000000000000 s (below its resolution there); raise time.dt"
[ "$status" = 1 ] || fail "exit status $status, expected 1"
# (the folder holds 2 of the million frames the edited checkpoint claims came before: the resume warns
# of the missing ones first; the error is the last line)
[ "$(printf '%s\n' "$got" | tail -n 1)" = "$want" ] || fail "expected as the last line: $want"
