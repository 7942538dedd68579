#!/bin/sh
# probe_material.sh EDDY MPIRUN SCENE OUT STEPS N [ARG...]: probes limited to one material (`material`,
# host/observe/probes_builtin.c) on N processes equal one process's byte for byte and gather nothing
# (docs/mpi.md): each process leaves the other material's particles out of its partial sums and its
# bins. The scene (a 2D dam break) gets a second material, "oil", in a block [0.3, 0.4] x [0, 0.05]
# ahead of the water column. At t = 0 the oil's front along x is its block's edge, 0.4, while every
# material's front is the water's, 0.1 (the walk from x = 0 stops at the gap before the oil); the
# water's front must move over the rows. Exit 77 without
# mpirun or MPI.
eddy=$1; mpirun=$2; scene=$3; out=$4; steps=$5; n=$6; shift 6
if ! command -v "$mpirun" >/dev/null 2>&1; then echo "skipped: no mpirun ('$mpirun'): install openmpi-bin"; exit 77; fi
if ! "$eddy" --version | grep -q '^processes: MPI'; then echo "skipped: eddy was built without MPI"; exit 77; fi
fail() { echo "probe_material.sh: $*" >&2; exit 1; }
oil='materials=[{"name":"water","rest_density":1000,"particle_spacing":0.0025,"viscosity":0.1,"stiffness":400},
{"name":"oil","rest_density":800,"particle_spacing":0.0025,"viscosity":0.1,"stiffness":400}]'
block='fluids=[{"material":"water","box":{"min":[0,0],"max":[0.1,0.2]}},
{"material":"oil","box":{"min":[0.3,0],"max":[0.4,0.05]}}]'
probes='probes=[{"name":"w_front","kind":"front","axis":"x","material":"water"},
{"name":"o_front","kind":"front","axis":"x","material":"oil"},{"name":"all_front","kind":"front","axis":"x"},
{"name":"o_top","kind":"height","axis":"y","at":[0.35,0],"material":"oil"},
{"name":"w_wall","kind":"height","axis":"y","at":[0,0],"material":"water","max_gap":0.004},
{"name":"rho_oil","kind":"density","min":[0,0],"max":[0.6,0.1],"material":"oil"},
{"name":"p_water","kind":"pressure","point":[0.05,0.01],"material":"water"}]'
rm -rf "$out"
mkdir -p "$out"
"$eddy" run "$scene" --steps "$steps" --format vtk --no-picture --quiet --set "$oil" --set "$block" --set "$probes" \
    "$@" --out "$out/serial" >"$out/serial.txt" 2>&1 || { cat "$out/serial.txt" >&2; fail "the single-process run failed"; }
EDDY_LOG=debug "$mpirun" --oversubscribe -np "$n" "$eddy" run "$scene" --steps "$steps" --format vtk --no-picture \
    --quiet --set "$oil" --set "$block" --set "$probes" "$@" --out "$out/np$n" >"$out/np$n.txt" 2>&1 ||
    { cat "$out/np$n.txt" >&2; fail "the run on $n processes failed"; }
s=$out/serial/probes.csv
g=$(grep -c 'gather of every particle' "$out/np$n.txt")
[ "$g" -eq 0 ] || fail "the run on $n processes gathered the particles $g times (the built-in probes need none)"
[ "$(head -1 "$s")" = "time,step,w_front,o_front,all_front,o_top,w_wall,rho_oil,p_water" ] || fail "header: $(head -1 "$s")"
rows=$(tail -n +2 "$s" | wc -l)
[ "$rows" -gt 2 ] || fail "one process wrote $rows probe rows; the test needs several"
fronts=$(tail -n +2 "$s" | cut -d, -f3 | sort -u | wc -l)
[ "$fronts" -gt 2 ] || fail "w_front reads $fronts distinct values over $rows rows; it must move"
sed -n 2p "$s" | awk -F, '{ d = $4 - 0.4; e = $5 - 0.1; if (d < 0) d = -d; if (e < 0) e = -e; if (d > 1e-6 || e > 1e-6) exit 1 }' ||
    fail "at t = 0 the oil's front must read 0.4 (its block) and every material's 0.1: $(sed -n 2p "$s")"
cmp "$s" "$out/np$n/probes.csv" || fail "probes.csv on $n processes differs from one process's"
echo "$rows rows, $(head -1 "$s"): equal on $n processes, no gather"
exit 0
