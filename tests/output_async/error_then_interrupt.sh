#!/bin/sh
# error_then_interrupt.sh EDDY SCENE OUT: frame 3's file cannot be written (its .tmp links to /dev/full)
# and SIGINT arrives once frame 3 is taken, while the writer thread holds its error. The run must end as
# the synchronous one does: exit 1 with the line naming frame_00003.vtp, and no checkpoint (a resume
# would start past the missing frame and leave a hole in frames.pvd for good). Whether the signal lands
# before frame 4 or after it, that is the outcome; before the fix the first case exited 130 silently.
# Exit 77 where /dev/full is missing.
eddy=$1; scene=$2; out=$3
fail() { echo "error_then_interrupt.sh: $*" >&2; exit 1; }
[ -c /dev/full ] || { echo "skipped: no /dev/full"; exit 77; }
rm -rf "$out"; mkdir -p "$out/frames"
ln -s /dev/full "$out/frames/frame_00003.vtp.tmp"
EDDY_OUTPUT_OVERLAP=on "$eddy" run "$scene" --threads 1 --quiet --no-picture \
    --set time.output_interval=0.004 --until 1 --out "$out" >"$out.log" 2>&1 &
pid=$!
# Frame 3 is taken once its diagnostics row (the 4th) is written.
tries=0
while :; do
    rows=$(tail -n +2 "$out/diagnostics.csv" 2>/dev/null | wc -l)
    [ "$rows" -ge 4 ] && break
    kill -0 $pid 2>/dev/null || break
    tries=$((tries + 1))
    [ $tries -lt 6000 ] || { kill -9 $pid; fail "frame 3 never came"; }
    sleep 0.02
done
kill -INT $pid 2>/dev/null
wait $pid
status=$?
cat "$out.log"
[ "$status" -eq 1 ] || fail "exit status $status, expected 1"
grep -qxF "eddy: error: cannot write '$out/frames/frame_00003.vtp': No space left on device" "$out.log" ||
    fail "no error line naming frame_00003.vtp"
[ ! -e "$out/checkpoint.eddy" ] || fail "a checkpoint was written past the lost frame"
echo "the lost frame's error ended the run (exit 1), no checkpoint"
