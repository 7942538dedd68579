#!/bin/sh
# shifting_same_hash.sh EDDY MPIRUN SCENE OUT STEPS "N..." SOLVER [ARGS...]: particle shifting
# (eddy_sph/shifting.h) is bit-identical for any number of processes (docs/toolkit.md). The run of SCENE
# with SOLVER, --set solvers.SOLVER.shifting=true and ARGS on N processes (mpirun -np N, for every N
# given) must end with the state-hash of one plain process; the same run without shifting must end
# elsewhere (else the pass moved nothing and the comparison shows nothing).
# Exit 77 (skipped) where mpirun is absent or eddy was built without MPI.
eddy=$1; mpirun=$2; scene=$3; out=$4; steps=$5; counts=$6; solver=$7; shift 7
if ! command -v "$mpirun" >/dev/null 2>&1; then echo "skipped: no mpirun ('$mpirun'): install openmpi-bin"; exit 77; fi
if ! "$eddy" --version | grep -q '^processes: MPI'; then echo "skipped: eddy was built without MPI"; exit 77; fi
hash_of() {
    sed -n 's/^state-hash: //p' "$1"
}
args="$*"
"$eddy" run "$scene" --solver "$solver" --set "solvers.$solver.shifting=false" "$@" --steps "$steps" --hash --quiet \
    --no-picture --out "$out/off" >"$out.off.txt" 2>&1
off=$(hash_of "$out.off.txt")
"$eddy" run "$scene" --solver "$solver" --set "solvers.$solver.shifting=true" "$@" --steps "$steps" --hash --quiet \
    --no-picture --out "$out/serial" >"$out.serial.txt" 2>&1
one=$(hash_of "$out.serial.txt")
echo "1 process (no mpirun): state-hash $one (without shifting $off; $args)"
if [ -z "$one" ] || [ -z "$off" ]; then
    cat "$out.off.txt" "$out.serial.txt" >&2
    echo "shifting_same_hash.sh: a single-process run failed" >&2
    exit 1
fi
if [ "$one" = "$off" ]; then
    echo "shifting_same_hash.sh: the run ends in the same state with and without shifting:" \
        "the case does not exercise it" >&2
    exit 1
fi
status=0
for n in $counts; do
    "$mpirun" --oversubscribe -np "$n" "$eddy" run "$scene" --solver "$solver" \
        --set "solvers.$solver.shifting=true" "$@" --steps "$steps" --hash --quiet --no-picture \
        --out "$out/np$n" >"$out.np$n.txt" 2>&1
    h=$(hash_of "$out.np$n.txt")
    echo "$n processes: state-hash $h"
    if [ "$h" != "$one" ]; then
        cat "$out.np$n.txt" >&2
        echo "shifting_same_hash.sh: $n processes end in a different state (or failed)" >&2
        status=1
    fi
done
exit $status
