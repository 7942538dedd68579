#!/bin/sh
# full_disk_resume_hint.sh EDDY SCENE DIR EXPECT: a resume whose next frame cannot be written (its
# temporary name links to /dev/full, as a full disk) fails naming the frame and says the checkpoint it
# started from is kept and how to go on; once the cause is gone, that resume ends in the state of an
# uninterrupted run.
E=$1 S=$2 D=$3 X=$4
fail() { echo "full_disk_resume_hint.sh: $*" >&2; exit 1; }
rm -rf "$D" "$D.full"
"$E" run "$S" --until 0.0075 --out "$D" --quiet --no-picture || fail "the first run failed"
ln -s /dev/full "$D/frames/frame_00002.vtp.tmp" || fail "cannot link /dev/full"
sh "$X" 1 "eddy: error: cannot write '$D/frames/frame_00002.vtp': No space left on device; the checkpoint of t = 0.0075 s is kept: once the cause is fixed, continue with: eddy resume $D" \
    "$E" resume "$D" --until 0.03 --quiet --no-picture --no-overlap || exit 1
rm "$D/frames/frame_00002.vtp.tmp"
full=$("$E" run "$S" --until 0.03 --quiet --no-picture --hash --out "$D.full" | sed -n 's/^state-hash: //p')
part=$("$E" resume "$D" --until 0.03 --quiet --no-picture --hash | sed -n 's/^state-hash: //p')
echo "uninterrupted: $full; resumed after the failure: $part"
[ -n "$full" ] && [ "$full" = "$part" ] || fail "the kept checkpoint does not resume to the uninterrupted state"
