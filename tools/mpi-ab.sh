#!/bin/sh
# tools/mpi-ab.sh EDDY_A EDDY_B OUT.csv [ROUNDS] [PER_RANK]: two builds of eddy compared on the decomposed
# step, as interleaved rounds (every round runs every configuration of both once, so the slow spells of
# a shared machine fall on both alike). Configurations: sph_mueller (scenes/dam_break_3d.json) and tait
# (scenes/tait_dam_break_3d.json), one process with PER_RANK particles (default 100000) and two with twice
# as many, one thread per process. One CSV row per run: label (A or B) and the "bench:" line's key=value
# pairs; on two processes these include the host phases (order_ms, migrate_ms, halo_ms, refresh_ms: CPU
# time per step, MPI calls apart), which a loaded machine inflates far less than the wall time per step.
set -e
a=$1; b=$2; out=$3; rounds=${4:-3}; per=${5:-100000}
[ -n "$a" ] && [ -n "$b" ] && [ -n "$out" ] || { echo "usage: tools/mpi-ab.sh EDDY_A EDDY_B OUT.csv [ROUNDS] [PER_RANK]" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
export OMP_NUM_THREADS=1 OMP_WAIT_POLICY=passive OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
: >"$out.tmp"
for round in $(seq 1 "$rounds"); do
    for case in "sph_mueller dam_break_3d" "tait tait_dam_break_3d"; do
        set -- $case
        solver=$1; scene=$here/scenes/$2.json
        for r in 1 2; do
            for label in A B; do
                if [ $label = A ]; then exe=$a; else exe=$b; fi
                line=$(mpirun --oversubscribe -np "$r" "$exe" bench "$scene" --solver "$solver" \
                       --particles $((r * per)) --steps 10 --repeats 3 | grep '^bench: ')
                echo "round=$round label=$label ranks=$r $line" | tee -a "$out.tmp" >&2
            done
        done
    done
done
# key=value lines to CSV
awk -f "$here/tools/kv-to-csv.awk" "$out.tmp" >"$out"
rm -f "$out.tmp"
echo "wrote $out" >&2
