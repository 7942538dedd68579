#!/bin/sh
# lamb_oseen_defined.sh EDDY VALIDATION_DIR OUT: the Lamb-Oseen case's peak_speed_defined figure at the
# coarse resolution must be the one worked out here, outside the command, from the flow itself:
# - the same vortex (G = 1, a_p = 0.08 on the lattice of spacing 0.05 centred on it, blobs sigma = 0.05,
#   nu = 5 Pa s / 1000 kg/m^3) run by `eddy run` as a scene vortex, its largest particle speed read from
#   the CSV frame at t = 0.38 s;
# - the Lamb-Oseen peak for the vortex the case defines, v(r) = G / (2 pi r) (1 - exp(-r^2 / delta^2)),
#   delta^2 = a_p^2 + 4 nu t (Lamb 1932, Hydrodynamics, sec. 334a), maximised here by golden-section
#   search on r (no 0.63817 taken from eddy).
# The error |v_max / peak - 1| must agree with report.csv's to 1e-4. Against the blob-smoothed reference
# (peak_speed: delta0^2 = m2(0) + 2 sigma^2) the same run is 0.6% off, against this one about 15%, so a
# figure computed against the wrong core, or the check missing from the case, fails here.
eddy=$1 vdir=$2 out=$3
rm -rf "$out"
mkdir -p "$out" || exit 1
"$eddy" validate --cases "$vdir" --case lamb_oseen --solver vpm_hybrid --resolution coarse --out "$out/validate" \
    --quiet > "$out/validate.log" 2>&1 || { echo "lamb_oseen_defined.sh: eddy validate failed:" >&2; cat "$out/validate.log" >&2; exit 1; }
got=$(awk -F, '$1 == "lamb_oseen" && $3 == "coarse" && $6 == "peak_speed_defined" { print $7 }' "$out/validate/report.csv")
[ -n "$got" ] || { echo "lamb_oseen_defined.sh: no peak_speed_defined row at coarse in $out/validate/report.csv" >&2; exit 1; }
"$eddy" run "$vdir/scenes/lamb_oseen.json" --set 'fluids[0].box.min=[-0.6,-0.6]' --set 'fluids[0].box.max=[0.6,0.6]' \
    --set 'vortices=[{"kind":"gaussian","center":[0,0],"circulation":1,"core_radius":0.08}]' \
    --set 'materials[0].particle_spacing=0.05' --set 'world.smoothing_radius=0.1' \
    --set 'solvers.vpm_hybrid.core_radius=0.05' --set "output.dir=\"$out/run\"" --set 'output.format=["csv"]' \
    --quiet > "$out/run.log" 2>&1 || { echo "lamb_oseen_defined.sh: eddy run failed:" >&2; cat "$out/run.log" >&2; exit 1; }
last=$(ls "$out/run/frames/"frame_*.csv | tail -n 1)
t=$(tail -n 1 "$out/run/diagnostics.csv" | cut -d, -f1)
awk -F, -v got="$got" -v t="$t" -v frame="$last" '
    NR == 1 { for (i = 1; i <= NF; ++i) col[$i] = i; next }
    { s = sqrt($col["vx"] ^ 2 + $col["vy"] ^ 2); if (s > vmax) vmax = s }
    function v(r) { return G / (2 * pi * r) * (1 - exp(-r * r / d2)) }
    END {
        pi = atan2(0, -1); G = 1; ap = 0.08; nu = 5 / 1000; d2 = ap * ap + 4 * nu * t
        g = (sqrt(5) - 1) / 2; lo = 0.01; hi = 1
        for (i = 0; i < 200; ++i) {
            x1 = hi - g * (hi - lo); x2 = lo + g * (hi - lo)
            if (v(x1) < v(x2)) lo = x1; else hi = x2
        }
        peak = v((lo + hi) / 2); want = vmax / peak - 1; if (want < 0) want = -want
        printf "t = %s s: largest speed %.6f (%s), Lamb-Oseen peak for a_p = 0.08 %.6f: error %.6f; eddy validate: %s\n", t, vmax, frame, peak, want, got
        d = got - want; if (d < 0) d = -d
        if (!(t + 0 == 0.38) || !(d <= 1e-4)) {
            printf "lamb_oseen_defined.sh: peak_speed_defined is %s, but the run and the defined vortex give %.6f (t = %s s)\n", got, want, t > "/dev/stderr"
            exit 1
        }
    }' "$last"
