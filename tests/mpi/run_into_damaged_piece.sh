#!/bin/sh
# run_into_damaged_piece.sh EDDY MPIRUN SCENE CKEDIT OUT: a 2-process run's folder whose checkpoint says it
# stopped before its end, with a byte of piece 1 flipped: a new run into it on 2 processes says that eddy
# resume cannot continue it (piece 1's checksum) and to move it away; rank 0's whole piece sent the user to
# `mpirun -np 2 eddy resume`, which then refused. Exit 77 without MPI.
E=$1 M=$2 S=$3 K=$4 O=$5
command -v "$M" >/dev/null 2>&1 || { echo "skipped: no mpirun"; exit 77; }
"$E" --version | grep -q '^processes: MPI' || { echo "skipped: eddy was built without MPI"; exit 77; }
fail() { echo "run_into_damaged_piece.sh: $*" >&2; exit 1; }
rm -rf "$O"
"$M" --oversubscribe -np 2 "$E" run "$S" --steps 10 --out "$O" --quiet --no-picture --threads 1 || fail "the first run failed"
"$K" "$O/checkpoint.p0.eddy" setting end_steps 20 && "$K" "$O/checkpoint.p1.eddy" setting end_steps 20 || fail "ckedit failed"
size=$(wc -c <"$O/checkpoint.p1.eddy")
printf 'X' | dd of="$O/checkpoint.p1.eddy" bs=1 seek=$((size / 2)) conv=notrunc 2>/dev/null || fail "cannot flip a byte"
got=$("$M" --oversubscribe -np 2 "$E" run "$S" --steps 10 --out "$O" --quiet --no-picture --threads 1 2>&1) && fail "the run was not refused"
echo "$got" | grep -F "eddy: error:"
want="which eddy resume cannot continue (checkpoint '$O/checkpoint.p1.eddy' is corrupt: checksum mismatch"
case $got in *"$want"*"move it away or choose another --out"*) ;; *) fail "expected: $want ... move it away" ;; esac
