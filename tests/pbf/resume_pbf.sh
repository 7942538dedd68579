#!/bin/sh
# resume_pbf.sh EDDY SOURCE_DIR DIR
# PBF sorts its particles on the predicted positions of a step, so a resume that rebuilt the grid on
# the corrected ones before the first step would visit neighbours in another order and drift from the
# uninterrupted run (the checkpoint suite's 800-particle 2D dam break happens not to show it). The 3D
# PBF dam break (about 22k particles), split after 5, 17, 30 and 44 steps and resumed to step 60, must
# end in the state hash and outputs of one uninterrupted run of 60 steps.
E=$1; SRC=$2; D=$3
rm -rf "$D"
S="$SRC/scenes/pbf_dam_break_3d.json"
full=$("$E" run "$S" --steps 60 --hash --quiet --no-picture --out "$D/full" | grep state-hash) || exit 1
for K in 5 17 30 44; do
  "$E" run "$S" --steps $K --quiet --no-picture --out "$D/split$K" || exit 1
  part=$("$E" resume "$D/split$K" --steps 60 --hash --quiet --no-picture | grep state-hash) || exit 1
  echo "split after $K steps: uninterrupted: $full"
  echo "split after $K steps: resumed:       $part"
  [ -n "$full" ] && [ "$full" = "$part" ] || { echo "resume_pbf.sh: the resumed state differs"; exit 1; }
  sh "$SRC/tests/checkpoint/same_outputs.sh" "$D/full" "$D/split$K" || exit 1
done
rm -rf "$D"
