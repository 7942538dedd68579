#!/bin/sh
# old_diagnostics.sh EDDY SCENE DIR
# A run folder written before diagnostics.csv gained its energy and percentile columns (11 columns)
# resumes into a table whose every row has the header's 14: the rows kept from before end with three
# empty fields (not computed then), the rows the resume writes carry numbers, and no row is lost. (The header was replaced
# and the old rows kept with 11 fields, so a reader by column saw rows shorter than their header.)
E=$1; S=$2; D=$3
rm -rf "$D"
set -- --set time.output_interval=0.0025 --quiet --no-picture
"$E" run "$S" "$@" --until 0.005 --out "$D" || exit 1
csv="$D/diagnostics.csv"
rows_before=$(($(wc -l < "$csv") - 1))
# The table as an older eddy wrote it: the first 11 columns.
cut -d, -f1-11 "$csv" > "$csv.old" && mv "$csv.old" "$csv" || exit 1
head -1 "$csv" | grep -qx 'time,step,kinetic_energy,momentum_x,momentum_y,momentum_z,density_error_mean,density_error_max,max_speed,wall_ms,particles' \
    || { echo "old_diagnostics.sh: the edited header is not the old one"; exit 1; }
"$E" resume "$D" --until 0.01 --quiet --no-picture || exit 1
awk -F, -v kept="$rows_before" '
    NR == 1 { if (NF != 14 || $12 != "potential_energy" || $13 != "total_energy" || $14 != "density_error_p99") { print "header: " $0; bad = 1 }; next }
    NF != 14 { print "row " NR - 1 " has " NF " fields: " $0; bad = 1; next }
    NR - 1 <= kept && ($12 != "" || $13 != "" || $14 != "") { print "kept row " NR - 1 " has made-up values: " $0; bad = 1 }
    NR - 1 > kept && ($12 == "" || $13 == "" || $14 == "") { print "resumed row " NR - 1 " lacks its values: " $0; bad = 1 }
    END { if (NR - 1 <= kept) { print "no row after the resume (" NR - 1 " rows)"; bad = 1 }; exit bad }
' "$csv" || { echo "old_diagnostics.sh: $csv is not one table"; exit 1; }
echo "old_diagnostics.sh: $rows_before rows kept with empty energies, $(($(wc -l < "$csv") - 1 - rows_before)) resumed rows with them"
