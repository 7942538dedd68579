#!/bin/sh
# runaway_resumed.sh EDDY SCENE OUT EXPECT_SH TEXT: the faulty plugin's dt_runaway run (limit 1e-4 s halved
# every step from step 3) stopped at step 8 and resumed must stop where the run without the break does:
# time.min_dt_fraction's scale, the run's first step, is kept in the checkpoint (the resumed run's own
# first step, 1.6e-06 s, put the stop at step 19). TEXT: the message expected of the resume.
eddy=$1; scene=$2; out=$3; expect=$4; text=$5
rm -rf "$out"
"$eddy" run "$scene" --solver robust_faulty --quiet --no-picture --out "$out" --steps 8 \
    --set solvers.robust_faulty.fault=dt_runaway --set solvers.robust_faulty.at_step=3 || exit 1
exec sh "$expect" 1 "$text" "$eddy" resume "$out" --until 0.01 --quiet --no-picture
