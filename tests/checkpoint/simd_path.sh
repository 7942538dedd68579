#!/bin/sh
# simd_path.sh EDDY SCENE OUT EXPECT: a run on the baseline path of the SPH neighbour loops, resumed on
# the avx2 path, is told that the two round differently (the checkpoint stores the run's path). Skipped
# (77) on a CPU that runs the baseline path alone.
E=$1; S=$2; O=$3; X=$4
"$E" --version | grep -q 'this CPU runs baseline, avx2' || { echo "no avx2 path on this CPU"; exit 77; }
rm -rf "$O"
EDDY_SIMD=baseline "$E" run "$S" --steps 10 --out "$O" --quiet --no-picture || exit 1
EDDY_SIMD=avx2 sh "$X" 0 "eddy: warning: checkpoint '$O/checkpoint.eddy' was written on the baseline path of the SPH neighbour loops and this process runs the avx2 path: sums round differently, so the result is bit-identical neither to the uninterrupted run nor to one on this path; set EDDY_SIMD=baseline to resume on the run's path" \
    "$E" resume "$O" --steps 20 --quiet --no-picture
