#!/bin/sh
# pieces_full_disk.sh EDDY MPIRUN SCENE OUT NP on|off STEPS LAST_STEP: NP processes write the VTK pieces
# of each frame (the reduced path: vtk alone), and rank 1's piece of frame 2 cannot be written
# (frame_00002_p1.vtp.tmp links to /dev/full). The run must fail with exit status 1 (every process
# stops with it at the same point, main.c), rank 0 saying once "another process (rank 1) could not
# write its piece: cannot write FILE: No space left on device" (before, every process said its own line
# and one stopped the others with MPI_Abort), keep frames 0
# and 1 (their .pvtp and every piece complete), never write frame_00002.pvtp, and leave a frames.pvd
# naming only frames whose .pvtp and pieces are all complete.
# Which path ran shows in the last diagnostics row, LAST_STEP: without overlap rank 1 fails while
# frame 2 is taken, before rank 0 writes its row; with overlap the loss shows at the next frame's sums
# (STEPS 450: frame 3, whose row is then not written) or, when frame 2 is the last (STEPS 300), in the
# agreement at the end of the run: either way after frame 2's row. Without overlap (mode off, LAST_STEP
# -), the synchronous path as it has always been: rank 1 stops at frame 2 and writes its final frame
# at index 2 again (the same state, its failed .tmp link removed, so that piece then succeeds) while
# rank 0 may still be completing frame 2 with it; so frame 2 may be named, complete, and the last row
# depends on which process stops first: only the rules common to both modes are checked.
# Exit 77 without mpirun, MPI or /dev/full.
eddy=$1; mpirun=$2; scene=$3; out=$4; np=$5; mode=$6; steps=$7; last_step=$8
fail() { echo "pieces_full_disk.sh: $*" >&2; exit 1; }
command -v "$mpirun" >/dev/null 2>&1 || { echo "skipped: no mpirun ('$mpirun')"; exit 77; }
"$eddy" --version | grep -q '^processes: MPI' || { echo "skipped: eddy was built without MPI"; exit 77; }
[ -c /dev/full ] || { echo "skipped: no /dev/full"; exit 77; }
rm -rf "$out"; mkdir -p "$out/frames"
ln -s /dev/full "$out/frames/frame_00002_p1.vtp.tmp"
EDDY_OUTPUT_OVERLAP=$mode "$mpirun" --oversubscribe -np "$np" "$eddy" run "$scene" --steps "$steps" --quiet \
    --no-picture --format vtk --out "$out" >"$out.log" 2>&1
status=$?
cat "$out.log"
[ "$status" -eq 1 ] || fail "exit status $status, expected 1"
file="$out/frames/frame_00002_p1.vtp"
[ "$(grep -cxF "eddy: error: another process (rank 1) could not write its piece: cannot write '$file': No space left on device" "$out.log")" -eq 1 ] ||
    fail "rank 0 does not say once that rank 1 could not write $file"
! grep -q "MPI_ABORT" "$out.log" || fail "a process stopped the others with MPI_Abort"
# Whatever stopped the run, no line may blame another file or process.
if grep "eddy: error:" "$out.log" | grep -vF "cannot write '$file': No space left on device"; then
    fail "an error line names something else"
fi
[ "$mode" = off ] || [ ! -e "$out/frames/frame_00002.pvtp" ] || fail "frame_00002.pvtp was written, naming a missing piece"
is_complete() { [ -f "$1" ] && [ "$(tail -n 1 "$1")" = "</VTKFile>" ]; }
for k in 0 1; do
    is_complete "$out/frames/frame_0000$k.pvtp" || fail "frame $k's .pvtp was lost"
    r=0
    while [ $r -lt "$np" ]; do
        is_complete "$out/frames/frame_0000${k}_p$r.vtp" || fail "frame $k's piece $r was lost"
        r=$((r + 1))
    done
done
named=$(sed -n 's/.*file="frames\/\(frame_[0-9]*\)\.pvtp".*/\1/p' "$out/frames.pvd")
n=$(echo "$named" | grep -c .)
[ "$n" -eq 2 ] || { [ "$mode" = off ] && [ "$n" -ge 2 ]; } || fail "frames.pvd names $(echo $named), expected frames 0 and 1"
for f in $named; do
    is_complete "$out/frames/$f.pvtp" || fail "frames.pvd names $f, whose .pvtp is not complete"
    r=0
    while [ $r -lt "$np" ]; do
        is_complete "$out/frames/${f}_p$r.vtp" || fail "frames.pvd names $f, whose piece $r is not complete"
        r=$((r + 1))
    done
done
step=$(tail -n 1 "$out/diagnostics.csv" | cut -d, -f2)
[ "$last_step" = - ] || [ "$step" = "$last_step" ] || fail "the last diagnostics row is at step $step, expected $last_step (overlap $mode)"
echo "np $np, overlap $mode: exit 1 naming rank 1's frame_00002_p1.vtp; frames.pvd names $n frames, complete"
