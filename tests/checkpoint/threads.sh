#!/bin/sh
# threads.sh EDDY SCENE SOLVER DIR: runs are bit-identical for any thread count, across a resume too: a
# run on 1 thread to step 170, resumed on 2 threads to t = 0.015 s, ends in the state (hash), series and
# diagnostics of one uninterrupted run on 2 threads, and of one on 1 thread.
E=$1; S=$2; SOLVER=$3; D=$4
rm -rf "$D"
set -- --solver "$SOLVER" --set 'materials[0].particle_spacing=0.005' --set world.smoothing_radius=0.01 --quiet --no-picture
one=$("$E" run "$S" "$@" --until 0.015 --hash --threads 1 --out "$D/one" | grep state-hash) || exit 1
two=$("$E" run "$S" "$@" --until 0.015 --hash --threads 2 --out "$D/two" | grep state-hash) || exit 1
"$E" run "$S" "$@" --steps 170 --threads 1 --out "$D/split" || exit 1
part=$("$E" resume "$D/split" --quiet --no-picture --until 0.015 --threads 2 --hash | grep state-hash) || exit 1
echo "uninterrupted, 1 thread:   $one"
echo "uninterrupted, 2 threads:  $two"
echo "1 thread, resumed on 2:    $part"
[ -n "$one" ] && [ "$one" = "$two" ] && [ "$one" = "$part" ] || { echo "threads.sh: the states differ"; exit 1; }
sh "$(dirname "$0")/same_outputs.sh" "$D/two" "$D/split"
