#!/bin/sh
# expect.sh STATUS TEXT CMD...: runs CMD, fails unless it exits with STATUS and its stdout+stderr
# contain TEXT (a fixed string). Prints what it got either way, so CTest logs show the real output.
want_status=$1; want_text=$2; shift 2
out=$("$@" 2>&1); status=$?
printf '%s\n' "$out"
if [ "$status" -ne "$want_status" ]; then
    echo "expect.sh: exit status $status, expected $want_status" >&2; exit 1
fi
case "$out" in
    *"$want_text"*) exit 0 ;;
    *) echo "expect.sh: output does not contain: $want_text" >&2; exit 1 ;;
esac
