#!/bin/sh
# resume_twice.sh EDDY SCENE BASE DIR: BASE (a run of SCENE to step 20) resumed to step 30 and that again
# to step 40 ends in the state of one uninterrupted run to step 40. A run resumed with --steps stores no
# end time (null: infinite); resuming it again once read that as a missing setting.
E=$1 S=$2 B=$3 D=$4
rm -rf "$D" && mkdir -p "$D" && cp -r "$B" "$D/twice" || exit 1
set -- --quiet --no-picture
full=$("$E" run "$S" --steps 40 "$@" --hash --out "$D/full" | sed -n 's/^state-hash: //p') || exit 1
"$E" resume "$D/twice" --steps 30 "$@" || { echo "resume_twice.sh: the first resume failed" >&2; exit 1; }
part=$("$E" resume "$D/twice" --steps 40 "$@" --hash | sed -n 's/^state-hash: //p') ||
    { echo "resume_twice.sh: the second resume failed" >&2; exit 1; }
echo "uninterrupted to step 40: $full"
echo "resumed at 20 and 30:     $part"
[ -n "$full" ] && [ "$full" = "$part" ] || { echo "resume_twice.sh: the twice-resumed state differs" >&2; exit 1; }
