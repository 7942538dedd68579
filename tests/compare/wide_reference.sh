#!/bin/sh
# wide_reference.sh EDDY SCENE OUT: the scene's front reference (Martin & Moyce, columns T and Z) spread
# over 70 columns as a spreadsheet exports it, T in the 66th and Z in the 69th, the others numbers that
# are neither, gives `eddy compare` the same front reference RMS in summary.csv as the scene's
# two-column table. Tables were cut to 64 columns: T read as missing.
eddy=$1 scene=$2 out=$3
ref=$(dirname "$scene")/data/martin_moyce_1952_front.csv
fail() { echo "wide_reference.sh: $*" >&2; exit 1; }
rm -rf "$out" && mkdir -p "$out" || fail "cannot make $out"
awk -F, '/^#/ { print; next }
         { line = ""
           for (k = 1; k <= 70; ++k) {
               v = k == 66 ? $1 : k == 69 ? $2 : (seen ? k + NR / 100 : "c" k)
               line = line (k > 1 ? "," : "") v
           }
           seen = 1; print line }' "$ref" >"$out/wide.csv" || fail "cannot write wide.csv"
# To t = 0.09 s: the reference points T = 0.41, 0.84, 1.19 (t = T * 0.0714 s) lie within the run.
figure() {
    name=$1; shift
    "$eddy" compare "$scene" --solvers sph_mueller --until 0.09 --quiet --out "$out/$name" "$@" >"$out/$name.log" 2>&1 ||
        { cat "$out/$name.log" >&2; fail "eddy compare ($name) failed"; }
    awk -F, 'NR == 1 { for (k = 1; k <= NF; ++k) if ($k == "front_reference_rms") c = k; next }
             c { print $c }' "$out/$name/summary.csv"
}
two=$(figure two) || exit 1
wide=$(figure wide --set "probes[0].reference.file=\"$out/wide.csv\"" --set 'probes[0].reference.columns=["T","Z"]') ||
    exit 1
echo "front reference RMS: two columns $two, 70 columns $wide"
case "$two" in '' | nan | -*) fail "no front reference RMS from the two-column table: '$two'" ;; esac
[ "$two" = "$wide" ] || fail "the 70-column table gave $wide, the two-column one $two"
