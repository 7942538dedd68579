#!/bin/sh
# write_fails.sh EDDY SCENE BASE DIR: BASE (a run of SCENE to step 20) copied to DIR, whose checkpoint
# cannot be written (its temporary name DIR/checkpoint.eddy.tmp is taken by a folder, as a full disk or
# a read-only folder would refuse it). The resume to step 40 must fail with exit 1 and the exact message
# naming the checkpoint and saying the previous one is kept; the previous checkpoint must be byte for
# byte the one of step 20 and, once the folder is gone, resume to the state of one uninterrupted run.
E=$1 S=$2 B=$3 D=$4
fail() { echo "write_fails.sh: $*" >&2; exit 1; }
rm -rf "$D" "$D.full" && cp -r "$B" "$D" && mkdir "$D/checkpoint.eddy.tmp" || fail "cannot set up $D"
set -- --quiet --no-picture
got=$("$E" resume "$D" --steps 40 "$@" 2>&1); status=$?
printf '%s\n' "$got"
[ "$status" = 1 ] || fail "exit status $status, expected 1"
want="eddy: error: cannot write checkpoint '$D/checkpoint.eddy': creating '$D/checkpoint.eddy.tmp': Is a directory; the previous checkpoint there is kept unchanged"
[ "$got" = "$want" ] || fail "expected: $want"
cmp "$B/checkpoint.eddy" "$D/checkpoint.eddy" || fail "the previous checkpoint changed"
rmdir "$D/checkpoint.eddy.tmp" || fail "the folder in the way is gone or not empty"
full=$("$E" run "$S" --steps 40 "$@" --hash --out "$D.full" | sed -n 's/^state-hash: //p')
part=$("$E" resume "$D" --steps 40 "$@" --hash | sed -n 's/^state-hash: //p')
echo "uninterrupted to step 40:                 $full"
echo "resumed from the kept checkpoint (step 20): $part"
[ -n "$full" ] && [ "$full" = "$part" ] || fail "the kept checkpoint does not resume to the uninterrupted state"
