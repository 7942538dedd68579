#!/bin/sh
# cli_run.sh EXPECT EDDY SCENE OUT: `eddy run SCENE --grid cuda --steps 1` exits 1 with the "no CUDA
# device" message and the CUDA error text where there is no GPU, and runs (exit 0) where there is one.
expect=$1; eddy=$2; scene=$3; out=$4
. "$(dirname "$0")/gpu_present.sh"
if [ "$gpu" = 1 ]; then
    exec sh "$expect" 0 "state-hash: " "$eddy" run "$scene" --grid cuda --steps 1 --hash --quiet --no-picture --out "$out"
fi
exec sh "$expect" 1 "cuda grid: no CUDA device (cudaGetDeviceCount: " \
    "$eddy" run "$scene" --grid cuda --steps 1 --quiet --no-picture --out "$out"
