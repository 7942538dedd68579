#!/bin/sh
# series_frames.sh PVD K: fails unless the VTK series PVD (frames.pvd as eddy writes it, one DataSet a
# line) lists frames/frame_00000.vtp, frames/frame_00001.vtp, ... frames/frame_<K>.vtp, each exactly
# once, in that order, and nothing else (a frame written twice, skipped or past the end fails).
pvd=$1; k=$2
got=$(sed -n 's/.*<DataSet .*file="\([^"]*\)".*/\1/p' "$pvd") || exit 1
want=$(i=0; while [ "$i" -le "$k" ]; do printf 'frames/frame_%05d.vtp\n' "$i"; i=$((i + 1)); done)
[ "$got" = "$want" ] && { echo "series_frames.sh: $pvd lists frames 0..$k once each"; exit 0; }
echo "series_frames.sh: $pvd lists:" >&2
printf '%s\n' "$got" >&2
echo "series_frames.sh: expected frames/frame_00000.vtp ... frames/frame_$(printf %05d "$k").vtp, each once" >&2
exit 1
