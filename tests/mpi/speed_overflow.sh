#!/bin/sh
# speed_overflow.sh EDDY MPIRUN CKEDIT SCENE OUT: a state whose speed overflows single precision,
# resumed on 2 processes. No scene gives one (a scene's velocity is refused when it is read), so a
# one-process run's checkpoint is edited to hold one particle at 1e20 sim units/s: only the process
# that owns it sees the overflow, and every process stops at the first step with one message, said once
# (expect_np.sh). Exit 77 without mpirun or MPI.
eddy=$1; mpirun=$2; ckedit=$3; scene=$4; out=$5
rm -rf "$out"
"$eddy" run "$scene" --steps 5 --quiet --no-picture --format csv --out "$out" >"$out.log" 2>&1 ||
    { cat "$out.log"; echo "speed_overflow.sh: the run that writes the checkpoint failed" >&2; exit 1; }
"$ckedit" "$out/checkpoint.eddy" field velocity 0 5 1e20 || { echo "speed_overflow.sh: ckedit failed" >&2; exit 1; }
exec sh "$(dirname "$0")/expect_np.sh" "$eddy" "$mpirun" 2 \
    "eddy: error: at step 6 (t = 0.00025 s): the largest particle speed overflows single precision" \
    resume "$out" --steps 10 --quiet --no-picture
