#!/bin/sh
# unstable.sh EDDY CASES_DIR OUT: a validation run that made energy is unstable, and every check of it
# misses, whatever its error, saying so. sph_mueller's dam break at the coarse resolution gains energy
# (the water turns to a gas late in the run), yet its front check read "pass". The same run goes through
# `eddy run` (the case's scene and coarse overrides, its sample interval as the output interval, the SSE2
# path validate runs), and the rule is worked out here from that run's diagnostics.csv: a rise of E_k + E_p
# above its start by more than half the mechanical energy above the container's floor at the start (the
# floor is y = 0, where E_p = m g y is 0, so that energy is E(0)), over the samples validate takes
# (before its end time, 0.245 s). Every row of report.csv, report.md and the table on stdout must give
# that rise and its time, under the solver's claimed miss at coarse.
E=$1 V=$2 O=$3
fail() { echo "unstable.sh: $*" >&2; exit 1; }
rm -rf "$O" && mkdir -p "$O" || exit 1
"$E" validate --cases "$V" --case dam_break_2d --solver sph_mueller --resolution coarse --threads 1 --quiet \
    --out "$O/validate" > "$O/validate.txt" 2>&1 || fail "eddy validate exited with $?: $(cat "$O/validate.txt")"
EDDY_SIMD=baseline "$E" run "$V/scenes/dam_break_2d.json" --solver sph_mueller --threads 1 \
    --set 'materials[0].particle_spacing=0.005' --set world.smoothing_radius=0.01 --set time.dt=0.0001 \
    --set time.output_interval=0.00142784 --until 0.245 --quiet --no-picture --out "$O/run" > "$O/run.txt" 2>&1 ||
    fail "eddy run exited with $?: $(cat "$O/run.txt")"
want=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) if ($i == "total_energy") c = i; next }
                NR == 2 { e0 = $c }
                $1 < 0.245 && $c - e0 > rise { rise = $c - e0; t = $1 }
                END { if (c && rise > 0.5 * e0) printf "miss (expected; energy rose %.3gx at t = %.6g s)", rise / e0, t }' \
            "$O/run/diagnostics.csv")
[ -n "$want" ] || fail "the run through eddy run made no energy by the rule ($O/run/diagnostics.csv)"
rows=$(awk -F, 'NR > 1' "$O/validate/report.csv" | wc -l)
[ "$rows" -eq 3 ] || fail "report.csv has $rows rows, expected 3 (front, front_unshifted, front_speed)"
other=$(awk -F, -v want="$want" 'NR > 1 && $11 != want' "$O/validate/report.csv")
[ -z "$other" ] && echo "report.csv: every check: $want" || fail "report.csv rows whose result is not '$want': $other"
for check in front front_unshifted front_speed; do
    grep -F " $check " "$O/validate.txt" | grep -qF "$want" || fail "the table on stdout lacks '$want' for $check: $(cat "$O/validate.txt")"
done
n=$(grep -cF "| miss | $want |" "$O/validate/report.md")
[ "$n" -eq 3 ] || fail "report.md has $n rows with '| miss | $want |', expected 3"
grep -qF -- "- sph_mueller (coarse): unstable, every check missed: the energy E_k + E_p rose by " "$O/validate/report.md" ||
    fail "report.md does not say why the run is unstable"
echo "stdout, report.md: the same"
