#!/bin/sh
# report_write_fails.sh EDDY DIR: `eddy validate` (pbf's coarse dam break, about a second) when a file of
# its report cannot be written. A folder at the file's temporary name stands for a full disk (it refuses
# the write as ENOSPC would, with a reason: "Is a directory"); on a full disk report.md was left empty, or
# report.csv empty and report.md missing, while stdout said "report: DIR/report.md".
#  - report.md or report.csv: the command exits 1 with the exact error naming the file, its reason and
#    that the earlier report is kept; the earlier report.md and report.csv are both as they were (here
#    the words "earlier report"); stdout says no "report:".
#  - a plot (front.png, the case's first check): exit 1 with the exact error; an earlier validation's
#    front.png stays as it was but the new report.md does not link it (it linked it, though not this
#    run's curve) and says it was not written, why; the case's other plots are written and linked (they
#    were skipped without a word after the first failure); report.csv's plot column is empty on front's
#    row; stdout says "report: DIR/report.md" (the report was written).
eddy=$1 dir=$2
set -u
fail() { echo "report_write_fails.sh: $*" >&2; exit 1; }
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot make $dir"
validate() { "$eddy" validate --case dam_break_2d --solver pbf --resolution coarse --quiet --out "$1" >"$1.out" 2>"$1.err"; }

for name in report.md report.csv; do
    v="$dir/$name"
    mkdir -p "$v/$name.tmp" && echo "earlier report" > "$v/report.md" && echo "earlier report" > "$v/report.csv" ||
        fail "cannot set up $v"
    validate "$v"; status=$?
    cat "$v.err" "$v.out"
    [ "$status" = 1 ] || fail "$name: exit status $status, expected 1"
    want="eddy: error: cannot write '$v/$name': Is a directory; the earlier report in '$v' (report.md, report.csv) is kept unchanged"
    grep -qxF "$want" "$v.err" || fail "$name: no line: $want"
    for f in report.md report.csv; do
        [ "$(cat "$v/$f")" = "earlier report" ] || fail "$name: the earlier $f was replaced"
    done
    ! grep -q '^report: ' "$v.out" || fail "$name: stdout names a report that was not written"
    [ -d "$v/$name.tmp" ] || fail "$name: the folder in the way is gone"
done

v="$dir/plot"
runs="$v/dam_break_2d/pbf/coarse"
mkdir -p "$runs/front.png.tmp" && echo "earlier plot" > "$runs/front.png" && : > "$dir/before" || fail "cannot set up $v"
validate "$v"; status=$?
cat "$v.err" "$v.out"
[ "$status" = 1 ] || fail "plot: exit status $status, expected 1"
why="cannot write '$runs/front.png': Is a directory"
grep -qxF "eddy: error: $why" "$v.err" || fail "plot: no line: eddy: error: $why"
[ "$(cat "$runs/front.png")" = "earlier plot" ] || fail "plot: the earlier front.png was replaced"
! grep -qF "(dam_break_2d/pbf/coarse/front.png)" "$v/report.md" || fail "plot: report.md links the plot not written"
grep -qxF -- "- The plot of front, pbf, coarse was not written: $why" "$v/report.md" ||
    fail "plot: report.md does not say that front's plot was not written"
for check in front_unshifted front_speed; do
    [ "$runs/$check.png" -nt "$dir/before" ] || fail "plot: $check.png was not written after front's failed"
    grep -qxF "![dam_break_2d: $check, pbf, coarse](dam_break_2d/pbf/coarse/$check.png)" "$v/report.md" ||
        fail "plot: report.md does not link $check.png"
done
# report.csv's column 14 is the plot (validate_report.c, tests/validate/CMakeLists.txt's order test).
plots=$(awk -F, '$1 == "dam_break_2d" { printf "%s=%s ", $6, $14 }' "$v/report.csv")
[ "$plots" = "front= front_unshifted=dam_break_2d/pbf/coarse/front_unshifted.png front_speed=dam_break_2d/pbf/coarse/front_speed.png " ] ||
    fail "plot: report.csv's plots: $plots"
grep -qxF "report: $v/report.md" "$v.out" || fail "plot: stdout does not name the report written"
echo "a report or plot that cannot be written is said, the earlier report kept, only written plots linked"
