#!/bin/sh
# dt_said.sh EXPECTED CMD...: CMD, run with EDDY_LOG=debug, must exit 0 and say which limit sets the time
# step in exactly the lines of EXPECTED (newline-separated, in order; "" for none): one line when the
# limit changes, not one per step, and under several processes once, by the first process (every line
# naming "dt: step" counts, with a "rank K of N: " or without). Prints what it got either way.
expected=$1; shift
out=$(EDDY_LOG=debug "$@" 2>&1); status=$?
printf '%s\n' "$out"
[ "$status" -eq 0 ] || { echo "dt_said.sh: exit status $status, expected 0" >&2; exit 1; }
said=$(printf '%s\n' "$out" | grep -F ': dt: step ')
[ "$said" = "$expected" ] && exit 0
printf 'dt_said.sh: the lines that say the time step limit are\n%s\nexpected\n%s\n' "$said" "$expected" >&2
exit 1
