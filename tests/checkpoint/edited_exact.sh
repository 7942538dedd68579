#!/bin/sh
# edited_exact.sh CKEDIT BASE COPY EDITS EDDY SCENE STEPS: BASE (a run of SCENE to step 20) copied to COPY
# with EDITS applied (edited.sh) that change nothing the run depends on, resumed to step STEPS, must end in
# the state of one uninterrupted run of SCENE to STEPS (the same state hash): the edited checkpoint is
# accepted and restores all of the state.
K=$1 B=$2 C=$3 EDITS=$4 E=$5 S=$6 N=$7
sh "$(dirname "$0")/edited.sh" "$K" "$B" "$C" "$EDITS" || { echo "edited_exact.sh: the edit failed" >&2; exit 1; }
set -- --quiet --no-picture --hash
rm -rf "$C.full"
full=$("$E" run "$S" --steps "$N" "$@" --out "$C.full" | sed -n 's/^state-hash: //p')
part=$("$E" resume "$C" --steps "$N" "$@" | sed -n 's/^state-hash: //p')
echo "uninterrupted to step $N:             $full"
echo "edited ($EDITS), resumed at 20: $part"
[ -n "$full" ] && [ "$full" = "$part" ] || { echo "edited_exact.sh: the resumed state differs" >&2; exit 1; }
