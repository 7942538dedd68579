#!/bin/sh
# no_initial_state.sh EDDY CKEDIT SCENE SOLVER DIR
# A resume builds no initial state (plugin.h, EDDY_COMPONENT_STATE_COMPLETE): with the checkpoint's
# embedded scene cut to a fluid block of one particle, the resumed run still ends in the state of the
# uninterrupted run, because the world is made from the checkpoint's particles and the solver created
# on them. The same file marked format 2 takes the 2.0 order, builds the one-particle scene first and
# is refused by name, which shows the scene was not read for particles before.
E=$1; K=$2; S=$3; SOLVER=$4; D=$5
rm -rf "$D"
set -- --solver "$SOLVER" --set 'materials[0].particle_spacing=0.005' --set world.smoothing_radius=0.01 --quiet --no-picture
full=$("$E" run "$S" "$@" --until 0.015 --hash --out "$D/full" | grep state-hash) || exit 1
"$E" run "$S" "$@" --steps 170 --out "$D/split" || exit 1
"$K" "$D/split/checkpoint.eddy" setting scene.fluids \
    '[{"material": "water", "box": {"min": [0, 0], "max": [0.005, 0.005]}}]' || exit 1
# (run.json records the scene the run read: by it the edited checkpoint is another run's, which a resume
# refuses; without it, as in a folder of an eddy before run.json, the checkpoint's scene is the one used)
rm -f "$D/split/run.json"
cp -r "$D/split" "$D/format2"
shift 6
part=$("$E" resume "$D/split" "$@" --until 0.015 --hash | grep state-hash) || exit 1
echo "uninterrupted:                  $full"
echo "resumed, scene of one particle: $part"
[ -n "$full" ] && [ "$full" = "$part" ] || { echo "no_initial_state.sh: the resumed state differs"; exit 1; }
"$K" "$D/format2/checkpoint.eddy" format 2 || exit 1
out=$("$E" resume "$D/format2" "$@" --until 0.015 2>&1) && { echo "no_initial_state.sh: format 2 resumed on a one-particle scene"; exit 1; }
want="checkpoint '$D/format2/checkpoint.eddy' does not match the world its scene builds: 800 particles, the scene makes 1"
case "$out" in
  *"$want"*) echo "format 2: refused as expected" ;;
  *) echo "no_initial_state.sh: expected '$want', got: $out"; exit 1 ;;
esac
