#!/bin/sh
# tools/gpu-check.sh [STAGE...]: the GPU machine's checks of issue 14 and docs/cuda_grid.md in one call,
# run in the checkout's root on the device machine (16 cores, one H100/H200, no package registry).
# Prepare here first with tools/gpu-deps.sh, then, in the device tool:
#
#   run  carry: [".gpu-deps"]  timeout_s: 600
#        command: sh tools/gpu-check.sh
#
# Stages, in this order unless named: env build tests bench sanitizer scaling, most needed first. Two
# more run only when named: agree, the agreement figures of sph_mueller_cuda and a whole GPU run, and
# suite, the whole ctest of build-gpu in this script's environment (`sh tools/gpu-check.sh build
# suite`). The whole call keeps to one budget (BUDGET seconds, default 540, under the device tool's 600
# s a call): each stage runs under its own limit or what is left of the budget, whichever is less, and a
# stage that would get under 20 s is skipped, so the tool never has to kill the call. Each writes one
# log into $OUT (at most 8 files come back): env.txt, build.log, tests.log, bench.log, sanitizer.log,
# scaling.log, agree.log, suite.log, and summary.txt with one line per stage (ok / failed / timed out /
# skipped, seconds; all nine would be one too many). A stage that fails does not stop the next, except a
# failed build. On a warm machine build-gpu is kept between calls: `sh tools/gpu-check.sh sanitizer
# scaling` runs what a first call skipped.
#
# Environment: OUT (default /tmp/eddy-gpu-out), BUDGET (540), SCALING_PARTICLES (default 1000000),
# SCALING_THREADS (default "1 2 4 8 16", capped at nproc), BENCH_PARTICLES (default "1000000 4000000").
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 1
out=${OUT:-/tmp/eddy-gpu-out}
mkdir -p "$out"
build="build-gpu"
eddy="$build/bin/eddy"
summary="$out/summary.txt"
[ "${1:-}" = --fn ] || : >"$summary"
start=$(date +%s)
budget=${BUDGET:-540}
cores=$(nproc)

# The Debian packages tools/gpu-deps.sh unpacked: found through pkg-config and CMake's prefix path, and
# linked with an RPATH (not RUNPATH) so that eddy also finds what libcairo itself needs, without an
# LD_LIBRARY_PATH that would hand the machine's own programs Debian's libraries. An RPATH outranks
# LD_LIBRARY_PATH (tests/cli_hints_drop_rpath.cmake), and a program built against the installed eddy
# needs these flags' -rpath-link too (tests/session passes them on).
deps="$root/.gpu-deps"
deps_lib="$deps/root/usr/lib/x86_64-linux-gnu"
link_flags=""
if [ -d "$deps_lib" ]; then
    export PKG_CONFIG_PATH="$deps_lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
    export CMAKE_PREFIX_PATH="$deps/root/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
    export FONTCONFIG_FILE="$deps/fontconfig/fonts.conf"
    link_flags="-Wl,--disable-new-dtags -Wl,-rpath,$deps_lib -Wl,-rpath-link,$deps_lib"
else
    echo "gpu-check: no .gpu-deps (tools/gpu-deps.sh, carried): building against the machine's packages" >&2
fi

# stage NAME SECONDS LOG FUNCTION: runs FUNCTION (below) in a child of this script under `timeout`
# (SECONDS or the budget's rest, whichever is less), its output appended to $out/LOG, and records the
# outcome in summary.txt.
stage() {
    name=$1 limit=$2 log="$out/$3" fn=$4
    t0=$(date +%s)
    left=$((budget - (t0 - start)))
    [ "$left" -lt "$limit" ] && limit=$left
    if [ "$limit" -lt 20 ]; then
        printf '%-10s %-28s %4d s  (%s)\n' "$name" "skipped: budget spent" 0 "$3" >>"$summary"
        return 1
    fi
    echo "=== $name ($fn), at most $limit s" >>"$log"
    timeout -k 10 "$limit" sh "$root/tools/gpu-check.sh" --fn "$fn" >>"$log" 2>&1
    rc=$?
    t1=$(date +%s)
    case $rc in
        0) result=ok ;;
        124 | 137) result="timed out after ${limit} s" ;;
        *) result="failed (exit $rc)" ;;
    esac
    printf '%-10s %-28s %4d s  (%s)\n' "$name" "$result" $((t1 - t0)) "$3" >>"$summary"
    return $rc
}

env_info() {
    date -u
    git log -1 --format='commit %H %s' 2>/dev/null || echo "commit: no .git on this machine"
    # The same command here names the tree that was sent, with or without .git.
    echo "sources: $(find core host plugins sdk tests tools -type f | LC_ALL=C sort | xargs cat | sha256sum | cut -c1-16)"
    echo "cores: $cores"
    nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv 2>&1
    nvcc --version 2>&1 | tail -n 2
    cmake --version 2>&1 | head -n 1
    cc --version 2>&1 | head -n 1
    grep -m1 'model name' /proc/cpuinfo
    # (threads per core: siblings / cpu cores, for the scaling figures)
    grep -m2 -E '^(siblings|cpu cores)' /proc/cpuinfo
}

build_all() {
    cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DEDDY_CUDA_SOLVERS=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
        -DEDDY_MPI=OFF -DCMAKE_EXE_LINKER_FLAGS="$link_flags" -DCMAKE_SHARED_LINKER_FLAGS="$link_flags" \
        -DCMAKE_MODULE_LINKER_FLAGS="$link_flags" &&
        cmake --build "$build" -j"$cores" &&
        "$eddy" list
}

# The GPU's tests first (agreement, residency, resume), then what lists every solver (matrix,
# checkpoint coverage) now that sph_mueller_cuda is one of them.
gpu_tests() {
    ctest --test-dir "$build" -j8 --timeout 240 --output-on-failure \
        -R 'cuda|residency|checkpoint_resume_is_exact_sph_mueller_cuda|checkpoint_covers|matrix'
}

# Whole steps at three sizes: the resident GPU solver, its per-step host copy (A/B, interleaved), and
# sph_mueller on every core with the cpu and the cuda grid.
gpu_bench() {
    rc=0
    for n in ${BENCH_PARTICLES:-1000000 4000000}; do
        for mode in resident every_step; do
            echo "--- sph_mueller_cuda, $n particles, host copy: $mode"
            if [ "$mode" = resident ]; then
                "$eddy" bench scenes/dam_break_3d.json --solver sph_mueller_cuda --particles "$n" || rc=1
            else
                EDDY_CUDA_HOST_COPY=every_step "$eddy" bench scenes/dam_break_3d.json --solver sph_mueller_cuda \
                    --particles "$n" || rc=1
            fi
        done
        [ "$n" -le 1000000 ] || continue
        for grid in cpu cuda; do
            echo "--- sph_mueller, $n particles, grid $grid, $cores threads"
            "$eddy" bench scenes/dam_break_3d.json --grid "$grid" --particles "$n" --threads "$cores" || rc=1
        done
    done
    return $rc
}

# Issue 14's thread scaling of the CPU solvers: the 3D dam break at SCALING_PARTICLES, 1 to all cores.
cpu_scaling() {
    rc=0
    n=${SCALING_PARTICLES:-1000000}
    for solver in sph_mueller tait pbf; do
        scene=scenes/dam_break_3d.json
        [ "$solver" = tait ] && scene=scenes/tait_dam_break_3d.json
        [ "$solver" = pbf ] && scene=scenes/pbf_dam_break_3d.json
        for t in ${SCALING_THREADS:-1 2 4 8 16}; do
            [ "$t" -le "$cores" ] || continue
            echo "--- $solver, $n particles, $t threads"
            "$eddy" bench "$scene" --solver "$solver" --particles "$n" --threads "$t" --steps 10 --repeats 3 || rc=1
        done
    done
    return $rc
}

# Memory and race checks of the GPU solver on short runs (docs/cuda_grid.md, "On a GPU machine").
gpu_sanitizer() {
    rc=0
    compute-sanitizer --error-exitcode 3 "$eddy" run tests/residency/dam_break_walls.json --solver sph_mueller_cuda \
        --steps 20 --no-picture --quiet --out /tmp/eddy-cs1 || rc=1
    compute-sanitizer --error-exitcode 3 --tool racecheck "$eddy" run tests/residency/dam_break_walls.json \
        --solver sph_mueller_cuda --steps 5 --no-picture --quiet --out /tmp/eddy-cs2 || rc=1
    compute-sanitizer --error-exitcode 3 "$build/bin/test_sph_agree" tests/cuda_grid/data/agree_colliders_2d.json 5 \
        sph_mueller sph_mueller_cuda || rc=1
    return $rc
}

# The agreement tests' figures (they print them only on failure under ctest): sph_mueller_cuda against
# sph_mueller after 100 steps with the round-off reference, per scene; then the 3D dam break to its end
# with frames, timed (docs/cuda_grid.md, "Measured on an H200").
gpu_agree() {
    rc=0
    for scene in scenes/dam_break_2d.json scenes/dam_break_3d.json scenes/hydrostatic_tank.json \
        tests/cuda_grid/data/agree_colliders_2d.json tests/cuda_grid/data/agree_periodic_3d.json; do
        echo "--- $scene"
        "$build/bin/test_sph_agree" "$scene" 100 sph_mueller sph_mueller_cuda || rc=1
    done
    echo "--- eddy run scenes/dam_break_3d.json --solver sph_mueller_cuda (to its end, frames written)"
    t0=$(date +%s.%N)
    "$eddy" run scenes/dam_break_3d.json --solver sph_mueller_cuda --no-picture --quiet --hash --out /tmp/eddy-agree-run || rc=1
    echo "wall: $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }') s"
    return $rc
}

# Every test of build-gpu, with what the stages above leave out (python, mpi, the long ones), in the
# environment set at the top (each stage is a new run of this script): FONTCONFIG_FILE, without which
# the picture tests find no font.
gpu_suite() {
    ctest --test-dir "$build" -j"$cores" --timeout 300 --output-on-failure
}

if [ "${1:-}" = --fn ]; then
    "$2"
    exit $?
fi

stages=${*:-env build tests bench sanitizer scaling}
for s in $stages; do
    case $s in
        env) stage env 30 env.txt env_info ;;
        build) stage build 240 build.log build_all || { cat "$summary"; exit 1; } ;;
        tests) stage tests 200 tests.log gpu_tests ;;
        bench) stage bench 120 bench.log gpu_bench ;;
        sanitizer) stage sanitizer 90 sanitizer.log gpu_sanitizer ;;
        scaling) stage scaling 240 scaling.log cpu_scaling ;;
        agree) stage agree 90 agree.log gpu_agree ;;
        suite) stage suite 240 suite.log gpu_suite ;;
        *) echo "gpu-check: unknown stage '$s' (env build tests bench sanitizer scaling agree suite)" >&2; exit 2 ;;
    esac
done
cat "$summary"
