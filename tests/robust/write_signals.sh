#!/bin/sh
# write_signals.sh EDDY SCENE TAIT_SCENE DIR: the signals a failed write raises end no run (services.c catches them),
# and the write is reported by the normal path.
#  - SIGXFSZ: a run under `ulimit -f 20` (10 KiB, less than one frame of SCENE) was killed (exit 153)
#    leaving frames/frame_00000.vtp.tmp; it must exit 1 with the write's error, "File too large", naming
#    the frame, and leave no temporary file.
#  - SIGPIPE: `eddy run ... 2>&1 | head -1` was killed (exit 141) at the first progress line after head
#    ended, with no checkpoint; the run must go on to its end (its checkpoint at the last step: resume
#    finds it at its end) and exit 1, the status saying that messages were lost.
#  - SIGPIPE while the session opens: into a pipe whose reader went at once (`2>&1 | true`), tait's
#    "sound speed" line, printed while its session opens, killed the run (141) before it wrote anything;
#    it must go on to its end in the same way.
eddy=$1 scene=$2 tait_scene=$3 dir=$4
set -u
fail() { echo "write_signals.sh: $*" >&2; exit 1; }
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot make $dir"

d="$dir/fsz"
got=$( (ulimit -f 20 && exec "$eddy" run "$scene" --steps 50 --quiet --no-picture --out "$d") 2>&1); status=$?
printf '%s\n' "$got"
[ "$status" = 1 ] || fail "under ulimit -f: exit status $status, expected 1"
case "$got" in
    *"eddy: error: cannot write '$d/frames/frame_00000.vtp': File too large"*) ;;
    *) fail "under ulimit -f: no \"cannot write '$d/frames/frame_00000.vtp': File too large\"" ;;
esac
left=$(find "$d" -name '*.tmp')
[ -z "$left" ] || fail "under ulimit -f: temporary files left: $left"

d="$dir/pipe"
steps=600
first=$( { "$eddy" run "$scene" --steps $steps --no-picture --out "$d" 2>&1; echo $? > "$dir/pipe.status"; } | head -1)
status=$(cat "$dir/pipe.status")
echo "first line: $first; exit status $status"
[ "$status" = 1 ] || fail "into a closed pipe: exit status $status, expected 1"
case "$first" in "eddy: running "*) ;; *) fail "the first line is not the run's: $first" ;; esac
got=$("$eddy" resume "$d" --quiet --no-picture 2>&1)
case "$got" in
    *"is at step $steps ("*"already at or past its end (step $steps)"*) ;;
    *) fail "the run into a closed pipe did not reach step $steps with a checkpoint: resume said: $got" ;;
esac
d="$dir/closed"
{ "$eddy" run "$tait_scene" --steps 3 --no-picture --out "$d" 2>&1; echo $? > "$dir/closed.status"; } | true
status=$(cat "$dir/closed.status")
echo "into a pipe closed before the run opened: exit status $status"
[ "$status" = 1 ] || fail "into a pipe closed before the run opened: exit status $status, expected 1"
got=$("$eddy" resume "$d" --quiet --no-picture 2>&1)
case "$got" in
    *"is at step 3 ("*"already at or past its end (step 3)"*) ;;
    *) fail "the run into a pipe closed before it opened did not reach step 3 with a checkpoint: resume said: $got" ;;
esac
echo "a file past ulimit -f and a closed pipe are write errors, not a killed run"
