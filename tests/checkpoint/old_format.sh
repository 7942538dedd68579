#!/bin/sh
# old_format.sh EDDY CKEDIT SCENE DIR
# A tait checkpoint as eddy 2.0 wrote it (format 2, state record "tait/1": max_accel alone, no sound
# speeds) still resumes exactly: format 2 takes the 2.0 order, where create() derives c0 from the
# scene's initial particles again. The same "tait/1" record in a format-3 file is refused by name,
# since the solver was then created on the checkpoint's particles and has no c0 to go on with.
E=$1; K=$2; S=$3; D=$4
rm -rf "$D"
set -- --solver tait --set 'materials[0].particle_spacing=0.005' --set world.smoothing_radius=0.01 --quiet --no-picture
full=$("$E" run "$S" "$@" --until 0.015 --hash --out "$D/full" | grep state-hash) || exit 1
"$E" run "$S" "$@" --steps 170 --out "$D/split" || exit 1
cp -r "$D/split" "$D/new_tag_only"
"$K" "$D/split/checkpoint.eddy" format 2 && "$K" "$D/split/checkpoint.eddy" state-retag tait/1 1 || exit 1
shift 6
part=$("$E" resume "$D/split" "$@" --until 0.015 --hash | grep state-hash) || exit 1
echo "uninterrupted:      $full"
echo "resumed (format 2): $part"
[ -n "$full" ] && [ "$full" = "$part" ] || { echo "old_format.sh: the resumed state differs"; exit 1; }
"$K" "$D/new_tag_only/checkpoint.eddy" state-retag tait/1 1 || exit 1
out=$("$E" resume "$D/new_tag_only" "$@" --until 0.015 2>&1) && { echo "old_format.sh: tait/1 in format 3 was accepted"; exit 1; }
want="solver 'tait' cannot load the state in '$D/new_tag_only/checkpoint.eddy': state record 'tait/1' lacks the sound speeds derived at the run's start, and the solver was created on the checkpoint's particles; expected 'tait/2'"
case "$out" in
  *"$want"*) echo "format 3 with tait/1: refused as expected" ;;
  *) echo "old_format.sh: expected '$want', got: $out"; exit 1 ;;
esac
