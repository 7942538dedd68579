#!/bin/sh
# rank_fails.sh EDDY MPIRUN SCENE OUT: on two processes, rank 1 cannot write its VTK piece of frame 0
# (a folder is in the way of its temporary file) while rank 0 waits for it in the gather. Every process
# must stop (the test's TIMEOUT catches a hang) with rank 1's message, and frames.pvd must name no
# frame: frame 0's .pvtp, which would point at the missing piece, is never written.
# Exit 77 (skipped) where mpirun is absent or eddy was built without MPI.
eddy=$1; mpirun=$2; scene=$3; out=$4
if ! command -v "$mpirun" >/dev/null 2>&1; then echo "skipped: no mpirun ('$mpirun'): install openmpi-bin"; exit 77; fi
if ! "$eddy" --version | grep -q '^processes: MPI'; then echo "skipped: eddy was built without MPI"; exit 77; fi
rm -rf "$out"
mkdir -p "$out/frames/frame_00000_p1.vtp.tmp"
"$mpirun" --oversubscribe -np 2 "$eddy" run "$scene" --steps 2 --quiet --no-picture --out "$out" >"$out.txt" 2>&1
rc=$?
cat "$out.txt"
text="eddy: error: rank 1 of 2: cannot write '$out/frames/frame_00000_p1.vtp': Is a directory"
if [ "$rc" -eq 0 ]; then echo "rank_fails.sh: the run succeeded; expected rank 1 to fail" >&2; exit 1; fi
if ! grep -qF -- "$text" "$out.txt"; then echo "rank_fails.sh: the output does not say: $text" >&2; exit 1; fi
if grep -q 'file="frames/' "$out/frames.pvd"; then echo "rank_fails.sh: frames.pvd names a frame" >&2; exit 1; fi
if [ -e "$out/frames/frame_00000.pvtp" ]; then echo "rank_fails.sh: frame_00000.pvtp was written" >&2; exit 1; fi
exit 0
