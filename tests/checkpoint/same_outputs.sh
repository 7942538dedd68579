#!/bin/sh
# same_outputs.sh A B: the run folders A and B hold the same series (frames.pvd), diagnostics (all but
# the wall-time column) and probes (where the scene has them). Used after a resume, against an uninterrupted run.
A=$1; B=$2
cut -d, -f1-9,11- "$A/diagnostics.csv" > "$A.diag" && cut -d, -f1-9,11- "$B/diagnostics.csv" > "$B.diag" || exit 1
cmp "$A.diag" "$B.diag" || { echo "same_outputs.sh: diagnostics differ"; exit 1; }
cmp "$A/frames.pvd" "$B/frames.pvd" || { echo "same_outputs.sh: frame series differ"; exit 1; }
# A scene without probes writes no probes.csv; either run writing one is then a difference.
if [ -e "$A/probes.csv" ] || [ -e "$B/probes.csv" ]; then
  cmp "$A/probes.csv" "$B/probes.csv" || { echo "same_outputs.sh: probes differ"; exit 1; }
fi
