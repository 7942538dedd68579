#!/bin/sh
# run_into_damaged.sh EDDY CKEDIT SCENE DIR: `eddy run` into a folder that holds a run stopped before its
# end (a 50-step run whose checkpoint's end ckedit moved to step 400) whose checkpoint is damaged, cut to
# half its length or one byte of its particles flipped (damage.sh). The head of the file still reads,
# so the refusal sent the user to `eddy resume DIR`, which then refused the checkpoint: a dead end. Each
# must be refused with exit 1 and the exact message that says why resume cannot continue it and to move
# it away (never "continue it with eddy resume"), leave the checkpoint byte for byte, and resume must
# indeed refuse it.
eddy=$1 ckedit=$2 scene=$3 dir=$4
set -u
fail() { echo "run_into_damaged.sh: $*" >&2; exit 1; }
here=$(dirname "$0")
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot make $dir"
"$eddy" run "$scene" --quiet --no-picture --steps 50 --out "$dir/base" || fail "the first run failed"
"$ckedit" "$dir/base/checkpoint.eddy" setting end_steps 400 || fail "ckedit failed"
size=$(wc -c < "$dir/base/checkpoint.eddy")
for kind in truncate bitflip; do
    d="$dir/$kind"
    sh "$here/damage.sh" "$dir/base" "$d" "$kind" || fail "damage.sh $kind failed"
    cp "$d/checkpoint.eddy" "$dir/$kind.kept" || fail "cannot copy the damaged checkpoint"
    case $kind in
        truncate) why="checkpoint '$d/checkpoint.eddy' is truncated: $((size / 2)) bytes, its header says $size" ;;
        bitflip) why="checkpoint '$d/checkpoint.eddy' is corrupt: checksum mismatch (the file was changed or damaged)" ;;
    esac
    got=$("$eddy" run "$scene" --quiet --no-picture --steps 10 --out "$d" 2>&1); status=$?
    printf '%s\n' "$got"
    want="eddy: error: the output folder '$d' holds a checkpoint this run would delete, of a run stopped at step 50 (t = 0.0025 s) before its end (step 400), which eddy resume cannot continue ($why); move it away or choose another --out"
    [ "$status" = 1 ] || fail "$kind: exit status $status, expected 1"
    [ "$got" = "$want" ] || fail "$kind: expected: $want"
    cmp -s "$d/checkpoint.eddy" "$dir/$kind.kept" || fail "$kind: the checkpoint changed after the refusal"
    # ... and resume refuses it, with the same reason: the message did not send the user there.
    got=$("$eddy" resume "$d" --quiet --no-picture 2>&1); status=$?
    [ "$status" = 1 ] && [ "$got" = "eddy: error: $why" ] ||
        fail "$kind: resume said (status $status): $got; expected: eddy: error: $why"
done
echo "a stopped run with a damaged checkpoint is refused with the advice to move it away"
