#!/bin/sh
# mpi_comm.sh EDDY MPIRUN PROGRAM SCENE_TWO SCENE_ONE STEPS OUT: tests/session/mpi_comm.c on three
# processes runs SCENE_TWO on two of them and SCENE_ONE on the third, each case on its own communicator
# (eddy_session_set_mpi_comm). Each case must end in the state-hash of `eddy run SCENE --steps STEPS
# --hash` on one process, as must `eddy resume` of the checkpoint each wrote halfway (on as many
# processes), and the refusals (before MPI_Init, a bad handle, a session open, a checkpoint over another
# run's) must say what is wrong. Exit 77 (skipped) without mpirun or MPI.
eddy=$1; mpirun=$2; program=$3; two=$4; one=$5; steps=$6; out=$7
if ! command -v "$mpirun" >/dev/null 2>&1; then echo "skipped: no mpirun ('$mpirun'): install openmpi-bin"; exit 77; fi
if ! "$eddy" --version | grep -q '^processes: MPI'; then echo "skipped: eddy was built without MPI"; exit 77; fi
rm -rf "$out" && mkdir -p "$out" || exit 1
hash_of() {
    "$eddy" run "$1" --steps "$steps" --threads 1 --hash --quiet --no-picture --out "$out/$2" 2>&1 |
        sed -n 's/^state-hash: //p'
}
h2=$(hash_of "$two" two); h1=$(hash_of "$one" one)
echo "one process each: $two $h2, $one $h1"
[ -n "$h2" ] && [ -n "$h1" ] || { echo "mpi_comm.sh: a single-process run failed" >&2; exit 1; }
# The session writes nothing of its own; its working folder is OUT.
mkdir "$out/ck0" "$out/ck1" || exit 1
(cd "$out" && "$mpirun" --oversubscribe -np 3 "$program" "$two" "$one" "$steps") >"$out/np3.txt" 2>&1
rc=$?
cat "$out/np3.txt"
status=0
expect() {
    if ! grep -qxF "$1" "$out/np3.txt"; then echo "mpi_comm.sh: missing line: $1" >&2; status=1; fi
}
[ $rc -eq 0 ] || { echo "mpi_comm.sh: mpirun exited $rc" >&2; status=1; }
for r in 0 1 2; do expect "rank $r: world of 3 processes: state-hash $h2"; done
expect "rank 0: program's message: 5eed 100"
for r in 0 1 2; do
    expect "rank $r: different scenes: process 1 of 3 opened another session than process 0 (its scene, overrides, solver or grid differ): every process of a split run must open the same one"
done
expect "rank 0: case 0 of 2 processes: state-hash $h2"
expect "rank 1: case 0 of 2 processes: state-hash $h2"
expect "rank 2: case 1 of 1 processes: state-hash $h1"
for r in 0 1 2; do
    expect "rank $r: before init: MPI is not running in this process (call MPI_Init before setting eddy's communicator, and not after MPI_Finalize)"
    expect "rank $r: bad handle: MPI handle -7 is not a communicator (pass MPI_Comm_c2f(comm) of a communicator this process belongs to)"
    expect "rank $r: null handle: the MPI handle is MPI_COMM_NULL's: no communicator to run on (a process that MPI_Comm_split left out, with MPI_UNDEFINED, runs no session)"
    expect "rank $r: while open: 1 session of this process is open: close it before setting eddy's MPI communicator (a session keeps the processes it opened with)"
done
expect "rank 2: one open: 1 session of this process is open: close it before setting eddy's MPI communicator (a session keeps the processes it opened with)"
for r in 0 1; do
    expect "rank $r: one open: process 2 of communicator 0 refused its change, so none changed: 1 session of this process is open: close it before setting eddy's MPI communicator (a session keeps the processes it opened with)"
done
# A new run's checkpoint into a folder holding the first run's is refused on every process (which
# process reads the folder must not matter); the resumes below find the first run's intact.
for r in 0 1 2; do expect "rank $r: another run's checkpoint: refused"; done
# A velocity a program writes between steps changes the run alike on two processes and on one.
k=$(sed -n 's/^rank 2: kicked case 1 of 1 processes: state-hash //p' "$out/np3.txt")
[ -n "$k" ] || { echo "mpi_comm.sh: no kicked hash from the case on one process" >&2; status=1; }
for r in 0 1; do expect "rank $r: kicked case 0 of 2 processes: state-hash $k"; done
# Each case's checkpoint (pieces of 2 processes and a file of 1) is continued by `eddy resume` on as
# many processes to the same hash.
r2=$("$mpirun" --oversubscribe -np 2 "$eddy" resume "$out/ck0" --steps "$steps" --threads 1 --hash --quiet --no-picture 2>&1 |
     sed -n 's/^state-hash: //p')
r1=$("$eddy" resume "$out/ck1" --steps "$steps" --threads 1 --hash --quiet --no-picture 2>&1 | sed -n 's/^state-hash: //p')
echo "resumed: case 0 on 2 processes $r2, case 1 $r1"
[ -f "$out/ck0/checkpoint.manifest" ] || { echo "mpi_comm.sh: the split case wrote no manifest" >&2; status=1; }
[ "$r2" = "$h2" ] || { echo "mpi_comm.sh: case 0's checkpoint resumed on 2 processes gave '$r2', not $h2" >&2; status=1; }
[ "$r1" = "$h1" ] || { echo "mpi_comm.sh: case 1's checkpoint resumed gave '$r1', not $h1" >&2; status=1; }
exit $status
