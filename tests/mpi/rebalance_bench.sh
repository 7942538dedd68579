#!/bin/sh
# rebalance_bench.sh EDDY OUT ROUNDS: wall time per step of the dam breaks on several processes for each
# EDDY_REBALANCE threshold (docs/mpi.md, "Rebalancing"), the rebalance count, the cost of one, and the
# imbalance at the end and its mean over the steps (largest owned count / mean - 1: what a step costs
# over a balanced one, which unlike the wall time does not depend on the machine's other load).
# A benchmark, not a test: it prints one line per run, the rounds interleaved (every threshold once per
# round), for medians on a shared machine. 2D: scenes/dam_break_2d.json, 2000 steps (the column's front
# runs along x, the cut axis, from 0.1 m to about 0.2 m); 3D: scenes/dam_break_3d.json, 300 steps.
# CASES ("scene steps processes...|..."), THRESHOLDS and EDDY2 (a second build, run after EDDY in every
# round: A/B interleaved, its lines marked B) narrow or compare.
eddy=$1; out=$2; rounds=${3:-2}
cases=${CASES:-"dam_break_2d ${STEPS2:-2000} 2 3 4|dam_break_3d ${STEPS3:-300} 2 3"}
thresholds=${THRESHOLDS:-"0.05 0.1 0.2 0.5 off"}
scenes=$(cd "$(dirname "$0")/../../scenes" && pwd)
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
mkdir -p "$out"
echo "build round scene processes threshold steps wall_s ms_per_step rebalances ms_per_rebalance final_imbalance mean_imbalance"
r=1
while [ "$r" -le "$rounds" ]; do
    IFS='|'; set -f; set -- $cases; unset IFS; set +f
    for case in "$@"; do
        set -- $case
        scene=$1; steps=$2; shift 2
        for n in "$@"; do
            for t in $thresholds; do
              for build in A ${EDDY2:+B}; do
                bin=$eddy; [ "$build" = B ] && bin=$EDDY2
                log="$out/$scene.np$n.$t.$build.txt"
                EDDY_REBALANCE=$t mpirun --oversubscribe -np "$n" "$bin" run "$scenes/$scene.json" --steps "$steps" \
                    --no-picture --format csv --set time.output_interval=1 --out "$out/run" >"$log" 2>&1 || { echo "failed: $log"; continue; }
                wall=$(sed -n 's/^done: .* steps in \([0-9.]*\)s.*/\1/p' "$log" | tail -1)
                line=$(grep 'processes: rebalanced' "$log")
                k=$(echo "$line" | sed -n 's/.*rebalanced \([0-9]*\) time.*/\1/p')
                imb=$(echo "$line" | sed -n 's/.*; imbalance \([0-9.]*\),.*/\1/p')
                mean=$(echo "$line" | sed -n 's/.*, mean \([0-9.]*\)$/\1/p')
                ms=$(echo "$line" | sed -n 's/.*, \([0-9.]*\) ms in rebalancing.*/\1/p')
                awk -v b="$build" -v r="$r" -v s="$scene" -v n="$n" -v t="$t" -v st="$steps" -v w="$wall" -v k="$k" -v ms="$ms" -v imb="$imb" -v mean="$mean" \
                    'BEGIN { printf "%s %s %s %s %s %s %s %.2f %s %s %s %s\n", b, r, s, n, t, st, w, 1000 * w / st, k, (k > 0 ? sprintf("%.2f", ms / k) : "-"), imb, mean }'
              done
            done
        done
    done
    r=$((r + 1))
done
