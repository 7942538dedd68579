#!/bin/sh
# removed_count.sh EDDY MPIRUN SCENE OUT: a block of 300 particles that falls out of an open domain, split
# over 2 processes, is said to have lost its 300 particles, as one process says (eddy_grid.removed also
# counts a process's halo copies: the sum over the processes said 1920 of 1200). Exit 77 without MPI.
E=$1 M=$2 S=$3 O=$4
command -v "$M" >/dev/null 2>&1 || { echo "skipped: no mpirun"; exit 77; }
"$E" --version | grep -q '^processes: MPI' || { echo "skipped: eddy was built without MPI"; exit 77; }
want='eddy: 300 particles left the domain and were removed (domain.out_of_domain "remove"); 0 remain'
out=$("$M" --oversubscribe -np 2 "$E" run "$S" --no-picture --threads 1 --out "$O" 2>&1) || { echo "$out"; exit 1; }
echo "$out" | grep -F "left the domain"
[ "$(echo "$out" | grep -cxF "$want")" = 1 ] || { echo "removed_count.sh: expected once: $want"; exit 1; }
