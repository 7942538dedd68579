#!/bin/sh
# tables_refused.sh EDDY EXPECT SCENE DIR
# A resume continues diagnostics.csv and probes.csv only as the run wrote them, and refuses, naming the
# file and what is wrong, with every file of the folder as it was: a header line edited by hand (a
# column removed: the old rows were kept one field longer than the header put back over them; a column
# renamed), a row with a column removed, and a row copied out of time order (it was kept as one of the
# run's rows). The run: frames every 2.5 ms to t = 10 ms, frame k at k * 2.5 ms, a row per frame.
E=$1; X=$2; S=$3; D=$4
fail() { echo "tables_refused.sh: $*"; exit 1; }
# (every case is tried, and each one that fails said, before the status)
bad=0
miss() { echo "tables_refused.sh: $*"; bad=1; }
rm -rf "$D" && mkdir -p "$D" || exit 1
"$E" run "$S" --set time.output_interval=0.0025 --until 0.01 --quiet --no-picture --out "$D/run" || fail "the run failed"

files() { find "$1" -type f | sort | xargs cksum; }
# refused CASE SED FILE WHAT: FILE of a copy of the run edited by `sed -i SED` is refused with WHAT.
refused() {
    c=$D/$1; rm -rf "$c" && cp -r "$D/run" "$c" && sed -i "$2" "$c/$3" || exit 1
    before=$(files "$c")
    sh "$X" 1 "cannot continue '$c/$3': $4" "$E" resume "$c" --until 0.02 --quiet --no-picture ||
        miss "$1: not refused as expected"
    [ "$(files "$c")" = "$before" ] || miss "$1: the refused resume changed the folder"
}
# (the header: time, step and the scene's probes, front and height_left_wall)
want="this run writes 'time,step,front,height_left_wall'), so its rows would stand under other columns: a header edited by hand, or a table of another run; put the header back, or move the file away, and resume again (the file is left as it was)"
refused header_cut '1s/,height_left_wall$//' probes.csv \
    "its header line is not the one this run writes (it ends before column 4, 'height_left_wall', which its rows have; $want"
refused header_renamed '1s/,front,/,front_x,/' probes.csv \
    "its header line is not the one this run writes (column 3 is 'front_x', expected 'front'; $want"
refused row_cut '3s/,[^,]*$//' probes.csv \
    "line 3 has 3 columns where the table's header has 4: a row edited by hand, or not one of this table's; mend or remove it and resume again (the file is left as it was)"
# Line 3 (frame 1, t = 2.5 ms) copied after line 6 (frame 4, t = 10 ms), as the 7th line.
row=$(sed -n 3p "$D/run/diagnostics.csv")
refused row_repeated "\$a $row" diagnostics.csv \
    "line 7 (t = 0.0025 s) comes after line 6 (t = 0.01 s), but the run writes its rows in time order: that row was copied or moved there, and is not one of the run's rows in its place; remove it (or put the rows back in order) and resume again (the file is left as it was)"
[ $bad = 0 ] && echo "edited tables refused, their folders as they were"
exit $bad
