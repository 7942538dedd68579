#!/bin/sh
# same_hash.sh EDDY SCENE OUT STEPS [ARGS...]: on a GPU, a run with --grid cuda must end bit-identical
# (same state-hash) to the same run with --grid cpu: both grids give the same particle order, so every
# solver sums in the same order. Exit 77 (skipped) without a GPU.
eddy=$1; scene=$2; out=$3; steps=$4; shift 4
. "$(dirname "$0")/gpu_present.sh"
if [ "$gpu" != 1 ]; then echo "skipped: nvidia-smi lists no GPU"; exit 77; fi
run() {
    g=$1; shift
    "$eddy" run "$scene" --grid "$g" --steps "$steps" --hash --quiet --no-picture --out "$out/$g" "$@" 2>&1 |
        sed -n 's/^state-hash: //p'
}
cpu=$(run cpu "$@"); cuda=$(run cuda "$@")
echo "cpu grid:  state-hash $cpu"
echo "cuda grid: state-hash $cuda"
if [ -z "$cpu" ] || [ "$cpu" != "$cuda" ]; then
    echo "same_hash.sh: the runs differ (or one failed)" >&2; exit 1
fi
