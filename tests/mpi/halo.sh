#!/bin/sh
# halo.sh EDDY MPIRUN SCENE OUT STEPS N...: the halo kept between steps (docs/mpi.md, "The halo after
# every step") while the fluid moves along the cut axis (the scene's first fluid given 5 m/s along x,
# EDDY_REBALANCE=off so that only the flow moves particles between slabs), for every N given:
#  - the run on N processes ends with the single-process state-hash, bit for bit;
#  - its report shows that every path of the update was taken: halo copies overwritten in place (most
#    updates), copies appended and removed (updates that changed the layout after the first), and
#    particles that migrated (a crossing turns an owned particle into a halo copy and back).
# Exit 77 (skipped) where mpirun is absent or eddy was built without MPI.
eddy=$1; mpirun=$2; scene=$3; out=$4; steps=$5; shift 5
if ! command -v "$mpirun" >/dev/null 2>&1; then echo "skipped: no mpirun ('$mpirun'): install openmpi-bin"; exit 77; fi
if ! "$eddy" --version | grep -q '^processes: MPI'; then echo "skipped: eddy was built without MPI"; exit 77; fi
fail() { echo "halo.sh: $*" >&2; exit 1; }
hash_of() { sed -n 's/^state-hash: //p' "$1"; }
rm -rf "$out"; mkdir -p "$out"
nprocs="$*"
set -- --no-picture --set 'fluids[0].velocity=[5,0]' --set time.output_interval=0.0005
"$eddy" run "$scene" --steps "$steps" --hash --quiet "$@" --out "$out/one" >"$out/one.txt" 2>&1 ||
    { cat "$out/one.txt" >&2; fail "the single-process run failed"; }
one=$(hash_of "$out/one.txt")
[ -n "$one" ] || fail "no hash from the single-process run"
for n in $nprocs; do
    EDDY_REBALANCE=off "$mpirun" --oversubscribe -np "$n" "$eddy" run "$scene" --steps "$steps" --hash "$@" \
        --out "$out/np$n" >"$out/np$n.txt" 2>&1 || { cat "$out/np$n.txt" >&2; fail "the run on $n processes failed"; }
    # "eddy: N processes: U halo updates, P of them in place; A halo copies appended, R removed; M particles migrated"
    report=$(grep "processes: .* halo updates" "$out/np$n.txt")
    [ -n "$report" ] || { cat "$out/np$n.txt" >&2; fail "$n processes: no halo report"; }
    set -- $(echo "$report" | sed 's/[^0-9 ]//g')
    # $1 = N, $2 = updates, $3 = in place, $4 = appended, $5 = removed, $6 = migrated
    echo "$n processes: $report; state-hash $(hash_of "$out/np$n.txt") (one process: $one)"
    [ "$(hash_of "$out/np$n.txt")" = "$one" ] || fail "$n processes: the run ends in another state"
    [ "$3" -gt 0 ] || fail "$n processes: no halo update was made in place"
    # Every process's first update (at the start) appends its whole halo: later ones must add to that.
    [ $(($2 - $3)) -gt "$n" ] || fail "$n processes: no halo update after the first changed the layout"
    [ "$5" -gt 0 ] || fail "$n processes: no halo copy was removed"
    [ "$6" -gt 0 ] || fail "$n processes: no particle migrated"
    set -- --no-picture --set 'fluids[0].velocity=[5,0]' --set time.output_interval=0.0005
done
exit 0
