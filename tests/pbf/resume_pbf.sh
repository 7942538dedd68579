#!/bin/sh
# resume_pbf.sh EDDY SOURCE_DIR DIR
# PBF sorts its particles on the predicted positions of a step, so a resume that rebuilt the grid on
# the corrected ones before the first step would visit neighbours in another order and drift from the
# uninterrupted run (the checkpoint suite's 800-particle 2D dam break happens not to show it). The 3D
# PBF dam break (about 22k particles), run for 5 steps and resumed to steps 17, 30, 44 and 60 (each
# resume from the checkpoint the one before left), must end in the state hash and outputs of one
# uninterrupted run of 60 steps: a drift at any of the four resumes would remain in the end state.
E=$1; SRC=$2; D=$3
rm -rf "$D"
S="$SRC/scenes/pbf_dam_break_3d.json"
full=$("$E" run "$S" --steps 60 --hash --quiet --no-picture --out "$D/full" | grep state-hash) || exit 1
"$E" run "$S" --steps 5 --quiet --no-picture --out "$D/split" || exit 1
for K in 17 30 44; do
  "$E" resume "$D/split" --steps $K --quiet --no-picture || exit 1
done
part=$("$E" resume "$D/split" --steps 60 --hash --quiet --no-picture | grep state-hash) || exit 1
echo "split after 5, 17, 30 and 44 steps: uninterrupted: $full"
echo "split after 5, 17, 30 and 44 steps: resumed:       $part"
[ -n "$full" ] && [ "$full" = "$part" ] || { echo "resume_pbf.sh: the resumed state differs"; exit 1; }
sh "$SRC/tests/checkpoint/same_outputs.sh" "$D/full" "$D/split" || exit 1
rm -rf "$D"
