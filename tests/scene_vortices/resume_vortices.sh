#!/bin/sh
# resume_vortices.sh EDDY SOURCE_DIR DIR
# The checkpoint embeds the scene, `vortices` included: a resumed run must take the particles'
# vorticity from the checkpoint and not put the initial vortices on them again (as it does not give
# the fluid blocks their initial velocity again). scenes/vortex_pair_2d.json split at step 3 and resumed
# to step 6 must end in the state hash of the 6 steps run at once: vortices put back on the moved
# particles at the resume would change it.
E=$1; SRC=$2; D=$3
S="$SRC/scenes/vortex_pair_2d.json"
rm -rf "$D"
full=$("$E" run "$S" --until 0.03 --hash --quiet --no-picture --out "$D/full" | grep state-hash) || exit 1
"$E" run "$S" --steps 3 --quiet --no-picture --out "$D/split" || exit 1
part=$("$E" resume "$D/split" --until 0.03 --hash --quiet --no-picture | grep state-hash) || exit 1
echo "uninterrupted: $full"
echo "resumed:       $part"
[ -n "$full" ] && [ "$full" = "$part" ] || { echo "resume_vortices.sh: the resumed state differs"; exit 1; }
