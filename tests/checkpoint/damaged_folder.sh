#!/bin/sh
# damaged_folder.sh EDDY SCENE DIR EXPECT: a run folder whose files were damaged by hand after the run
# (9 frames, t = 0 .. 0.02 s every 0.0025 s, checkpoint at the end) resumes to t = 0.03 s and says what
# it found: each case exits 0 with its warning and leaves a series and tables that lose nothing on disk
# and make nothing up. (Each resumed silently: frames.pvd deleted listed only the frames after the
# resume, cut short dropped entries, a cut or deleted diagnostics.csv jumped from a row to 0.0225 s, and
# frames/ deleted left frames.pvd naming 9 missing files.)
E=$1 S=$2 D=$3 X=$4
# (every case is tried, so that a failing one does not hide the others)
bad=0
fail() { echo "damaged_folder.sh: $*" >&2; bad=1; }
rm -rf "$D" && mkdir -p "$D" || { fail "cannot make $D"; exit 1; }
"$E" run "$S" --set time.output_interval=0.0025 --until 0.02 --quiet --no-picture --out "$D/base" || { fail "base run"; exit 1; }
# copy NAME: a fresh copy of the run folder; resume NAME TEXT: resumed to 0.03 s, exit 0, saying TEXT.
copy() { rm -rf "$D/$1" && cp -r "$D/base" "$D/$1" || fail "cannot copy to $D/$1"; }
resume() { sh "$X" 0 "$2" "$E" resume "$D/$1" --until 0.03 --no-picture --quiet || fail "$1: resume"; }
# series_whole NAME COUNT: frames.pvd lists COUNT frames, frame k at k * 0.0025 s (an awk computation, not
# eddy's), every file it names on disk.
series_whole() {
    sed -n 's/.*timestep="\([^"]*\)".*file="\([^"]*\)".*/\1 \2/p' "$D/$1/frames.pvd" > "$D/$1.series"
    [ -f "$D/$1/frames.pvd" ] || { fail "$1: no frames.pvd"; return; }
    awk -v n="$2" '{ k = substr($2, 14, 5) + 0; t = k * 0.0025
                     if ($1 - t > 1e-12 || t - $1 > 1e-12) { print "entry " NR ": t = " $1 " for frame " k; bad = 1 } }
                   END { if (NR != n) { print NR " entries, expected " n; bad = 1 }; exit bad }' "$D/$1.series" \
        || fail "$1: frames.pvd is not the series of $2 frames"
    while read -r t f; do [ -f "$D/$1/$f" ] || fail "$1: frames.pvd names '$f', not on disk"; done < "$D/$1.series"
}
# rows_of NAME TABLE: the first column of a table's rows, space-separated.
rows_of() { cut -d, -f1 "$D/$1/$2" | tail -n +2 | tr '\n' ' '; }
ALL="0 0.0025 0.005 0.0075 0.01 0.0125 0.015 0.0175 0.02 0.0225 0.025 0.0275 0.03 "

# frames.pvd deleted: its 9 entries before the resume point come back from the frame files.
copy pvd_missing && rm "$D/pvd_missing/frames.pvd"
resume pvd_missing "eddy: warning: '$D/pvd_missing/frames.pvd' was missing: rebuilt the entries of 9 frames before the resume point from their files in '$D/pvd_missing/frames'"
series_whole pvd_missing 13

# frames.pvd cut to 300 bytes: the entries whose lines are whole stay, the others come back.
copy pvd_cut && head -c 300 "$D/base/frames.pvd" > "$D/pvd_cut/frames.pvd"
kept=$(grep -c 'file=".*"/>' "$D/pvd_cut/frames.pvd")
[ "$kept" -ge 1 ] && [ "$kept" -lt 9 ] || fail "pvd_cut: $kept whole entries left by the cut"
resume pvd_cut "eddy: warning: '$D/pvd_cut/frames.pvd' lacked the entries of $((9 - kept)) frames before the resume point (the first 'frame_0000$kept.vtp', t = $(awk -v k="$kept" 'BEGIN { printf "%g", k * 0.0025 }') s): rebuilt them from their files in '$D/pvd_cut/frames'"
series_whole pvd_cut 13

# frames/ deleted: the entries naming its files are left out; no file is made up.
copy frames_missing && rm -r "$D/frames_missing/frames"
resume frames_missing "eddy: warning: '$D/frames_missing/frames.pvd' named 9 frames whose files are not all on disk (the first missing: '$D/frames_missing/frames/frame_00000.vtp'): left out of the series"
series_whole frames_missing 4
[ ! -e "$D/frames_missing/frames/frame_00000.vtp" ] || fail "frames_missing: frame 0 was made up"

# frames.pvd and one frame file deleted: the others rebuilt, that one said missing.
copy frame_gap && rm "$D/frame_gap/frames.pvd" "$D/frame_gap/frames/frame_00004.vtp"
resume frame_gap "rebuilt the entries of 8 frames before the resume point from their files in '$D/frame_gap/frames'; 1 of the 9 frames before the resume point is not in '$D/frame_gap/frames' (the first 'frame_00004.vtp', t = 0.01 s)"
series_whole frame_gap 12

# diagnostics.csv cut to 4 rows: the 5 missing ones are said, the 4 kept, none made up.
copy diag_cut && head -5 "$D/base/diagnostics.csv" > "$D/diag_cut/diagnostics.csv"
resume diag_cut "eddy: warning: '$D/diag_cut/diagnostics.csv' lacks the rows of 5 of the 9 frames before the resume point (the first at t = 0.01 s): the rows it has are kept, none made up"
[ "$(rows_of diag_cut diagnostics.csv)" = "0 0.0025 0.005 0.0075 0.0225 0.025 0.0275 0.03 " ] || fail "diag_cut: rows $(rows_of diag_cut diagnostics.csv)"

# diagnostics.csv deleted.
copy diag_missing && rm "$D/diag_missing/diagnostics.csv"
resume diag_missing "eddy: warning: '$D/diag_missing/diagnostics.csv' was missing: the rows of the 9 frames before the resume point (t = 0 to 0.02 s) are lost; the table starts again at t = 0.0225 s"
[ "$(rows_of diag_missing diagnostics.csv)" = "0.0225 0.025 0.0275 0.03 " ] || fail "diag_missing: rows $(rows_of diag_missing diagnostics.csv)"

# Two rows taken out of the middle of probes.csv.
copy probes_gap && sed -i 3,4d "$D/probes_gap/probes.csv"
resume probes_gap "eddy: warning: '$D/probes_gap/probes.csv' lacks the rows of 2 of the 9 frames before the resume point (the first at t = 0.0025 s)"
[ "$(rows_of probes_gap probes.csv)" = "0 0.0075 0.01 0.0125 0.015 0.0175 0.02 0.0225 0.025 0.0275 0.03 " ] || fail "probes_gap: rows $(rows_of probes_gap probes.csv)"

# The last row of diagnostics.csv cut in half (a torn write): left out, not kept with a cut number.
copy diag_torn && head -c -40 "$D/base/diagnostics.csv" > "$D/diag_torn/diagnostics.csv"
resume diag_torn "eddy: warning: '$D/diag_torn/diagnostics.csv' lacks the rows of 1 of the 9 frames before the resume point (the first at t = 0.02 s): the rows it has are kept, none made up (its last row was cut short: left out)"
awk -F, 'NR == 1 { n = NF } NF != n { print "row " NR - 1 ": " NF " fields"; bad = 1 } END { exit bad }' "$D/diag_torn/diagnostics.csv" \
    || fail "diag_torn: a row is not whole"

# The folder as the run left it: no warning, every file continued.
copy intact
out=$("$E" resume "$D/intact" --until 0.03 --no-picture --quiet 2>&1) || fail "intact: resume: $out"
[ -z "$out" ] || fail "intact: the resume said: $out"
series_whole intact 13
for t in diagnostics.csv probes.csv; do [ "$(rows_of intact $t)" = "$ALL" ] || fail "intact: $t rows $(rows_of intact $t)"; done

# The csv writer: frame files before the resume point that are gone are said.
"$E" run "$S" --set time.output_interval=0.0025 --until 0.02 --quiet --no-picture --format csv --out "$D/csv" || fail "csv run"
rm "$D/csv/frames/frame_00002.csv" "$D/csv/frames/frame_00003.csv"
resume csv "eddy: warning: 2 of the 9 frames before the resume point are not in '$D/csv/frames' (the first 'frame_00002.csv', t = 0.005 s)"
[ "$bad" = 0 ] || exit 1
echo "damaged_folder.sh: every damaged folder resumed and said what it lacked"
