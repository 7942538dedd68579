#!/bin/sh
# pieces_interrupt.sh EDDY MPIRUN SCENE OUT SIG: NP=2 processes write a VTK piece each per frame (the
# reduced path, vtk alone) with overlap (a frame every 150 steps, the scene's; a piece is often in
# flight), and SIG reaches mpirun once frame 3 is named. Every process stops after the same step with
# the checkpoint ("checkpoint written"), and frames.pvd names only frames whose .pvtp and
# both pieces are complete, at the times of diagnostics.csv's rows (the last frame's pieces agreed on
# before the checkpoint), with no temporary file left. Exit 77 without mpirun or MPI.
eddy=$1; mpirun=$2; scene=$3; out=$4; sig=$5
fail() { echo "pieces_interrupt.sh: $*" >&2; exit 1; }
command -v "$mpirun" >/dev/null 2>&1 || { echo "skipped: no mpirun ('$mpirun')"; exit 77; }
"$eddy" --version | grep -q '^processes: MPI' || { echo "skipped: eddy was built without MPI"; exit 77; }
# Open MPI sends SIGKILL 1 s after it forwarded the signal: too short on a loaded machine (docs/mpi.md).
export OMPI_MCA_odls_base_sigkill_timeout=5
rm -rf "$out"
EDDY_OUTPUT_OVERLAP=on "$mpirun" --oversubscribe -np 2 "$eddy" run "$scene" --quiet --no-picture --format vtk \
    --until 5 --out "$out" >"$out.log" 2>&1 &
pid=$!
n=0
while ! grep -q 'frame_00003.pvtp' "$out/frames.pvd" 2>/dev/null; do
    kill -0 "$pid" 2>/dev/null || { cat "$out.log"; fail "the run ended before frame 3"; }
    n=$((n + 1)); [ $n -lt 1200 ] || { kill -KILL "$pid"; fail "no frame 3 after 60 s"; }
    sleep 0.05
done
sleep 0.3
kill -"$sig" "$pid"
wait "$pid"; status=$?
cat "$out.log"
# (mpirun's own status after a forwarded signal is 1 whatever the processes did: not checked)
[ "$status" -ne 0 ] || fail "exit status 0 after SIG$sig"
# The processes agree on the signal after a step (host/session/decomp.c), so they stop after the
# same one and the first says so, once; a rank-prefixed line would be one process stopping alone.
said=$(grep -c '^eddy: interrupted by signal [0-9]* (SIG[A-Z0-9]*) at step [0-9]* ' "$out.log")
[ "$said" -eq 1 ] || fail "the interrupt is said $said times, expected once"
! grep -q 'rank [01] of 2: interrupted' "$out.log" || fail "a process stopped on its own"
grep -qF "checkpoint written, continue with: mpirun -np 2 eddy resume $out" "$out.log" || fail "no checkpoint message"
[ -f "$out/checkpoint.manifest" ] || fail "no checkpoint manifest"
is_complete() { [ -f "$1" ] && [ "$(tail -n 1 "$1")" = "</VTKFile>" ]; }
named=$(sed -n 's/.*file="frames\/\(frame_[0-9]*\)\.pvtp".*/\1/p' "$out/frames.pvd")
count=$(echo "$named" | grep -c .)
[ "$count" -ge 4 ] || fail "frames.pvd names $count frames"
for f in $named; do
    is_complete "$out/frames/$f.pvtp" || fail "frames.pvd names $f, whose .pvtp is not complete"
    for r in 0 1; do is_complete "$out/frames/${f}_p$r.vtp" || fail "frames.pvd names $f, whose piece $r is not complete"; done
done
pvd_times=$(sed -n 's/.*timestep="\([^"]*\)".*/\1/p' "$out/frames.pvd")
diag_times=$(tail -n +2 "$out/diagnostics.csv" | cut -d, -f1)
[ "$pvd_times" = "$diag_times" ] || fail "frames.pvd and diagnostics.csv list different times"
[ -z "$(find "$out" -name '*.tmp')" ] || fail "temporary files left: $(find "$out" -name '*.tmp')"
echo "SIG$sig: $count complete frames named, as many diagnostics rows, no temporary file"
