#!/bin/sh
# exploded.sh EDDY MPIRUN SCENE OUT: a run that explodes (gravity 1e7) on one process and on 2. On 2
# the explosion is said once, in the words of the one-process run, and frames.pvd names as many frames
# (the exploded one included, its .pvtp written). Exit 77 without mpirun or MPI.
eddy=$1; mpirun=$2; scene=$3; out=$4
fail() { echo "exploded.sh: $*" >&2; exit 1; }
command -v "$mpirun" >/dev/null 2>&1 || { echo "skipped: no mpirun ('$mpirun')"; exit 77; }
"$eddy" --version | grep -q '^processes: MPI' || { echo "skipped: eddy was built without MPI"; exit 77; }
set -- run "$scene" --set 'world.gravity=[0,-1e7]' --set solvers.sph_mueller.cfl=1 --steps 300 --quiet --no-picture
rm -rf "$out"
"$eddy" "$@" --out "$out/np1" >"$out.np1.log" 2>&1 && fail "one process: exit status 0"
"$mpirun" --oversubscribe -np 2 "$eddy" "$@" --out "$out/np2" >"$out.np2.log" 2>&1 && fail "2 processes: exit status 0"
cat "$out.np2.log"
one=$(grep 'simulation exploded at step' "$out.np1.log")
[ -n "$one" ] || fail "one process: no explosion: $(cat "$out.np1.log")"
[ "$(grep -c 'simulation exploded at step' "$out.np2.log")" -eq 1 ] || fail "2 processes: the explosion is not said once"
grep -qxF -- "$one" "$out.np2.log" || fail "2 processes do not say '$one'"
n1=$(grep -c 'DataSet' "$out/np1/frames.pvd"); n2=$(grep -c 'DataSet' "$out/np2/frames.pvd")
[ "$n1" -ge 2 ] && [ "$n1" -eq "$n2" ] || fail "frames.pvd names $n1 frames on one process, $n2 on 2"
last=$(sed -n 's/.*file="frames\/\(frame_[0-9]*\)\.pvtp".*/\1/p' "$out/np2/frames.pvd" | tail -n 1)
[ -f "$out/np2/frames/$last.pvtp" ] || fail "the last frame named, $last, has no .pvtp"
echo "exploded.sh: said once, as on one process; $n2 frames named on both"
