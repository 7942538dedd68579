#!/bin/sh
# cli_run.sh EXPECT EDDY SCENE OUT WHO ARGS...: `eddy run SCENE ARGS --steps 1` exits 1 with
# "WHO: no CUDA device (cudaGetDeviceCount: ..." where there is no GPU, and runs (exit 0) where there
# is one. WHO names the component in its messages ("cuda grid", "sph_mueller_cuda").
expect=$1; eddy=$2; scene=$3; out=$4; who=$5; shift 5
. "$(dirname "$0")/gpu_present.sh"
if [ "$gpu" = 1 ]; then
    exec sh "$expect" 0 "state-hash: " "$eddy" run "$scene" "$@" --steps 1 --hash --quiet --no-picture --out "$out"
fi
exec sh "$expect" 1 "$who: no CUDA device (cudaGetDeviceCount: " \
    "$eddy" run "$scene" "$@" --steps 1 --quiet --no-picture --out "$out"
