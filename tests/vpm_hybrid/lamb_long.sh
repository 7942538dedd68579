#!/bin/sh
# lamb_long.sh EDDY SOURCE_DIR OUT [ARGS...]: the long Lamb–Oseen case (tests/vpm_hybrid/lamb_long/
# cases/lamb_oseen_long.json) with vpm_hybrid at the medium resolution through `eddy validate`, ARGS
# passed on (--set ...). No solver's validation file claims the case, so `eddy validate` exits 0 either
# way: this script reads OUT/report.csv and exits 1 unless every check passed, printing one line per
# check ("growth: pass, error ...") and, when all passed, "lamb_oseen_long: every check within its bar".
eddy=$1; src=$2; out=$3; shift 3
rm -rf "$out"
"$eddy" validate --cases "$src/tests/vpm_hybrid/lamb_long" --solver vpm_hybrid --case lamb_oseen_long \
    --resolution medium --out "$out" --quiet "$@" || exit 1
# report.csv: case,solver,resolution,spacing,particles,check,error,bar,time_shift,expected,result,...
awk -F, 'NR > 1 { split($11, r, " "); printf "%s: %s, error %s (bar %s)\n", $6, r[1], $7, $8
                  if (r[1] != "pass") bad = 1; ++n }
         END { if (n == 0) { print "lamb_long.sh: report.csv has no checks"; exit 1 }
               if (bad) exit 1; print "lamb_oseen_long: every check within its bar" }' "$out/report.csv"
