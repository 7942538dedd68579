#!/bin/sh
# observer_resume.sh EDDY SCENE DIR: a plugin writer that keeps, on resume, what observe.h tells it to
# (its series file's lines at times <= resume_time) ends with the series of a run without a break, one
# line per frame of frames.pvd, after a run stopped by a signal, a run that ended between two frames
# (whose last frame was written at its own time under the next index) and one ended at a frame.
# observe.h said "times < resume_time": a writer that followed it lost the frame at resume_time on
# every resume (an observer-plugin trial); the host passes the last kept frame's time.
set -u
E=$1; S=$2; D=$3
fail() { echo "observer_resume.sh: $*" >&2; exit 1; }
rm -rf "$D" && mkdir -p "$D" || exit 1
q="--quiet --no-picture --format vtk,test_writer"
end=0.045 # frames every 0.0075 s: 0 to 6
# shellcheck disable=SC2086 # $q is meant to split
"$E" run "$S" --until $end $q --out "$D/whole" || fail "the whole run failed"
# shellcheck disable=SC2086
"$E" run "$S" --until $end $q --set output.writers.test_writer.signal_at_frame=3 --out "$D/stopped" >"$D/stopped.log" 2>&1
status=$?
[ "$status" = 130 ] || { cat "$D/stopped.log"; fail "the stopped run ended with status $status, expected 130"; }
# shellcheck disable=SC2086
"$E" resume "$D/stopped" --until $end --quiet --no-picture || fail "the resume of the stopped run failed"
# A run that ends between two frames writes its last one at its own time, under the next index.
# shellcheck disable=SC2086
"$E" run "$S" --until 0.025 $q --out "$D/odd_end" || fail "the run to 0.025 s failed"
last=$(tail -n 1 "$D/odd_end/test_writer/frame_series.txt")
case $last in "4 0.025"*) ;; *) fail "the run to 0.025 s ends its series with '$last', expected frame 4 at 0.025 s" ;; esac
"$E" resume "$D/odd_end" --until $end --quiet --no-picture || fail "the resume of the run to 0.025 s failed"
# shellcheck disable=SC2086
"$E" run "$S" --until 0.0225 $q --out "$D/halves" && "$E" resume "$D/halves" --until $end --quiet --no-picture ||
    fail "the run in two halves failed"
pvd() { sed -n 's/.*timestep="\([^"]*\)".*frame_0*\([0-9][0-9]*\)\.vtp.*/\2/p' "$1/frames.pvd" | tr '\n' ' '; }
indices() { cut -d' ' -f1 "$1/test_writer/frame_series.txt" | tr '\n' ' '; }
[ "$(pvd "$D/whole")" = "0 1 2 3 4 5 6 " ] || fail "the whole run's frames.pvd lists $(pvd "$D/whole")"
for r in stopped odd_end halves; do
    cmp -s "$D/whole/test_writer/frame_series.txt" "$D/$r/test_writer/frame_series.txt" ||
        fail "$r: the writer's series is '$(indices "$D/$r")' with times $(cut -d' ' -f2 "$D/$r/test_writer/frame_series.txt" | tr '\n' ' '), the whole run's '$(indices "$D/whole")'"
    [ "$(pvd "$D/$r")" = "$(indices "$D/$r")" ] || fail "$r: frames.pvd lists $(pvd "$D/$r"), the writer $(indices "$D/$r")"
done
echo "the writer's series after a stop, an odd end and a split run equals the whole run's"
