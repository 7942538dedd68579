#!/bin/sh
# kernel_support.sh EDDY SCENE DIR
# pbf warns where the rest lattice's worst density mode grows under a Jacobi sweep (plugins/pbf/pbf.c,
# worst_sweep_factor), and only there. The figures are the linearized sweep's, computed apart from the
# plugin (a pure-Python sum over the lattice offsets and a 41 x 41 grid of wavenumbers,
# f(q) = 1 - P(q).S(q) / (2 sum |grad W_spiky|^2) at relaxation 1): a 2D lattice at h = 2 spacings has
# worst |f| = 1 (neutral), at 2.25 spacings 1.0213, at 4 spacings -1.2146. Without the warning a
# periodic box at rest there grows a flow out of rounding (h = 2.25: kinetic energy 1e-9 to 0.026 J/m in
# 0.3 s; h = 4: 9.4 J/m).
E=$1; S=$2; D=$3
WARN="one Jacobi sweep of the density constraint multiplies the worst density mode of the rest lattice"
run() { "$E" run "$S" --solver pbf --set 'materials[0].particle_spacing=0.04' --set "world.smoothing_radius=$1" \
            --steps 1 --no-picture --set 'output.format=[]' --out "$D" 2>&1; }
fail=0
out=$(run 0.08) || { echo "$out"; echo "kernel_support.sh: the run at h = 2 spacings failed"; exit 1; }
case "$out" in *"$WARN"*) echo "$out"; echo "kernel_support.sh: warned at h = 2 spacings"; fail=1 ;; esac
out=$(run 0.09) || { echo "$out"; exit 1; }
case "$out" in
    *"material 'fluid': h = 2.25 particle spacings (0.09 / 0.04): $WARN by 1.02 instead of damping it"*) ;;
    *) echo "$out"; echo "kernel_support.sh: no warning (or another figure than 1.02) at h = 2.25 spacings"; fail=1 ;;
esac
out=$(run 0.16) || { echo "$out"; exit 1; }
case "$out" in
    *"h = 4 particle spacings (0.16 / 0.04): $WARN by 1.21 with its sign flipped (it overshoots)"*) ;;
    *) echo "$out"; echo "kernel_support.sh: no warning (or another figure than -1.21) at h = 4 spacings"; fail=1 ;;
esac
[ $fail -eq 0 ] && echo "kernel_support.sh: no warning at 2 spacings; 1.02 at 2.25, -1.21 at 4"
exit $fail
