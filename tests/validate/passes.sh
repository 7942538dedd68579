#!/bin/sh
# passes.sh EDDY OUT CHECKS ARGS...: `EDDY validate --out OUT --quiet ARGS...` must exit 0 with each check
# named in CHECKS (separated by spaces) passing in every run, and no run unstable (its energy rose,
# "energy rose" in its results). For a setting that cures a run the solver's validation file claims to
# miss (the claim is the default settings'), where run_case.sh would call its clear pass a stale claim.
eddy=$1; out=$2; checks=$3; shift 3
rm -rf "$out"
"$eddy" validate --out "$out" --quiet "$@" > /dev/null; status=$?
[ "$status" -eq 0 ] || { echo "passes.sh: eddy validate exited with $status, expected 0" >&2; exit 1; }
unstable=$(awk -F, 'NR > 1 && $11 ~ /energy rose/' "$out/report.csv")
[ -z "$unstable" ] || { printf 'passes.sh: unstable runs:\n%s\n' "$unstable" >&2; exit 1; }
for check in $checks; do
    rows=$(awk -F, -v c="$check" 'NR > 1 && $6 == c' "$out/report.csv")
    [ -n "$rows" ] || { echo "passes.sh: no row for check $check in $out/report.csv" >&2; exit 1; }
    missed=$(printf '%s\n' "$rows" | awk -F, '$11 !~ /^pass/')
    [ -z "$missed" ] || { printf 'passes.sh: %s did not pass:\n%s\n' "$check" "$missed" >&2; exit 1; }
done
echo "passes.sh: $checks passed, no run made energy"
