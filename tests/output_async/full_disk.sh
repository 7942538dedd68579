#!/bin/sh
# full_disk.sh EDDY SCENE OUT on|off: frame_00002.vtp.tmp is a link to /dev/full, so writing frame 2
# fails with ENOSPC. The run must exit 1 naming the file, keep frames 0 and 1, and leave a frames.pvd
# that names only frames complete on disk (each ends with </VTKFile>), and no incomplete frame file.
# (Without overlap the run stops at frame 2 and writes its final frame over frame 2, the same state,
# which then succeeds; with overlap the error shows at frame 3, which is then not written.)
# The mode is how overlap is set: on/off through EDDY_OUTPUT_OVERLAP, cli-off with --no-overlap,
# scene-off with output.overlap false. Which path ran shows in the last diagnostics row: the synchronous
# run stops at frame 2 (step 300), the overlapped one learns of the error only at frame 3 (step 450).
# Exit 77 where /dev/full is missing.
eddy=$1; scene=$2; out=$3; mode=$4
case $mode in
    on) env_mode=on; extra=""; last_step=450 ;;
    off) env_mode=off; extra=""; last_step=300 ;;
    cli-off) env_mode=on; extra="--no-overlap"; last_step=300 ;;
    scene-off) env_mode=on; extra="--set output.overlap=false"; last_step=300 ;;
    *) echo "full_disk.sh: unknown mode $mode" >&2; exit 2 ;;
esac
fail() { echo "full_disk.sh: $*" >&2; exit 1; }
[ -c /dev/full ] || { echo "skipped: no /dev/full"; exit 77; }
rm -rf "$out"; mkdir -p "$out/frames"
ln -s /dev/full "$out/frames/frame_00002.vtp.tmp"
# shellcheck disable=SC2086
EDDY_OUTPUT_OVERLAP=$env_mode "$eddy" run "$scene" --steps 450 --quiet --no-picture --out "$out" $extra >"$out.log" 2>&1
status=$?
cat "$out.log"
[ "$status" -eq 1 ] || fail "exit status $status, expected 1"
grep -qxF "eddy: error: cannot write '$out/frames/frame_00002.vtp': No space left on device" "$out.log" ||
    fail "no error line naming frame_00002.vtp"
for k in 0 1; do [ -f "$out/frames/frame_0000$k.vtp" ] || fail "frame $k was lost"; done
for f in "$out"/frames/*.vtp; do
    [ "$(tail -n 1 "$f")" = "</VTKFile>" ] || fail "$f is not complete"
done
step=$(tail -n 1 "$out/diagnostics.csv" | cut -d, -f2)
[ "$step" = "$last_step" ] || fail "the last diagnostics row is at step $step, expected $last_step (overlap $mode)"
named=$(sed -n 's/.*file="\(frames\/frame_[0-9]*\.vtp\)".*/\1/p' "$out/frames.pvd")
[ "$(echo "$named" | wc -l)" -ge 2 ] || fail "frames.pvd names fewer than 2 frames"
for f in $named; do
    [ "$(tail -n 1 "$out/$f")" = "</VTKFile>" ] || fail "frames.pvd names $f, which is not complete"
done
echo "overlap $mode: the error names frame_00002.vtp; frames.pvd names $(echo "$named" | wc -l) complete frames"
