#!/bin/sh
# damaged_pieces.sh EDDY MPIRUN SCENE DIR EXPECT: a run on 2 processes (frames as .pvtp over 2 pieces,
# 9 frames t = 0 .. 0.02 s) whose folder was damaged by hand resumes to t = 0.03 s saying what it found:
#  - frames.pvd and piece 1 of frame 3 deleted, resumed on 2 processes and on 1: the series is rebuilt
#    from the .pvtp files whose pieces are all there; frame 3 is said missing, naming its piece;
#  - piece 0 of frame 5 deleted: frames.pvd's entry of frame 5 is left out, naming the piece.
# Each resume used to keep or lose the entries without a word. Exit 77 (skipped) where mpirun is
# absent or eddy was built without MPI.
E=$1 MPIRUN=$2 S=$3 D=$4 X=$5
if ! command -v "$MPIRUN" >/dev/null 2>&1; then echo "skipped: no mpirun ('$MPIRUN')"; exit 77; fi
if ! "$E" --version | grep -q '^processes: MPI'; then echo "skipped: eddy was built without MPI"; exit 77; fi
bad=0
fail() { echo "damaged_pieces.sh: $*" >&2; bad=1; }
rm -rf "$D" && mkdir -p "$D" || exit 1
"$MPIRUN" --oversubscribe -np 2 "$E" run "$S" --set time.output_interval=0.0025 --until 0.02 --quiet --no-picture \
    --out "$D/base" || { fail "base run"; exit 1; }
copy() { rm -rf "$D/$1" && cp -r "$D/base" "$D/$1" || fail "cannot copy to $D/$1"; }
# entries NAME: "KIND" of each frames.pvd entry in order (pvtp or vtp), after checking that frame k is
# at k * 0.0025 s and that every file named, and every piece a .pvtp names, is on disk.
entries() {
    sed -n 's/.*timestep="\([^"]*\)".*file="\([^"]*\)".*/\1 \2/p' "$D/$1/frames.pvd" | while read -r t f; do
        k=$(echo "$f" | sed 's/.*frame_0*\([0-9][0-9]*\)\..*/\1/; s/^$/0/')
        awk -v t="$t" -v k="$k" 'BEGIN { d = t - k * 0.0025; exit (d > 1e-12 || d < -1e-12) }' \
            || echo "bad-time-$k"
        [ -f "$D/$1/$f" ] || echo "missing-$f"
        for p in $(sed -n 's/.*<Piece Source="\([^"]*\)".*/\1/p' "$D/$1/$f" 2>/dev/null); do
            [ -f "$D/$1/frames/$p" ] || echo "missing-$p"
        done
        echo "${f##*.}"
    done | tr '\n' ' '
}
P8="pvtp pvtp pvtp pvtp pvtp pvtp pvtp pvtp"
for np in 2 1; do
    copy gap_np$np && rm "$D/gap_np$np/frames.pvd" "$D/gap_np$np/frames/frame_00003_p1.vtp"
    if [ $np = 1 ]; then run=""; kind=vtp; else run="$MPIRUN --oversubscribe -np 2"; kind=pvtp; fi
    sh "$X" 0 "eddy: warning: '$D/gap_np$np/frames.pvd' was missing: rebuilt the entries of 8 frames before the resume point from their files in '$D/gap_np$np/frames'; 1 of the 9 frames before the resume point is not in '$D/gap_np$np/frames' (the first 'frame_00003.pvtp', t = 0.0075 s, whose piece '$D/gap_np$np/frames/frame_00003_p1.vtp' is missing)" \
        $run "$E" resume "$D/gap_np$np" --until 0.03 --no-picture --quiet || fail "gap_np$np: resume"
    got=$(entries gap_np$np)
    [ "$got" = "$P8 $kind $kind $kind $kind " ] || fail "gap_np$np: frames.pvd entries: $got"
done
copy piece_gone && rm "$D/piece_gone/frames/frame_00005_p0.vtp"
sh "$X" 0 "eddy: warning: '$D/piece_gone/frames.pvd' named 1 frame whose files are not all on disk (the first missing: '$D/piece_gone/frames/frame_00005_p0.vtp'): left out of the series" \
    "$MPIRUN" --oversubscribe -np 2 "$E" resume "$D/piece_gone" --until 0.03 --no-picture --quiet || fail "piece_gone: resume"
got=$(entries piece_gone)
[ "$got" = "$P8 pvtp pvtp pvtp pvtp " ] || fail "piece_gone: frames.pvd entries: $got"
[ "$bad" = 0 ] || exit 1
echo "damaged_pieces.sh: the damaged pieces were said and left out of the series"
