#!/bin/sh
# observer_plugin.sh EDDY SCENE DIR: the test plugin's writer and probe (test_observer_plugin.c, found
# through EDDY_PLUGIN_PATH) used by a scene exactly like the built-in ones: output.format names
# "test_writer" beside "vtk" with a parameter in output.writers, and a "test_count" probe sits beside a
# built-in "front". Checks that the writer got every frame the vtk writer got (same index and time, the
# whole owned set in id order) and that the probe's column is in probes.csv.
set -u
E=$1; S=$2; D=$3
fail() { echo "observer_plugin.sh: $*" >&2; exit 1; }
rm -rf "$D" "$D.format" "$D.plain"
a=$("$E" run "$S" --steps 160 --quiet --no-picture --hash --out "$D" \
    --set 'output.format=["vtk","test_writer"]' --set 'output.writers.test_writer.prefix=f' \
    --set 'probes=[{"kind": "test_count", "name": "right", "min_x": [0.05]}, {"kind": "front", "axis": "x"}]') \
    || fail "the run failed"
# --format takes a plugin's writer too, and observers never change the state: the same hash as a run
# with the vtk writer alone.
b=$("$E" run "$S" --steps 160 --quiet --no-picture --hash --format test_writer,vtk --out "$D.format") \
    || fail "the run with --format failed"
c=$("$E" run "$S" --steps 160 --quiet --no-picture --hash --format vtk --out "$D.plain") || fail "the plain run failed"
[ -n "$a" ] && [ "$a" = "$b" ] && [ "$b" = "$c" ] || fail "hashes differ: '$a' '$b' '$c'"
[ "$(ls "$D.format/test_writer" | grep -c '_[0-9]*\.txt$')" = 3 ] || fail "--format test_writer wrote no frames"
# 160 steps of 5e-5 s with frames every 0.0075 s: frames 0 and 1, and the final state as frame 2.
n=0
for vtp in "$D"/frames/frame_*.vtp; do
    i=${vtp##*frame_}; i=${i%.vtp}
    txt="$D/test_writer/f_$i.txt"
    [ -f "$txt" ] || fail "no $txt beside $vtp"
    read -r idx time step count first last sumx < "$txt"
    [ "$idx" = "$(expr "$i" + 0)" ] || fail "$txt: index $idx, expected $i"
    pvd_time=$(sed -n "s/.*timestep=\"\([^\"]*\)\".*frame_$i.vtp.*/\1/p" "$D/frames.pvd")
    [ "$time" = "$pvd_time" ] || fail "$txt: time $time, frames.pvd says $pvd_time"
    [ "$count" = 3200 ] && [ "$first" = 0 ] && [ "$last" = 3199 ] || fail "$txt: $count particles, ids $first..$last"
    n=$((n + 1))
done
[ "$n" = 3 ] || fail "$n frames, expected 3"
[ "$(ls "$D/test_writer" | grep -c '_[0-9]*\.txt$')" = 3 ] || fail "the writer wrote $(ls "$D/test_writer" | grep -c '_[0-9]*\.txt$') frame files, expected 3"
# The probe: at t = 0 the block [0, 0.1] x [0, 0.2] holds 40 x 80 lattice points, half of them at x >= 0.05.
head -n 1 "$D/probes.csv" | grep -qx 'time,step,right,front_1' || fail "probes.csv header: $(head -n 1 "$D/probes.csv")"
right0=$(sed -n 2p "$D/probes.csv" | cut -d, -f3)
[ "$right0" = 1600 ] || fail "test_count at t = 0 reads $right0, expected 1600"
# (the unnamed front probe gets its default name, front_1)
[ "$(wc -l < "$D/probes.csv")" = 4 ] || fail "probes.csv has $(wc -l < "$D/probes.csv") lines, expected 4"
cat "$D"/test_writer/*.txt "$D/probes.csv"
