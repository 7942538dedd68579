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
cut -d, -f1-9 "$D/full/diagnostics.csv" > "$D/full.diag"
cut -d, -f1-9 "$D/split/diagnostics.csv" > "$D/split.diag"
cmp "$D/full.diag" "$D/split.diag" || { echo "resume.sh: diagnostics differ"; exit 1; }
cmp "$D/full/frames.pvd" "$D/split/frames.pvd" || { echo "resume.sh: frame series differ"; exit 1; }
cmp "$D/full/probes.csv" "$D/split/probes.csv" || { echo "resume.sh: probes differ"; exit 1; }
