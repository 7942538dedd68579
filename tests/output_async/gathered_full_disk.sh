#!/bin/sh
# gathered_full_disk.sh EDDY MPIRUN SCENE OUT NP on|off STEPS: NP processes with CSV frames, which need
# every particle on rank 0 (the gathered path, docs/mpi.md), and rank 0's frame 2 cannot be written
# (frame_00002.csv.tmp links to /dev/full). Every process must stop with exit status 1 (CTest's TIMEOUT
# catches the hang this once was: rank 0 left the run while the others waited in the next step's
# collectives), rank 0 saying once, in one process's words, that it cannot write the file ("No space
# left on device"; before, every other process said that rank 0 could not, and one stopped the others
# with MPI_Abort); frames 0 and 1 complete.
# Exit 77 without mpirun, MPI or /dev/full.
eddy=$1; mpirun=$2; scene=$3; out=$4; np=$5; mode=$6; steps=$7
fail() { echo "gathered_full_disk.sh: $*" >&2; exit 1; }
command -v "$mpirun" >/dev/null 2>&1 || { echo "skipped: no mpirun ('$mpirun')"; exit 77; }
"$eddy" --version | grep -q '^processes: MPI' || { echo "skipped: eddy was built without MPI"; exit 77; }
[ -c /dev/full ] || { echo "skipped: no /dev/full"; exit 77; }
rm -rf "$out"; mkdir -p "$out/frames"
ln -s /dev/full "$out/frames/frame_00002.csv.tmp"
EDDY_OUTPUT_OVERLAP=$mode "$mpirun" --oversubscribe -np "$np" "$eddy" run "$scene" --steps "$steps" --quiet \
    --no-picture --format csv --out "$out" >"$out.log" 2>&1
status=$?
cat "$out.log"
[ "$status" -eq 1 ] || fail "exit status $status, expected 1"
cause="cannot write '$out/frames/frame_00002.csv': No space left on device"
[ "$(grep -cxF "eddy: error: $cause" "$out.log")" -eq 1 ] || fail "rank 0 does not say once: $cause"
! grep -q "MPI_ABORT" "$out.log" || fail "a process stopped the others with MPI_Abort"
if grep "eddy: error:" "$out.log" | grep -vF "$cause"; then
    fail "an error line names something else"
fi
for k in 0 1; do
    f="$out/frames/frame_0000$k.csv"
    [ -f "$f" ] || fail "frame $k was lost"
    head -n 1 "$f" | grep -q '^id,' || fail "frame $k has no header"
done
exit 0
