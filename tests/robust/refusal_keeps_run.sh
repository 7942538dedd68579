#!/bin/sh
# refusal_keeps_run.sh EDDY SCENE DIR: a run refused for its input leaves the run already in DIR as it was.
# A run of 20 steps writes DIR; then runs into DIR with a --camera and a --render-field the scene cannot
# take (exit 1: found once the world exists), and with a --camera and a --render-range of the wrong form
# (exit 2: a bad command line), and with an initial fluid velocity no time step can take (exit 1), and
# DIR's diagnostics, probes, frames list and checkpoint must be byte for byte what they were. The output
# used to be opened (its tables truncated, the checkpoint removed) before those checks.
eddy=$1 scene=$2 dir=$3
set -u
fail() { echo "refusal_keeps_run.sh: $*" >&2; exit 1; }
rm -rf "$dir" "$dir.kept"
"$eddy" run "$scene" --steps 20 --quiet --no-picture --out "$dir" || fail "the first run failed"
cp -r "$dir" "$dir.kept"
refused() { # refused STATUS TEXT ARGS...: a run into DIR with ARGS exits STATUS naming TEXT, and DIR is unchanged
    want=$1 text=$2; shift 2
    got=$("$eddy" run "$scene" --steps 30 --quiet --no-picture --out "$dir" "$@" 2>&1); status=$?
    printf '%s\n' "$got"
    [ $status = "$want" ] || fail "exit status $status for $*, expected $want"
    case "$got" in *"$text"*) ;; *) fail "the refusal of $* does not say: $text" ;; esac
    for f in diagnostics.csv probes.csv frames.pvd checkpoint.eddy; do
        cmp -s "$dir/$f" "$dir.kept/$f" || fail "$f changed after the refusal of $*"
    done
}
refused 1 "--camera 'eye=0,0;target=0,0': eye and target are the same point" --render --camera 'eye=0,0;target=0,0'
refused 1 "--render-field: unknown particle field \"bogus\"" --render --render-field bogus
refused 2 "--camera 'junk': expected KEY=VALUE" --render --camera junk
# An initial speed whose square overflows a float was refused at the first step, after the output opened.
refused 1 "fluids[0].velocity: expected a speed below 1.8446743525e19 (sim units/s; its square must fit single precision, or no time step is stable), got 1e+30" \
    --set 'fluids[0].velocity=[1e30,0]'
refused 2 "--render-range '5,1': expected MIN,MAX with MIN < MAX" --render --render-range 5,1
echo "the run in $dir is unchanged after every refusal"
