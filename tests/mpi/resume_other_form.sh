#!/bin/sh
# resume_other_form.sh EDDY MPIRUN SCENE OUT: a run stopped between two frames writes its last frame at
# its own time under the next index, as one that ends there does; resumed on another process count,
# that index is written in the other form (.pvtp over pieces on several processes, .vtp on one). The
# stopped run's file of that index stayed beside the new one (an HPC trial: a frame_* glob took the
# stale one, and 40 MB of pieces stayed): now removed, both ways and from 3 to 2, and frames.pvd names one
# file per index. Exit 77 without mpirun or MPI.
eddy=$1; mpirun=$2; scene=$3; out=$4
fail() { echo "resume_other_form.sh: $*" >&2; exit 1; }
command -v "$mpirun" >/dev/null 2>&1 || { echo "skipped: no mpirun ('$mpirun')"; exit 77; }
"$eddy" --version | grep -q '^processes: MPI' || { echo "skipped: eddy was built without MPI"; exit 77; }
rm -rf "$out" && mkdir -p "$out" || fail "cannot create $out"
q="--quiet --no-picture"
# A run that ends between two frames writes its last one as a stopped run does (an interrupt's moment
# is not a test's to choose): 0.0075 s between frames, dt 5e-5 s, 150 steps a frame; step 330 lies
# between frames 2 and 3.
# shellcheck disable=SC2086 # $q is meant to split
"$eddy" run "$scene" --steps 330 $q --out "$out/one" || fail "the run on one process failed"
# shellcheck disable=SC2086
"$mpirun" --oversubscribe -np 2 "$eddy" run "$scene" --steps 330 $q --out "$out/two" || fail "the run on two failed"
# shellcheck disable=SC2086
"$mpirun" --oversubscribe -np 3 "$eddy" run "$scene" --steps 330 $q --out "$out/three" || fail "the run on three failed"
[ -f "$out/three/frames/frame_00003_p2.vtp" ] || fail "no third piece of frame 3: the case is not the one tested"
[ -f "$out/one/frames/frame_00003.vtp" ] && [ -f "$out/two/frames/frame_00003.pvtp" ] ||
    fail "no frame 3 at the odd end: the case is not the one tested"
"$mpirun" --oversubscribe -np 2 "$eddy" resume "$out/one" --steps 600 --quiet --no-picture || fail "one -> two failed"
"$eddy" resume "$out/two" --steps 600 --quiet --no-picture || fail "two -> one failed"
[ ! -e "$out/one/frames/frame_00003.vtp" ] || fail "one -> two: the stopped run's frame_00003.vtp stayed beside the new .pvtp"
[ -f "$out/one/frames/frame_00003.pvtp" ] || fail "one -> two: no frame_00003.pvtp"
[ ! -e "$out/two/frames/frame_00003.pvtp" ] || fail "two -> one: the stopped run's frame_00003.pvtp stayed beside the new .vtp"
[ -z "$(ls "$out/two/frames" | grep '^frame_00003_p')" ] || fail "two -> one: the stopped run's pieces of frame 3 stayed: $(ls "$out/two/frames" | grep '^frame_00003_p' | tr '\n' ' ')"
[ -f "$out/two/frames/frame_00003.vtp" ] || fail "two -> one: no frame_00003.vtp"
# three -> two: the same form over fewer pieces; the third piece of the stopped run's frame 3 goes too
"$mpirun" --oversubscribe -np 2 "$eddy" resume "$out/three" --steps 600 --quiet --no-picture || fail "three -> two failed"
[ ! -e "$out/three/frames/frame_00003_p2.vtp" ] || fail "three -> two: the stopped run's third piece of frame 3 stayed"
[ -f "$out/three/frames/frame_00003_p1.vtp" ] || fail "three -> two: no second piece of frame 3"
for r in one two three; do
    [ "$(grep -c 'frame_00003\.' "$out/$r/frames.pvd")" = 1 ] || fail "$r: frames.pvd names frame 3 $(grep -c 'frame_00003\.' "$out/$r/frames.pvd") times"
done
# (the earlier frames keep their form: a resume replaces only what it writes again)
[ -f "$out/one/frames/frame_00002.vtp" ] && [ -f "$out/two/frames/frame_00002.pvtp" ] || fail "an earlier frame was removed"
echo "resume_other_form.sh: the stopped run's last frame is replaced, not left beside its successor"
