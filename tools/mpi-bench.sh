#!/bin/sh
# tools/mpi-bench.sh EDDY OUT.csv [ROUNDS] [PER_RANK] [STRONG_TOTAL]: strong and weak scaling of sph_mueller
# (scenes/dam_break_3d.json) and tait (scenes/tait_dam_break_3d.json) under `mpirun -np R eddy bench`,
# R = 1, 2, 4 (4 oversubscribes a 2-core machine), one thread per process. Weak: PER_RANK particles per
# process (default 100000); strong: STRONG_TOTAL particles in all (default 400000). Every round runs
# every configuration once, so slow spells of a shared machine fall on all of them alike (interleaved
# repeats); one CSV row per run, the "bench:" line's key=value pairs as columns. docs/performance.md,
# "Several processes", quotes the medians; tools/mpi-scaling-model.py models larger rank counts.
set -e
eddy=$1; out=$2; rounds=${3:-3}; per=${4:-100000}; strong=${5:-400000}
[ -n "$eddy" ] && [ -n "$out" ] || { echo "usage: tools/mpi-bench.sh EDDY OUT.csv [ROUNDS] [PER_RANK] [STRONG_TOTAL]" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
: >"$out.tmp"
for round in $(seq 1 "$rounds"); do
    for case in "sph_mueller dam_break_3d" "tait tait_dam_break_3d"; do
        set -- $case
        solver=$1; scene=$here/scenes/$2.json
        # kind R total
        for run in "weak 1 $per" "weak 2 $((2 * per))" "weak 4 $((4 * per))" "strong 1 $strong" "strong 2 $strong"; do
            set -- $run
            kind=$1; r=$2; n=$3
            line=$(mpirun --oversubscribe -np "$r" "$eddy" bench "$scene" --solver "$solver" --particles "$n" \
                   --steps 10 --repeats 3 | grep '^bench: ')
            echo "round=$round kind=$kind ranks=$r $line" | tee -a "$out.tmp" >&2
        done
    done
done
# key=value lines to CSV
awk -f "$here/tools/kv-to-csv.awk" "$out.tmp" >"$out"
rm -f "$out.tmp"
echo "wrote $out" >&2
