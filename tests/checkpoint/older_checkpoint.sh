#!/bin/sh
# older_checkpoint.sh EDDY SCENE DIR: a folder whose frames, diagnostics and probes run past its checkpoint
# (what a run killed with -9 after a --checkpoint-every checkpoint leaves; here: a run to step 170, its
# checkpoint kept aside, resumed to 0.03 s, then the step-170 checkpoint put back). Resumed again to
# 0.03 s it must end in the state of one uninterrupted run, and frames.pvd, diagnostics.csv and
# probes.csv must be those of that run: the later rows and frames replaced, none duplicated or lost.
E=$1 S=$2 D=$3
rm -rf "$D"
set -- --solver tait --set 'materials[0].particle_spacing=0.005' --set world.smoothing_radius=0.01 --quiet --no-picture
full=$("$E" run "$S" "$@" --until 0.03 --hash --out "$D/full" | grep state-hash) || exit 1
"$E" run "$S" "$@" --steps 170 --out "$D/split" || exit 1
cp "$D/split/checkpoint.eddy" "$D/step170.eddy" || exit 1
"$E" resume "$D/split" --quiet --no-picture --until 0.03 || exit 1
cp "$D/step170.eddy" "$D/split/checkpoint.eddy" || exit 1
part=$("$E" resume "$D/split" --quiet --no-picture --until 0.03 --hash | grep state-hash) || exit 1
echo "uninterrupted:                       $full"
echo "resumed again from the older checkpoint: $part"
[ -n "$full" ] && [ "$full" = "$part" ] || { echo "older_checkpoint.sh: the resumed state differs"; exit 1; }
sh "$(dirname "$0")/same_outputs.sh" "$D/full" "$D/split"
