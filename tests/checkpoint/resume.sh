#!/bin/sh
# resume.sh EDDY SCENE SOLVER DIR [SET]
# A run that ends at step 170 and is then resumed to t = 0.015 s must end in the state (hash), the
# series and the diagnostics of one uninterrupted run to 0.015 s. SET: one more --set for both runs
# (a solver option), which the resumed run must take from the checkpoint.
E=$1; S=$2; SOLVER=$3; D=$4; X=${5:-}
rm -rf "$D"
# 800 particles: the check is exactness, not physics.
set -- --solver "$SOLVER" --set 'materials[0].particle_spacing=0.005' --set world.smoothing_radius=0.01
[ -n "$X" ] && set -- "$@" --set "$X"
full=$("$E" run "$S" "$@" --quiet --no-picture --until 0.015 --hash --out "$D/full" | grep state-hash) || exit 1
"$E" run "$S" "$@" --quiet --no-picture --steps 170 --out "$D/split" || exit 1
# The resumed run keeps solver, scene and settings from the checkpoint.
part=$("$E" resume "$D/split" --quiet --no-picture --until 0.015 --hash | grep state-hash) || exit 1
echo "uninterrupted: $full"
echo "resumed:       $part"
[ -n "$full" ] && [ "$full" = "$part" ] || { echo "resume.sh: the resumed state differs"; exit 1; }
sh "$(dirname "$0")/same_outputs.sh" "$D/full" "$D/split"
