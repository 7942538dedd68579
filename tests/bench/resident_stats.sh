#!/bin/sh
# resident_stats.sh EDDY SCENE PLUGIN_DIR: `eddy bench` measures the neighbour and cell figures of the
# particles whatever the solver does with them. tests/residency's double (residency_double: device-resident,
# its particles in private storage, the host copy poisoned between mappings) and its reference
# (residency_reference: the same O(n^2) method on the host arrays, the same bits) build no grid, so the
# world's grid is never built under either. On the same scene and size their states are identical, so:
#  - neighbors, occupied_cells, particles_per_cell, candidates and gathered are equal between the two,
#    numbers (not nan) and not zero: the figures describe the particles, not a grid left unbuilt;
#  - the figures lines say the same;
#  - the header and grid= do not claim the scene's grid (cpu) for them, and do for sph_mueller, which
#    builds it every step;
#  - the microseconds per particle-step agree with ns_per_particle_step to 3 significant digits.
eddy=$1; scene=$2; plugins=$3
fail() { echo "resident_stats.sh: $*" >&2; exit 1; }
val() { printf '%s\n' "$1" | sed -n "s/^bench: .* $2=\([^ ]*\).*/\1/p"; }
EDDY_PLUGIN_PATH=$plugins; export EDDY_PLUGIN_PATH
bench() { "$eddy" bench "$scene" --particles 2000 --steps 2 --repeats 1 --quiet --solver "$@" 2>&1; }

dev=$(bench residency_double) || { echo "$dev" >&2; fail "the bench of residency_double failed"; }
printf '%s\n' "$dev"
ref=$(bench residency_reference) || { echo "$ref" >&2; fail "the bench of residency_reference failed"; }
printf '%s\n' "$ref"
host=$(bench sph_mueller) || { echo "$host" >&2; fail "the bench of sph_mueller failed"; }
printf '%s\n' "$host"

for key in neighbors occupied_cells particles_per_cell candidates gathered; do
    d=$(val "$dev" $key); r=$(val "$ref" $key)
    [ -n "$d" ] || fail "residency_double: no $key= in the bench line"
    [ "$d" = "$r" ] || fail "$key: residency_double says '$d', residency_reference '$r' (the same particles)"
    awk -v v="$d" 'BEGIN { exit !(v ~ /^[0-9]+(\.[0-9]+)?$/ && v + 0 > 0) }' ||
        fail "$key=$d: not a positive number"
done
for what in "neighbors per particle:" "cells holding particles:"; do
    d=$(printf '%s\n' "$dev" | grep -F "  $what"); r=$(printf '%s\n' "$ref" | grep -F "  $what")
    [ -n "$d" ] && [ "$d" = "$r" ] || fail "the lines '$what' differ: '$d' against '$r'"
done

for out in "$dev" "$ref"; do
    printf '%s\n' "$out" | grep -q '^eddy bench: .*, grid cpu,' && fail "a solver that builds no grid is said to use grid cpu"
    [ "$(val "$out" grid)" = solver ] || fail "grid=$(val "$out" grid) for a solver that builds no grid, not grid=solver"
done
printf '%s\n' "$host" | grep -q '^eddy bench: residency_dam_break, solver sph_mueller, grid cpu, ' ||
    fail "sph_mueller builds the cpu grid, the header does not say so"
[ "$(val "$host" grid)" = cpu ] || fail "sph_mueller: grid=$(val "$host" grid), not grid=cpu"

for out in "$dev" "$host"; do
    us=$(printf '%s\n' "$out" | sed -n 's/.*particle-steps\/s  (\([^ ]*\) us per particle-step).*/\1/p')
    ns=$(val "$out" ns_per_particle_step)
    awk -v u="$us" -v n="$ns" 'BEGIN { d = u * 1000 - n; if (d < 0) d = -d; exit !(u != "" && n + 0 > 0 && d <= 0.006 * n) }' ||
        fail "'$us us per particle-step' against ns_per_particle_step=$ns"
done
exit 0
