#!/bin/sh
# resume_vortex.sh EDDY SOURCE_DIR DIR MODE
# The checkpoint suite's resume test runs vpm_hybrid on a dam break, where nothing carries vorticity.
# This one splits the drop in a tank (vorticity, the vortex step, tracers) in MODE at step 12, resumes
# it to t = 0.1 s, and requires the state hash and outputs of one uninterrupted run; the second run
# forces the treecode so that both summations are resumed.
E=$1; SRC=$2; D=$3; MODE=$4
rm -rf "$D"
for BS in direct treecode; do
  set -- --set "solvers.vpm_hybrid.mode=$MODE" --set "solvers.vpm_hybrid.biot_savart=$BS" \
         --set 'fluids[1].spacing_factor=60' --quiet --no-picture
  S="$SRC/scenes/vpm_drop_in_tank.json"
  full=$("$E" run "$S" "$@" --until 0.1 --hash --out "$D/$BS/full" | grep state-hash) || exit 1
  "$E" run "$S" "$@" --steps 12 --out "$D/$BS/split" || exit 1
  shift 6 # the resumed run keeps scene and settings; only --quiet --no-picture stay
  part=$("$E" resume "$D/$BS/split" "$@" --until 0.1 --hash | grep state-hash) || exit 1
  echo "$MODE, $BS: uninterrupted: $full"
  echo "$MODE, $BS: resumed:       $part"
  [ -n "$full" ] && [ "$full" = "$part" ] || { echo "resume_vortex.sh: the resumed state differs"; exit 1; }
  sh "$SRC/tests/checkpoint/same_outputs.sh" "$D/$BS/full" "$D/$BS/split" || exit 1
done
