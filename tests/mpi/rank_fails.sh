#!/bin/sh
# rank_fails.sh EDDY MPIRUN SCENE OUT [BLOCKED RANK STEPS OPTION...]: on two processes, process RANK
# cannot write the output file BLOCKED (a path under OUT; a folder is put in its way) while the other
# goes on to the frame's collectives. Every process must stop (the test's TIMEOUT catches a hang) with
# that process's message, said once by rank 0 (in its own words when rank 0 failed, else "another
# process (rank K) could not write its piece: ..."), without MPI_Abort and no MPI error in its place. Without BLOCKED: rank 1's VTK piece of frame
# 0 (its temporary file), with the default overlapped output; frames.pvd must then name no frame:
# frame 0's .pvtp, which would point at the missing piece, is never written. The other cases:
# `--no-overlap` (the piece written on the stepping thread), `--render` (rank 0's composite PNG) and
# BLOCKED picture.png (rank 0's picture at the end of the run).
# Exit 77 (skipped) where mpirun is absent or eddy was built without MPI.
eddy=$1; mpirun=$2; scene=$3; out=$4
blocked=${5:-frames/frame_00000_p1.vtp.tmp}; rank=${6:-1}; steps=${7:-2}
[ $# -gt 7 ] && shift 7 || shift $#
if ! command -v "$mpirun" >/dev/null 2>&1; then echo "skipped: no mpirun ('$mpirun'): install openmpi-bin"; exit 77; fi
if ! "$eddy" --version | grep -q '^processes: MPI'; then echo "skipped: eddy was built without MPI"; exit 77; fi
rm -rf "$out"
mkdir -p "$out/$blocked"
# (BLOCKED picture.png: rank 0 cannot write the run's picture, at its end)
picture=--no-picture; [ "$blocked" = picture.png ] && picture=--quiet
"$mpirun" --oversubscribe -np 2 "$eddy" run "$scene" --steps "$steps" --quiet $picture --out "$out" "$@" >"$out.txt" 2>&1
rc=$?
cat "$out.txt"
cause="cannot write '$out/${blocked%.tmp}': Is a directory"
if [ "$rank" -eq 0 ]; then text="eddy: error: $cause"; else text="eddy: error: another process (rank $rank) could not write its piece: $cause"; fi
if [ "$rc" -ne 1 ]; then echo "rank_fails.sh: exit status $rc; expected 1 (rank $rank failed)" >&2; exit 1; fi
if [ "$(grep -cxF -- "$text" "$out.txt")" -ne 1 ]; then echo "rank_fails.sh: the output does not say once: $text" >&2; exit 1; fi
if grep -q "MPI_ERR_" "$out.txt"; then echo "rank_fails.sh: an MPI error instead of a stop" >&2; exit 1; fi
if grep -q "MPI_ABORT\|rank [0-9] of 2:" "$out.txt"; then echo "rank_fails.sh: a process stopped the others alone" >&2; exit 1; fi
if [ $# -eq 0 ] && [ "$blocked" = frames/frame_00000_p1.vtp.tmp ]; then
    if grep -q 'file="frames/' "$out/frames.pvd"; then echo "rank_fails.sh: frames.pvd names a frame" >&2; exit 1; fi
    if [ -e "$out/frames/frame_00000.pvtp" ]; then echo "rank_fails.sh: frame_00000.pvtp was written" >&2; exit 1; fi
fi
exit 0
