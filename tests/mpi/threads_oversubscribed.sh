#!/bin/sh
# threads_oversubscribed.sh EDDY MPIRUN SCENE OUT: 3 processes on one node whose threads outnumber its
# CPUs are told so once (host/session/decomp.c, check_threads; docs/mpi.md "Threads per process"): a
# warning where the count is OpenMP's default (OMP_NUM_THREADS exported to every process), whatever
# --quiet says; a notice where --threads gave it, hidden by --quiet; nothing with --threads 1, and the
# least and most of counts that differ between processes (an MPMD launch). Nothing was said before.
# The processes run unbound (--bind-to none), so each may use every CPU this script may: the counts
# below outnumber them on any machine. Exit 77 without mpirun or MPI.
eddy=$1; mpirun=$2; scene=$3; out=$4
fail() { echo "threads_oversubscribed.sh: $*" >&2; exit 1; }
command -v "$mpirun" >/dev/null 2>&1 || { echo "skipped: no mpirun ('$mpirun')"; exit 77; }
"$eddy" --version | grep -q '^processes: MPI' || { echo "skipped: eddy was built without MPI"; exit 77; }
rm -rf "$out" && mkdir -p "$out" || fail "cannot create $out"
# (nproc would count OMP_NUM_THREADS, which the tests set to 1, not the CPUs)
cpus=$(env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc) || fail "nproc failed"
# t threads on each of 3 processes (and 1 + 2 t in the MPMD launch) exceed the CPUs; fit is the advice.
t=$((cpus / 2 + 1)); [ "$t" -ge 2 ] || t=2
fit=$((cpus / 3)); [ "$fit" -ge 1 ] || fit=1

# run NAME [MPIRUN-ARGS...] -- [EDDY-ARGS...]: 3 processes, OMP_NUM_THREADS=t, 2 steps; must succeed.
run() {
    name=$1; shift
    "$mpirun" --oversubscribe --bind-to none -x OMP_NUM_THREADS="$t" "$@" >"$out/$name.txt" 2>&1 ||
        fail "$name: exit status $?: $(tail -5 "$out/$name.txt")"
}
# said NAME TEXT: TEXT once in NAME's output, as one process says it (no "rank K of N: "), and no other
# line about the threads.
said() {
    k=$(grep -cF -- "$2" "$out/$1.txt")
    [ "$k" -eq 1 ] || fail "$1: '$2' said $k times, expected once: $(grep 'threads wait' "$out/$1.txt")"
    [ "$(grep -c 'threads wait' "$out/$1.txt")" -eq 1 ] || fail "$1: more than one line about the threads: $(grep 'threads wait' "$out/$1.txt")"
}
silent() {
    ! grep -q 'threads wait\|on this node run' "$out/$1.txt" || fail "$1: unexpected: $(grep 'threads wait\|on this node run' "$out/$1.txt")"
}
steps="--steps 2 --no-picture"

# shellcheck disable=SC2086 # $steps is meant to split
run default -np 3 "$eddy" run "$scene" $steps --quiet --out "$out/default"
said default "eddy: warning: 3 processes on this node run $t threads each ($((3 * t)) in all, OpenMP's default) on the $cpus CPUs they may use: the threads wait for CPUs; give --threads $fit (the CPUs / the processes on the node)"
# shellcheck disable=SC2086
run one -np 3 "$eddy" run "$scene" $steps --threads 1 --out "$out/one"
silent one
# shellcheck disable=SC2086
run given -np 3 "$eddy" run "$scene" $steps --threads "$t" --out "$out/given"
said given "eddy: notice: 3 processes on this node run $t threads each ($((3 * t)) in all, as --threads or the scene's world.threads asks) on the $cpus CPUs they may use: the threads wait for CPUs; --threads $fit (the CPUs / the processes on the node) is likely faster"
# shellcheck disable=SC2086
run given_quiet -np 3 "$eddy" run "$scene" $steps --threads "$t" --quiet --out "$out/given_quiet"
silent given_quiet
# shellcheck disable=SC2086
run mpmd -np 1 "$eddy" run "$scene" $steps --threads 1 --out "$out/mpmd" : -np 2 "$eddy" run "$scene" $steps --threads "$t" --out "$out/mpmd"
said mpmd "eddy: notice: 3 processes on this node run 1 to $t threads ($((2 * t + 1)) in all, as --threads or the scene's world.threads asks) on the $cpus CPUs"
echo "threads_oversubscribed.sh: $((3 * t)) threads of OpenMP's default on $cpus CPUs warned once; --threads $t noticed once (not with --quiet); --threads 1 silent"
