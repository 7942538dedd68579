#!/bin/sh
# interrupt.sh EDDY MPIRUN SCENE OUT SIGNAL [rank]: SIGNAL (INT or TERM) sent to mpirun while SCENE runs
# on two processes: every process stops after the same step (they agree after each step, docs/mpi.md),
# says so with the command to continue, and the checkpoint pieces and manifest are written; resumed 40
# steps further on two processes, the run ends with the single-process hash of as many steps.
# With `rank`, the signal goes to one eddy process instead (the way docs/mpi.md gives for a run whose
# checkpoint takes long), and rank 0 is made to take 2 s to reach the manifest
# (EDDY_TEST_MANIFEST_DELAY_MS): the other process must not stop the job (MPI_Abort) before the
# manifest is on disk, as it once could. The processes' halo figures are said once, as after a run's end.
# Exit 77 (skipped) where mpirun is absent or eddy was built without MPI.
eddy=$1; mpirun=$2; scene=$3; out=$4; sig=$5; target=${6:-mpirun}
if ! command -v "$mpirun" >/dev/null 2>&1; then echo "skipped: no mpirun ('$mpirun'): install openmpi-bin"; exit 77; fi
if ! "$eddy" --version | grep -q '^processes: MPI'; then echo "skipped: eddy was built without MPI"; exit 77; fi
fail() { echo "interrupt.sh: $*" >&2; exit 1; }
# Open MPI sends SIGKILL 1 s after it forwarded the signal (odls_base_sigkill_timeout): too short for
# the last frame and the checkpoint on a loaded machine (docs/mpi.md). A signal to an eddy process
# keeps the default: its 1 s after an MPI_Abort is shorter than rank 0's 2 s to the manifest.
[ "$target" = rank ] || export OMPI_MCA_odls_base_sigkill_timeout=5
rm -rf "$out" "$out.txt"
[ "$target" = rank ] && export EDDY_TEST_MANIFEST_DELAY_MS=2000
"$mpirun" --oversubscribe -np 2 "$eddy" run "$scene" --steps 100000 --no-picture \
    --set time.output_interval=0.0005 --out "$out" >"$out.txt" 2>&1 &
pid=$!
# Until a few frames are out (the run is well inside its loop), at most 60 s.
i=0
rows() { if [ -f "$out/diagnostics.csv" ]; then wc -l <"$out/diagnostics.csv"; else echo 0; fi; }
while [ "$(rows)" -lt 4 ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
if [ "$target" = rank ]; then
    # One of mpirun's children: an eddy process (Open MPI starts them directly on one machine).
    rank_pid=$(pgrep -P "$pid" -f "$eddy" | head -n 1)
    [ -n "$rank_pid" ] || fail "no eddy process under mpirun ($pid)"
    kill -"$sig" "$rank_pid"
else
    kill -"$sig" "$pid"
fi
wait "$pid"
unset EDDY_TEST_MANIFEST_DELAY_MS
cat "$out.txt"
grep -qF "checkpoint written, continue with: mpirun -np 2 eddy resume $out" "$out.txt" ||
    fail "the processes do not say that the checkpoint was written"
steps=$(sed -n 's/.*interrupted by signal [0-9]* (SIG[A-Z0-9]*) at step \([0-9]*\) .*/\1/p' "$out.txt" | sort -u)
[ "$(echo "$steps" | wc -l)" -eq 1 ] && [ -n "$steps" ] || fail "the processes stopped at different steps: $steps"
[ -f "$out/checkpoint.manifest" ] || fail "no checkpoint.manifest"
# The processes' figures are said as at the end of a run (an interrupted run left the halo line out).
[ "$(grep -c '^eddy: 2 processes: [0-9]* halo updates' "$out.txt")" -eq 1 ] || fail "the halo figures are not said once"
grep -Eq "\"step\":[[:space:]]*$steps([^0-9]|\$)" "$out/checkpoint.manifest" || fail "the manifest is not of step $steps"
end=$((steps + 40))
"$mpirun" --oversubscribe -np 2 "$eddy" resume "$out" --steps "$end" --hash --quiet >"$out.resume.txt" 2>&1 ||
    { cat "$out.resume.txt" >&2; fail "the resume failed"; }
"$eddy" run "$scene" --steps "$end" --hash --quiet --no-picture --set time.output_interval=0.0005 \
    --out "$out.serial" >"$out.serial.txt" 2>&1 || fail "the single-process run failed"
a=$(sed -n 's/^state-hash: //p' "$out.resume.txt"); b=$(sed -n 's/^state-hash: //p' "$out.serial.txt")
echo "stopped at step $steps; resumed to $end: $a; one process: $b"
[ -n "$a" ] && [ "$a" = "$b" ] || fail "the resumed run ends in another state than one process's"
