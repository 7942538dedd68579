#!/bin/sh
# resume_gpu.sh EDDY SCENE SOLVER DIR: resume.sh for a GPU solver (sph_mueller_cuda). Where nvidia-smi
# lists a GPU it runs resume.sh and its verdict stands. Where it lists none, the solver must refuse
# with "solver 'SOLVER': no CUDA device (cudaGetDeviceCount: ..." and the test is skipped (exit 77); a solver
# that runs anyway gets the real test, and any other failure fails. The GPU check is independent of
# the plugin (tests/cuda_grid/gpu_present.sh), so a plugin that wrongly says "no CUDA device" on a GPU
# machine fails instead of skipping.
E=$1; S=$2; SOLVER=$3; D=$4
here=$(dirname "$0")
. "$here/../cuda_grid/gpu_present.sh"
[ "$gpu" = 1 ] && exec sh "$here/resume.sh" "$E" "$S" "$SOLVER" "$D"
rm -rf "$D"
out=$("$E" run "$S" --solver "$SOLVER" --steps 1 --quiet --no-picture --out "$D/probe" 2>&1); status=$?
printf '%s\n' "$out"
[ "$status" = 0 ] && exec sh "$here/resume.sh" "$E" "$S" "$SOLVER" "$D"
case "$out" in
    *"solver '$SOLVER': no CUDA device (cudaGetDeviceCount: "*)
        echo "resume_gpu.sh: no GPU here (nvidia-smi lists none, $SOLVER reports no CUDA device): skipped"
        exit 77 ;;
esac
echo "resume_gpu.sh: without a GPU $SOLVER should report 'no CUDA device'; it exited $status"
exit 1
