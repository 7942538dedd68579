#!/bin/sh
# same_hash.sh EDDY MPIRUN SCENE OUT STEPS N... [-- ARGS...]: the run of SCENE (with ARGS, e.g. --set
# options) on N processes (mpirun -np N) must end with the state-hash of the same run as one plain
# process, bit for bit, for every N given (docs/mpi.md: every neighbour sum in (cell, id) order, time
# steps from exact global minima). Exit 77 (skipped) where mpirun is absent or eddy was built without MPI.
eddy=$1; mpirun=$2; scene=$3; out=$4; steps=$5; shift 5
counts=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do counts="$counts $1"; shift; done
[ $# -gt 0 ] && shift # the "--"; what is left are ARGS
if ! command -v "$mpirun" >/dev/null 2>&1; then echo "skipped: no mpirun ('$mpirun'): install openmpi-bin"; exit 77; fi
if ! "$eddy" --version | grep -q '^processes: MPI'; then echo "skipped: eddy was built without MPI"; exit 77; fi
hash_of() {
    sed -n 's/^state-hash: //p' "$1"
}
"$eddy" run "$scene" "$@" --steps "$steps" --hash --quiet --no-picture --out "$out/serial" >"$out.serial.txt" 2>&1
one=$(hash_of "$out.serial.txt")
echo "1 process (no mpirun): state-hash $one"
[ -n "$one" ] || { cat "$out.serial.txt" >&2; echo "same_hash.sh: the single-process run failed" >&2; exit 1; }
status=0
for n in $counts; do
    "$mpirun" --oversubscribe -np "$n" "$eddy" run "$scene" "$@" --steps "$steps" --hash --quiet --no-picture \
        --out "$out/np$n" >"$out.np$n.txt" 2>&1
    h=$(hash_of "$out.np$n.txt")
    echo "$n processes: state-hash $h"
    if [ "$h" != "$one" ]; then
        cat "$out.np$n.txt" >&2
        echo "same_hash.sh: $n processes end in a different state (or failed)" >&2
        status=1
    fi
done
exit $status
