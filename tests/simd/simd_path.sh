#!/bin/sh
# simd_path.sh EDDY OUT PATH SCENE SOLVER STEPS [ORDER [RUN-ARGS...]]: one vector-ISA path of the SPH
# solvers' neighbour loops (sdk/sph/include/eddy_sph/simd.h) on a short run of SCENE (RUN-ARGS, e.g.
# --set options, go to every `eddy run`).
#   - The path runs only where the CPU has it, read here from /proc/cpuinfo (independently of the
#     selector's __builtin_cpu_supports). Where it lacks it, EDDY_SIMD=PATH must be refused with the
#     exact message, and the test is skipped (77).
#   - `eddy --version` names the path EDDY_SIMD chose.
#   - The state hash is the same for 1 and 2 threads (exact).
#   - A wider path against the baseline, by ORDER:
#       rounding: the solver's `omp simd` reductions add 4, 8 or 16 partial sums by the ISA's width, so
#                 its state hash differs (else the solver ignored EDDY_SIMD) and the fields agree within
#                 rounding (check_paths.py);
#       exact:    the solver sums in the toolkit's fixed lanes (eddy_sph/neighbors.h, pbf's lists), so
#                 the state hash must equal the baseline's, bit for bit.
set -u
eddy=$1 out=$2 path=$3 scene=$4 solver=$5 steps=$6 order=${7:-rounding}
shift $(($# < 7 ? $# : 7))
here=$(dirname "$0")
export OMP_WAIT_POLICY=passive

flags=$(grep -m1 "^flags" /proc/cpuinfo 2>/dev/null) # none (another architecture): the baseline only
has() { for f in "$@"; do case " ${flags#*:} " in *" $f "*) ;; *) return 1 ;; esac; done; }
avx2=0 avx512=0
has avx2 fma bmi1 bmi2 && avx2=1
[ $avx2 = 1 ] && has avx512f avx512cd avx512bw avx512dq avx512vl && avx512=1
runs="baseline"
[ $avx2 = 1 ] && runs="$runs, avx2"
[ $avx512 = 1 ] && runs="$runs, avx512"
case $path in
    baseline) ok=1 ;;
    avx2) ok=$avx2 ;;
    avx512) ok=$avx512 ;;
    *) echo "simd_path.sh: unknown path $path" >&2; exit 2 ;;
esac

if [ "$ok" = 0 ]; then
    want="eddy: error: solver '$solver': EDDY_SIMD: '$path' is not supported by this CPU (it runs $runs)"
    got=$(EDDY_SIMD=$path "$eddy" run "$scene" --solver "$solver" --steps 1 --quiet --no-picture \
        --out "$out/refused" 2>&1)
    status=$?
    printf '%s\n' "$got"
    [ $status = 1 ] && [ "$got" = "$want" ] || { echo "expected exit 1 and: $want" >&2; exit 1; }
    echo "this CPU lacks $path: its refusal checked, the path skipped"
    exit 77
fi

version=$(EDDY_SIMD=$path "$eddy" --version) || { echo "eddy --version failed" >&2; exit 1; }
printf '%s\n' "$version"
want="simd: $path (SPH neighbour loops; this CPU runs $runs; EDDY_SIMD chooses)"
case "$version" in *"$want"*) ;; *) echo "eddy --version does not say: $want" >&2; exit 1 ;; esac

run() { # run SIMD THREADS DIR RUN-ARGS...: prints the state hash
    simd=$1 threads=$2 dir=$3; shift 3
    EDDY_SIMD=$simd "$eddy" run "$scene" --solver "$solver" --steps "$steps" --threads "$threads" --hash \
        --quiet --format csv --no-picture --out "$dir" "$@" | sed -n 's/^state-hash: //p'
}
rm -rf "$out"
h1=$(run "$path" 1 "$out/$path-1" "$@") && h2=$(run "$path" 2 "$out/$path-2" "$@") || exit 1
echo "$solver $path: 1 thread $h1, 2 threads $h2"
[ -n "$h1" ] && [ "$h1" = "$h2" ] || { echo "the state hash depends on the number of threads" >&2; exit 1; }
[ "$path" = baseline ] && exit 0

hb=$(run baseline 2 "$out/baseline-2" "$@") || exit 1
echo "$solver baseline: $hb"
if [ "$order" = exact ]; then
    [ "$hb" = "$h2" ] || { echo "$path and baseline differ: $solver's sums should not depend on the ISA" >&2; exit 1; }
    exit 0
fi
# A sanitized build instruments every load, so the loops stay scalar on every path and the hashes are
# equal there (EDDY_SIMD_TEST_SCALAR, set by tests/simd/CMakeLists.txt under EDDY_SANITIZE).
[ "$hb" != "$h2" ] || [ "${EDDY_SIMD_TEST_SCALAR:-0}" = 1 ] || { echo "$path gave the baseline's hash: did $solver ignore EDDY_SIMD?" >&2; exit 1; }
exec python3 "$here/check_paths.py" "$out/baseline-2/frames" "$out/$path-2/frames" "$scene"
