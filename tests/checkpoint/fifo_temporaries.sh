#!/bin/sh
# fifo_temporaries.sh EDDY SCENE DIR: FIFOs left at the temporary names a resume writes through
# (checkpoint.eddy.tmp, frames.pvd.tmp, a frame's .tmp) blocked its open() for ever, waiting for a
# reader. The resume must replace them and end in the state of one run (timeout: a hang fails).
eddy=$1 scene=$2 dir=$3
fail() { echo "fifo_temporaries.sh: $*" >&2; exit 1; }
rm -rf "$dir" "$dir.straight"
"$eddy" run "$scene" --steps 100 --quiet --no-picture --out "$dir" || fail "the run to step 100"
mkfifo "$dir/checkpoint.eddy.tmp" "$dir/frames.pvd.tmp" "$dir/frames/frame_00001.vtp.tmp" || fail "mkfifo"
got=$(timeout -k 5 60 "$eddy" resume "$dir" --steps 200 --quiet --no-picture --hash 2>&1); status=$?
printf '%s\n' "$got"
[ "$status" = 0 ] || fail "the resume exited with $status (124: it hung on a FIFO)"
want=$("$eddy" run "$scene" --steps 200 --quiet --no-picture --hash --out "$dir.straight") || fail "the straight run"
[ "$got" = "$want" ] || fail "resumed: '$got', straight: '$want'"
for f in checkpoint.eddy.tmp frames.pvd.tmp frames/frame_00001.vtp.tmp; do
    [ ! -p "$dir/$f" ] || fail "$f is still a FIFO"
done
echo "fifo_temporaries.sh: the resume replaced the FIFOs and ended in $got"
