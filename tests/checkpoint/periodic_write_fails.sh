#!/bin/sh
# periodic_write_fails.sh EDDY SCENE DIR: a run whose --checkpoint-every checkpoint at t = 0.015 s cannot be
# written (its temporary name is taken by a folder, as a full disk would refuse it) stops with exit 1
# naming the checkpoint, and its tables hold each frame once: frames 0, 0.0075 and 0.015 s, where the
# frame before the failed checkpoint was written a second time at the end (its rows twice).
E=$1 S=$2 D=$3
fail() { echo "periodic_write_fails.sh: $*" >&2; exit 1; }
rm -rf "$D" && mkdir -p "$D/checkpoint.eddy.tmp" || fail "cannot set up $D"
got=$("$E" run "$S" --until 0.03 --checkpoint-every 0.015 --out "$D" --quiet --no-picture 2>&1); status=$?
printf '%s\n' "$got"
[ "$status" = 1 ] || fail "exit status $status, expected 1"
want="eddy: error: cannot write checkpoint '$D/checkpoint.eddy': creating '$D/checkpoint.eddy.tmp': Is a directory"
[ "$got" = "$want" ] || fail "expected: $want"
for table in diagnostics.csv probes.csv; do
    times=$(cut -d, -f1 "$D/$table" | tail -n +2 | tr '\n' ' ')
    echo "$table times: $times"
    [ "$times" = "0 0.0075 0.015 " ] || fail "$table: expected the rows of t = 0, 0.0075 and 0.015 s once each"
done
