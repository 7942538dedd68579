#!/bin/sh
# bench.sh EDDY MPIRUN SCENE N [ARG...]: `mpirun -np N eddy bench SCENE ARG...` (docs/mpi.md) prints one
# figure set, from rank 0, of the whole run: as many particles as the single-process bench, N processes
# holding them, halo copies and the bytes that carried them (at least an id and a position, 16 bytes, per
# halo copy per step), and the collectives of every step seen by the MPI tally (two step-statistics
# reductions, the signal agreement and the halo exchange: at least 4). One process prints none of the
# MPI keys. Exit 77 without mpirun or MPI.
eddy=$1; mpirun=$2; scene=$3; n=$4; shift 4
if ! command -v "$mpirun" >/dev/null 2>&1; then echo "skipped: no mpirun ('$mpirun'): install openmpi-bin"; exit 77; fi
if ! "$eddy" --version | grep -q '^processes: MPI'; then echo "skipped: eddy was built without MPI"; exit 77; fi
fail() { echo "bench.sh: $*" >&2; exit 1; }
one=$("$eddy" bench "$scene" --steps 3 --repeats 3 "$@" 2>&1) || { echo "$one" >&2; fail "the single-process bench failed"; }
many=$("$mpirun" --oversubscribe -np "$n" "$eddy" bench "$scene" --steps 3 --repeats 3 "$@" 2>&1) ||
    { echo "$many" >&2; fail "the bench on $n processes failed"; }
printf '%s\n' "$one" "$many"
# key=value of the machine-readable line
val() { printf '%s\n' "$1" | sed -n "s/^bench: .* $2=\([^ ]*\).*/\1/p"; }
[ "$(printf '%s\n' "$one" | grep -c '^bench: ')" -eq 1 ] || fail "one process printed no or several bench lines"
[ -z "$(val "$one" processes)" ] || fail "one process printed processes="
[ "$(printf '%s\n' "$many" | grep -c '^bench: ')" -eq 1 ] || fail "$n processes printed $(printf '%s\n' "$many" | grep -c '^bench: ') bench lines, not 1"
p1=$(val "$one" particles); pn=$(val "$many" particles)
[ -n "$p1" ] && [ "$p1" = "$pn" ] || fail "$n processes bench $pn particles, one process $p1"
[ "$(val "$many" processes)" = "$n" ] || fail "processes=$(val "$many" processes), not $n"
awk -v n="$n" -v p="$pn" -v per="$(val "$many" particles_per_process)" -v halo="$(val "$many" halo_particles)" \
    -v bytes="$(val "$many" halo_bytes_per_step)" -v coll="$(val "$many" collectives_per_step)" \
    -v ex="$(val "$many" exchange_ms)" 'BEGIN {
    if ((per * n - p) ^ 2 > n * n) { print "particles_per_process " per " x " n " is not " p; exit 1 }
    if (!(halo > 0)) { print "no halo copies"; exit 1 }
    if (!(bytes >= 16 * halo)) { print bytes " bytes per step for " halo " halo copies (< 16 each)"; exit 1 }
    if (!(coll >= 4)) { print coll " collectives per step: the MPI tally sees no step"; exit 1 }
    if (!(ex > 0)) { print "no time in the exchange"; exit 1 }
}' >&2 || fail "the figures of $n processes do not hold together"
echo "$n processes: $pn particles, $(val "$many" halo_particles) halo copies, $(val "$many" halo_bytes_per_step) bytes per step"
