#!/bin/sh
# unused_stiffness_mpi.sh EDDY MPIRUN SCENE OUT: on 2 processes, the note that a stiffness set under
# gravity has no effect (docs/solvers/tait.md, Speed of sound) comes exactly once, not once per
# process. Exit 77 (skipped) where mpirun is absent or eddy was built without MPI.
eddy=$1; mpirun=$2; scene=$3; out=$4
if ! command -v "$mpirun" >/dev/null 2>&1; then echo "skipped: no mpirun ('$mpirun'): install openmpi-bin"; exit 77; fi
if ! "$eddy" --version | grep -q '^processes: MPI'; then echo "skipped: eddy was built without MPI"; exit 77; fi
rm -rf "$out"
log=$("$mpirun" --oversubscribe -np 2 "$eddy" run "$scene" --solver tait --set 'materials[0].stiffness=40000' \
      --steps 1 --no-picture --out "$out" 2>&1)
status=$?
printf '%s\n' "$log"
[ "$status" -eq 0 ] || { echo "unused_stiffness_mpi.sh: the run failed (status $status)" >&2; exit 1; }
said=$(printf '%s\n' "$log" | grep -c 'tait: materials\[0\]\.stiffness = 40000 has no effect: ')
if [ "$said" -ne 1 ]; then
    echo "unused_stiffness_mpi.sh: the note came $said times, expected once" >&2
    exit 1
fi
