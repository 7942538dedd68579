#!/bin/sh
# energy_status.sh EDDY SCENE OUT: a solver whose run made energy is not "ok" in a comparison. sph_mueller
# on the 2D dam break at 20 particles across the column (the validation case's coarse settings) gains
# energy late in the run, and was "ok" with "largest energy rise +45.06 (+233%)" and no word. The rule
# `eddy run` warns by is worked out here from each solver's diagnostics.csv: a rise of E_k + E_p above
# its start by more than half the mechanical energy above the container's floor at the start (the floor
# is y = 0, where E_p = m g y is 0: that energy is E(0)). A solver that made energy must have the status
# "made energy" in summary.csv and summary.md and be warned of by name; the others "ok" and no warning.
# Both kinds must occur (tait stays stable), so that the test can fail either way.
E=$1 S=$2 O=$3
fail() { echo "energy_status.sh: $*" >&2; exit 1; }
rm -rf "$O"
out=$("$E" compare "$S" --solvers sph_mueller,tait --threads 1 --until 0.21 --set 'materials[0].particle_spacing=0.005' \
      --set world.smoothing_radius=0.01 --set time.dt=0.0001 --out "$O" 2>&1) || fail "eddy compare exited with $?: $out"
made=0 stable=0
for solver in sph_mueller tait; do
    want=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) if ($i == "total_energy") c = i; next }
                    NR == 2 { e0 = $c } $c - e0 > rise { rise = $c - e0 }
                    END { if (c) print (rise > 0.5 * e0 ? "made energy" : "ok") }' "$O/$solver/diagnostics.csv")
    [ -n "$want" ] || fail "no total_energy in $O/$solver/diagnostics.csv"
    got=$(awk -F, -v s="$solver" 'NR > 1 && $1 == s { print $2 }' "$O/summary.csv")
    [ "$got" = "$want" ] || fail "$solver: summary.csv status '$got', expected '$want'"
    grep -qF "| $solver | $want |" "$O/summary.md" || fail "$solver: summary.md lacks '| $solver | $want |'"
    case $out in
        *"eddy: warning: $solver: the energy E_k + E_p rose by "*) [ "$want" = "made energy" ] || fail "$solver warned of: $out" ;;
        *) [ "$want" = "ok" ] || fail "$solver made energy and was not warned of: $out" ;;
    esac
    if [ "$want" = ok ]; then stable=$((stable + 1)); else made=$((made + 1)); fi
    echo "$solver: $want"
done
[ "$made" -eq 1 ] && [ "$stable" -eq 1 ] || fail "expected sph_mueller to make energy and tait not ($made made energy)"
