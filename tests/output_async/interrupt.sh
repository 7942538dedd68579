#!/bin/sh
# interrupt.sh EDDY SCENE OUT SIG: a run writing a frame every few steps (so that one is nearly always in
# flight) receives SIG once frame 3 is on disk. It must exit 130 with its checkpoint, and leave a
# frames.pvd whose every frame is complete (ends with </VTKFile>), one diagnostics row per frame at the
# same times, and no temporary file.
eddy=$1; scene=$2; out=$3; sig=$4
fail() { echo "interrupt.sh: $*" >&2; exit 1; }
rm -rf "$out"
"$eddy" run "$scene" --quiet --no-picture --format vtk,csv --set time.output_interval=0.00025 --until 5 \
    --out "$out" >"$out.log" 2>&1 &
pid=$!
n=0
while [ ! -f "$out/frames/frame_00003.vtp" ]; do
    kill -0 "$pid" 2>/dev/null || { cat "$out.log"; fail "the run ended before frame 3"; }
    n=$((n + 1)); [ $n -lt 1200 ] || { kill -KILL "$pid"; fail "no frame 3 after 60 s"; }
    sleep 0.05
done
sleep 0.3
kill -"$sig" "$pid"
wait "$pid"; status=$?
cat "$out.log"
[ "$status" -eq 130 ] || fail "exit status $status, expected 130"
grep -q "checkpoint written" "$out.log" || fail "no checkpoint message"
named=$(sed -n 's/.*file="\(frames\/frame_[0-9]*\.vtp\)".*/\1/p' "$out/frames.pvd")
count=$(echo "$named" | wc -l)
[ "$count" -ge 4 ] || fail "frames.pvd names $count frames"
for f in $named; do
    [ "$(tail -n 1 "$out/$f")" = "</VTKFile>" ] || fail "frames.pvd names $f, which is not complete"
    [ -f "$out/${f%.vtp}.csv" ] || fail "no ${f%.vtp}.csv beside $f"
done
pvd_times=$(sed -n 's/.*timestep="\([^"]*\)".*/\1/p' "$out/frames.pvd")
diag_times=$(tail -n +2 "$out/diagnostics.csv" | cut -d, -f1)
[ "$pvd_times" = "$diag_times" ] || fail "frames.pvd and diagnostics.csv list different times"
[ -z "$(find "$out" -name '*.tmp')" ] || fail "temporary files left: $(find "$out" -name '*.tmp')"
echo "SIG$sig: $count complete frames, as many diagnostics rows, no temporary file"
