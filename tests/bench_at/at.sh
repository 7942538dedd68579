#!/bin/sh
# at.sh EDDY SCENE OUT [MPIRUN]: `eddy bench SCENE --at T` times the flow at t = T, the state `eddy run
# --until T` reaches, not the scene as built. Checks, on the coarse dam break of this folder:
#  - without --at the bench starts at t = 0, step 0 and says nothing of a start;
#  - with --at 0.3 it says it starts at t = 0.3 at the run's step count there (diagnostics.csv);
#  - the fraction of particles within h of a wall it reports equals the one counted here, with awk, in
#    the frame `eddy run` wrote at t = 0.3 (the container's four walls; h = world.smoothing_radius), and
#    it is larger than at t = 0: the water has spread along the floor and runs up the far wall;
#  - at t = 0 (14 steps of 1e-4 s move no particle out of its cell) the cells it reports are the
#    lattice's: 20 x 40 particles, 2 x 2 per cell of h = 2 spacings, 10 x 20 cells; the candidates per
#    particle are the 3 x 3 cells around each (clipped at the block's edges) x 4 particles: (8 x 3 +
#    2 x 2) x (18 x 3 + 2 x 2) = 1624 cell pairs x 16 / 800 = 32.48;
#  - with MPIRUN (and eddy built with MPI; else, after the checks above, exit 77: skipped): on 2 processes the same start step and fraction (the
#    decomposed run is bit-identical to one process's, docs/mpi.md), and the cells, particles per cell,
#    candidates and gathered candidates within 2% of one process's: all count what the owned particles
#    loop over (halo copies and halo-only cells, which the passes skip, were counted before: 20% more
#    cells, 4-5% fewer candidates); not equal, as a cell split between two processes counts on both and
#    a process's halo holds the particles within reach of its boundary, not the whole cells of the bars.
eddy=$1; scene=$2; out=$3; mpirun=$4
fail() { echo "at.sh: $*" >&2; exit 1; }
val() { printf '%s\n' "$1" | sed -n "s/^bench: .* $2=\([^ ]*\).*/\1/p"; }
zero=$("$eddy" bench "$scene" --steps 2 --repeats 2 2>&1) || { echo "$zero" >&2; fail "the bench at t = 0 failed"; }
at=$("$eddy" bench "$scene" --at 0.3 --steps 2 --repeats 2 2>&1) || { echo "$at" >&2; fail "the bench --at 0.3 failed"; }
printf '%s\n' "$zero" "$at"
[ "$(val "$zero" start_time)" = 0 ] && [ "$(val "$zero" start_step)" = 0 ] || fail "without --at the bench did not start at t = 0, step 0"
printf '%s\n' "$zero" | grep -q '^  from t = ' && fail "without --at the bench names a start time"
[ "$(val "$zero" occupied_cells)" = 200 ] && [ "$(val "$zero" particles_per_cell)" = 4.000 ] &&
    [ "$(val "$zero" candidates)" = 32.48 ] ||
    fail "at t = 0: $(val "$zero" occupied_cells) cells, $(val "$zero" particles_per_cell) particles each, $(val "$zero" candidates) candidates, not 200, 4.000, 32.48"
[ "$(val "$at" start_time)" = 0.3 ] || fail "--at 0.3: start_time=$(val "$at" start_time)"
printf '%s\n' "$at" | grep -q '^  from t = 0.3 s (step ' || fail "--at 0.3: no 'from t = 0.3 s (step ...' line"
rm -rf "$out"
"$eddy" run "$scene" --until 0.3 --out "$out" --format csv --quiet --no-picture || fail "eddy run --until 0.3 failed"
run_step=$(awk -F, 'END { print $2 }' "$out/diagnostics.csv")
[ "$(val "$at" start_step)" = "$run_step" ] || fail "--at 0.3 starts at step $(val "$at" start_step), eddy run --until 0.3 ends at step $run_step"
frame=$(ls "$out"/frames/frame_*.csv | tail -n 1)
h=$(sed -n 's/.*"smoothing_radius": *\([0-9.e-]*\).*/\1/p' "$scene")
box=$(sed -n 's/.*"container": *{ *"min": *\[\([^]]*\)\], *"max": *\[\([^]]*\)\].*/\1,\2/p' "$scene")
counted=$(awk -F, -v h="$h" -v box="$box" 'BEGIN { split(box, b, ",") }
    NR > 1 { d = $2 - b[1]; if (b[3] - $2 < d) d = b[3] - $2; if ($3 - b[2] < d) d = $3 - b[2];
             if (b[4] - $3 < d) d = b[4] - $3; n += d < h; m++ }
    END { printf "%.4f", n / m }' "$frame")
echo "within h of a wall at t = 0.3 ($frame): counted $counted, bench $(val "$at" near_wall); at t = 0: bench $(val "$zero" near_wall)"
[ "$(val "$at" near_wall)" = "$counted" ] || fail "--at 0.3 reports near_wall=$(val "$at" near_wall), the frame of eddy run at t = 0.3 has $counted"
awk -v a="$(val "$at" near_wall)" -v z="$(val "$zero" near_wall)" 'BEGIN { exit !(a > z) }' ||
    fail "near_wall at t = 0.3 ($(val "$at" near_wall)) is not above t = 0's ($(val "$zero" near_wall))"
[ -n "$mpirun" ] || exit 0
if ! command -v "$mpirun" >/dev/null 2>&1 || ! "$eddy" --version | grep -q '^processes: MPI'; then
    echo "no mpirun or eddy without MPI: the 2-process check skipped"; exit 77
fi
two=$("$mpirun" --oversubscribe -np 2 "$eddy" bench "$scene" --at 0.3 --steps 2 --repeats 2 2>&1) ||
    { echo "$two" >&2; fail "the bench --at 0.3 on 2 processes failed"; }
printf '%s\n' "$two"
[ "$(val "$two" processes)" = 2 ] || fail "2 processes: processes=$(val "$two" processes)"
[ "$(val "$two" start_step)" = "$run_step" ] || fail "2 processes start at step $(val "$two" start_step), not $run_step"
[ "$(val "$two" near_wall)" = "$counted" ] || fail "2 processes report near_wall=$(val "$two" near_wall), not $counted"
near() { awk -v a="$1" -v b="$2" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= 0.02 * b) }'; }
for key in occupied_cells particles_per_cell candidates gathered; do
    near "$(val "$two" $key)" "$(val "$at" $key)" ||
        fail "2 processes report $key=$(val "$two" $key), one process $(val "$at" $key) (more than 2% apart)"
done
