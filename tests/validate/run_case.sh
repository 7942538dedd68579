#!/bin/sh
# run_case.sh EDDY OUT ARGS...: `EDDY validate --out OUT ARGS...`, then holds the solvers' validation files
# to their word both ways: the command must exit 0 (every check a solver claims to pass passed), and no
# check a solver expects to miss may pass clearly, with an error under half its bar (OUT/report.csv), so
# that a claim that has become untrue fails until the validation file is corrected. A pass between half
# the bar and the bar is accepted under a "miss" claim: results that close to the bar move with any
# change to a solver, and a claim should not flap with them. A claimed miss is still a run that must
# complete: a run that failed (it blew up, left the domain, went non-finite) fails here whatever the
# claim, which `eddy validate` itself reports only for claimed passes.
eddy=$1; out=$2; shift 2
rm -rf "$out"
"$eddy" validate --out "$out" --quiet "$@"; status=$?
if [ "$status" -ne 0 ]; then
    echo "run_case.sh: eddy validate exited with $status, expected 0" >&2; exit 1
fi
# report.csv: case,solver,resolution,spacing,particles,check,error,bar,time_shift,expected,result,...
failed=$(awk -F, 'NR > 1 && $11 == "failed" { print }' "$out/report.csv")
if [ -n "$failed" ]; then
    echo "run_case.sh: a run expected to miss failed to complete (its error is in $out/report.md):" >&2
    printf '%s\n' "$failed" >&2; exit 1
fi
# report.md's tables: every row has its header's number of cells (a '|' in a check's title once split
# the vortex ring's impulse row into two cells).
ragged=$(awk '/^\|/ { line = $0; gsub(/\\\|/, "", line); n = gsub(/\|/, "|", line);
                     if (!in_table) { cells = n; in_table = 1 } else if (n != cells) print }
              !/^\|/ { in_table = 0 }' "$out/report.md")
if [ -n "$ragged" ]; then
    echo "run_case.sh: report.md has table rows with more or fewer cells than their header:" >&2
    printf '%s\n' "$ragged" >&2; exit 1
fi
# (an unstable run's rows, "energy rose", miss whatever their error: their claimed miss is no stale claim)
clear=$(awk -F, 'NR > 1 && $10 == "miss" && $11 !~ /energy rose/ && $7 != "nan" && $7 + 0 < 0.5 * $8 { print }' \
        "$out/report.csv")
if [ -n "$clear" ]; then
    echo "run_case.sh: a check expected to miss passed with an error under half its bar; update the solver's" >&2
    echo "validation file:" >&2
    printf '%s\n' "$clear" >&2; exit 1
fi
exit 0
