#!/bin/sh
# interrupt.sh EDDY SCENE DIR SIGNAL
# A run with --checkpoint-every that receives SIGNAL (INT, TERM or KILL) once its third frame is on
# disk, then resumed, must end in the state, series and diagnostics of one uninterrupted run.
E=$1; S=$2; D=$3; SIG=$4
rm -rf "$D"
set -- --solver tait --quiet --no-picture --until 0.06
full=$("$E" run "$S" "$@" --hash --out "$D/full" | grep state-hash) || exit 1
"$E" run "$S" "$@" --checkpoint-every 0.0075 --out "$D/cut" > "$D/cut.log" 2>&1 &
pid=$!
n=0
while [ ! -f "$D/cut/frames/frame_00002.vtp" ]; do
    kill -0 "$pid" 2>/dev/null || { echo "interrupt.sh: the run ended before frame 2"; cat "$D/cut.log"; exit 1; }
    n=$((n + 1)); [ $n -lt 1200 ] || { echo "interrupt.sh: no frame 2 after 60 s"; kill -KILL "$pid"; exit 1; }
    sleep 0.05
done
kill -"$SIG" "$pid"
wait "$pid"; status=$?
cat "$D/cut.log"
case "$SIG" in
    KILL) [ "$status" -eq 137 ] || { echo "interrupt.sh: exit status $status after SIGKILL"; exit 1; } ;;
    *) [ "$status" -eq 130 ] || { echo "interrupt.sh: exit status $status, expected 130"; exit 1; }
       grep -q "checkpoint written, continue with: eddy resume $D/cut" "$D/cut.log" ||
           { echo "interrupt.sh: no checkpoint message"; exit 1; } ;;
esac
[ -f "$D/cut/checkpoint.eddy" ] || { echo "interrupt.sh: no checkpoint"; exit 1; }
part=$("$E" resume "$D/cut" --quiet --no-picture --hash | grep state-hash) || exit 1
echo "uninterrupted: $full"
echo "resumed:       $part"
[ -n "$full" ] && [ "$full" = "$part" ] || { echo "interrupt.sh: the resumed state differs"; exit 1; }
sh "$(dirname "$0")/same_outputs.sh" "$D/full" "$D/cut"
