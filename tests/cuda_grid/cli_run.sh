#!/bin/sh
# cli_run.sh EXPECT EDDY SCENE OUT WHO CHECK REFERENCE ARGS...: `eddy run SCENE ARGS --steps 1` exits 1
# with "WHO: no CUDA device (cudaGetDeviceCount: ..." where nvidia-smi lists no GPU (gpu_present.sh,
# independent of the plugin), and where it lists one, runs (exit 0) and is checked against the same run
# with REFERENCE (words, e.g. "--grid cpu") in place of ARGS. WHO names the component in its messages
# ("cuda grid", "solver 'sph_mueller_cuda'"). CHECK says what must agree:
#   same-hash   the same state-hash (the cuda grid gives the cpu grid's particle order, so a whole run
#               is bit-identical: docs/cuda_grid.md)
#   same-count  the same particle count and every figure of diagnostics.csv finite (sph_mueller_cuda
#               rounds differently, FMA, so bits differ; its agreement within tolerance is
#               test_sph_agree's, cuda_grid_gpu_sph_mueller_cuda_agrees_*)
expect=$1; eddy=$2; scene=$3; out=$4; who=$5; check=$6; reference=$7; shift 7
case "$check" in same-hash | same-count) ;; *) echo "cli_run.sh: unknown CHECK '$check'" >&2; exit 2 ;; esac
. "$(dirname "$0")/gpu_present.sh"
if [ "$gpu" != 1 ]; then
    exec sh "$expect" 1 "$who: no CUDA device (cudaGetDeviceCount: " \
        "$eddy" run "$scene" "$@" --steps 1 --quiet --no-picture --out "$out"
fi

# run DIR ARGS...: the run's output (printed), its state-hash in $hash; fails unless it exits 0.
run() {
    dir=$1; shift
    rm -rf "$dir"
    log=$("$eddy" run "$scene" "$@" --steps 1 --hash --quiet --no-picture --out "$dir" 2>&1); status=$?
    printf '%s\n' "$log"
    if [ $status -ne 0 ]; then echo "cli_run.sh: eddy run $* exited $status" >&2; exit 1; fi
    hash=$(printf '%s\n' "$log" | sed -n 's/^state-hash: //p')
    if [ -z "$hash" ]; then echo "cli_run.sh: eddy run $* printed no state-hash" >&2; exit 1; fi
}
# figures DIR: the last row of DIR/diagnostics.csv's particle count, or fails if the file is missing or a
# figure of that row is not a finite number.
figures() {
    awk -F, 'NR == 1 { for (i = 1; i <= NF; ++i) if ($i == "particles") col = i; next }
             { last = $0 }
             END {
               if (!col || last == "") { print "no particles column or no row"; exit 1 }
               n = split(last, f, ",")
               for (i = 1; i <= n; ++i)
                 if (f[i] !~ /^-?[0-9]+(\.[0-9]*)?([eE][-+]?[0-9]+)?$/) { print "figure " i " is " f[i]; exit 1 }
               print f[col]
             }' "$1/diagnostics.csv"
}

run "$out/run" "$@"; got=$hash
# shellcheck disable=SC2086 # REFERENCE is a list of words
run "$out/reference" $reference; ref=$hash
echo "eddy run $*: state-hash $got"
echo "eddy run $reference: state-hash $ref"
if [ "$check" = same-hash ]; then
    if [ "$got" != "$ref" ]; then echo "cli_run.sh: the runs differ (state-hash $got, not $ref)" >&2; exit 1; fi
    exit 0
fi
n=$(figures "$out/run") || { echo "cli_run.sh: $out/run/diagnostics.csv: $n" >&2; exit 1; }
m=$(figures "$out/reference") || { echo "cli_run.sh: $out/reference/diagnostics.csv: $m" >&2; exit 1; }
echo "particles: $n and $m (reference), every figure finite"
if [ "$n" != "$m" ]; then echo "cli_run.sh: $n particles, the reference run $m" >&2; exit 1; fi
