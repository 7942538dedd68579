#!/bin/sh
# kernel_support.sh EDDY SCENE DIR
# pbf warns where a Jacobi sweep amplifies the rest lattice's worst density mode (plugins/pbf/pbf.c,
# sweep_spectrum), naming the cause, and only there: a kernel support past 2 spacings (its gradients
# disagree: no relaxation mends it), or a relaxation too small (the sweep overshoots: the message gives
# the relaxation that ends it). The expected figures come from sweep_factor.py, the same linearized
# sweep computed apart from the plugin. Without the warning a periodic box at rest grows a flow out of
# rounding (h = 2.25 spacings: kinetic energy 1e-9 to 0.026 J/m in 0.3 s; h = 4: 9.4 J/m).
E=$1; S=$2; D=$3
here=$(dirname "$0")
WARN="one Jacobi sweep of the density constraint multiplies the worst density mode of the rest lattice"
run() { "$E" run "$S" --solver pbf --set 'materials[0].particle_spacing=0.04' --set "world.smoothing_radius=$1" \
            --set "solvers.pbf.relaxation=$2" --steps 1 --no-picture --set 'output.format=[]' --out "$D" 2>&1; }
expected() { python3 "$here/sweep_factor.py" "$1" 2 "$2" | sed -n "$3p"; }
fail=0
out=$(run 0.08 1) || { echo "$out"; echo "kernel_support.sh: the run at h = 2 spacings failed"; exit 1; }
case "$out" in *"$WARN"*) echo "$out"; echo "kernel_support.sh: warned at h = 2 spacings, relaxation 1"; fail=1 ;; esac
for h in 0.09 0.16; do
    spacings=$(python3 -c "print('%.3g' % ($h / 0.04))")
    f=$(expected "$spacings" 1 1)
    out=$(run $h 1) || { echo "$out"; exit 1; }
    case "$out" in
        *"material 'fluid': h = $spacings particle spacings ($h / 0.04): $WARN by $f"*) ;;
        *) echo "$out"; echo "kernel_support.sh: no warning by $f at h = $spacings spacings"; fail=1 ;;
    esac
done
f=$(expected 2 0.05 1); needed=$(expected 2 0.05 2)
out=$(run 0.08 0.05) || { echo "$out"; exit 1; }
case "$out" in
    *"at relaxation 0.05 $WARN by $f (it overshoots), so the iteration amplifies density noise instead of damping it; set solvers.pbf.relaxation to $needed or more"*) ;;
    *) echo "$out"; echo "kernel_support.sh: no overshoot warning by $f asking for relaxation $needed at 2 spacings"; fail=1 ;;
esac
[ $fail -eq 0 ] && echo "kernel_support.sh: none at 2 spacings and relaxation 1; the kernel support at 2.25 and 4, the relaxation at 0.05"
exit $fail
