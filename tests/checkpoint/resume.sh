#!/bin/sh
# resume.sh EDDY SCENE SOLVER DIR
# A run that ends at step 170 and is then resumed to t = 0.015 s must end in the state (hash), the
# series and the diagnostics of one uninterrupted run to 0.015 s.
E=$1; S=$2; SOLVER=$3; D=$4
rm -rf "$D"
# 800 particles: the check is exactness, not physics.
set -- --solver "$SOLVER" --set 'materials[0].particle_spacing=0.005' --set world.smoothing_radius=0.01 --quiet --no-picture
full=$("$E" run "$S" "$@" --until 0.015 --hash --out "$D/full" | grep state-hash) || exit 1
"$E" run "$S" "$@" --steps 170 --out "$D/split" || exit 1
shift 6 # the resumed run keeps solver and scene; only --quiet --no-picture stay
part=$("$E" resume "$D/split" "$@" --until 0.015 --hash | grep state-hash) || exit 1
echo "uninterrupted: $full"
echo "resumed:       $part"
[ -n "$full" ] && [ "$full" = "$part" ] || { echo "resume.sh: the resumed state differs"; exit 1; }
sh "$(dirname "$0")/same_outputs.sh" "$D/full" "$D/split"
