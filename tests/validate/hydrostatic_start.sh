#!/bin/sh
# hydrostatic_start.sh EDDY OUT: the hydrostatic tank starts from the compressed lattice
# (initial.hydrostatic), and the solver's derived fields at t = 0 are those of the compressed state: the
# first row of series.csv holds bottom_pressure (measured / rho0 g H) within 3% of 1. They were the
# uncompressed lattice's (3e-5 of it): a solver that evolves its density instead of summing it each step
# started from rest density, the compression lost (docs/plugin-guide.md, "Solvers that evolve density").
eddy=$1; out=$2
rm -rf "$out"
"$eddy" validate --case hydrostatic_tank --solver tait --resolution coarse --out "$out" --quiet || exit 1
series="$out/hydrostatic_tank/tait/coarse/series.csv"
first=$(sed -n '2p' "$series" | cut -d, -f1,2)
echo "t = 0: time,bottom_pressure = $first"
awk -F, -v row="$first" 'BEGIN { split(row, v, ","); d = v[2] - 1; if (d < 0) d = -d;
    if (v[1] != 0 || !(d < 0.03)) { print "hydrostatic_start.sh: at t = 0 bottom_pressure / (rho0 g H) is " v[2] ", not within 3% of 1"; exit 1 } }'
