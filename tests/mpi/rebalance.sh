#!/bin/sh
# rebalance.sh EDDY MPIRUN SCENE OUT STEPS N...: rebalancing (docs/mpi.md) while the fluid moves along
# the cut axis (the scene's first fluid given 5 m/s along x), for every N given:
#  - with EDDY_REBALANCE=0.01 the run on N processes cuts its slabs again (its checkpoint manifest
#    counts more than one rebalance) and ends with the single-process state-hash, bit for bit;
#  - the checkpoint of the first half keeps the moved cuts: `mpirun -np N eddy resume` takes them
#    (a piece outside its slab would be refused) and ends with the same hash, counting on;
#  - with EDDY_REBALANCE=off the manifest counts no rebalance and its cuts after STEPS steps are those
#    after one step, while the rebalanced run's moved.
# Exit 77 (skipped) where mpirun is absent or eddy was built without MPI.
eddy=$1; mpirun=$2; scene=$3; out=$4; steps=$5; shift 5
if ! command -v "$mpirun" >/dev/null 2>&1; then echo "skipped: no mpirun ('$mpirun'): install openmpi-bin"; exit 77; fi
if ! "$eddy" --version | grep -q '^processes: MPI'; then echo "skipped: eddy was built without MPI"; exit 77; fi
fail() { echo "rebalance.sh: $*" >&2; exit 1; }
hash_of() { sed -n 's/^state-hash: //p' "$1"; }
count_of() { sed -n 's/.*"rebalances":[[:space:]]*\([0-9]*\).*/\1/p' "$1/checkpoint.manifest"; }
cuts_of() { sed -n 's/.*"cuts":[[:space:]]*\(\[.*\]\).*/\1/p' "$1/checkpoint.manifest"; }
rm -rf "$out"; mkdir -p "$out"
half=$((steps / 2)); nprocs="$*"
set -- --quiet --no-picture --set 'fluids[0].velocity=[5,0]' --set time.output_interval=0.0005
"$eddy" run "$scene" --steps "$steps" --hash "$@" --out "$out/one" >"$out/one.txt" 2>&1 ||
    { cat "$out/one.txt" >&2; fail "the single-process run failed"; }
one=$(hash_of "$out/one.txt")
[ -n "$one" ] || fail "no hash from the single-process run"
for n in $nprocs; do
    a=np${n}_on; b=np${n}_half; c=np${n}_off; d=np${n}_off1
    EDDY_REBALANCE=0.01 "$mpirun" --oversubscribe -np "$n" "$eddy" run "$scene" --steps "$steps" --hash "$@" \
        --out "$out/$a" >"$out/$a.txt" 2>&1 || { cat "$out/$a.txt" >&2; fail "the rebalanced run on $n processes failed"; }
    k=$(count_of "$out/$a")
    echo "$n processes, EDDY_REBALANCE=0.01: $k rebalances, cuts $(cuts_of "$out/$a"), state-hash $(hash_of "$out/$a.txt") (one process: $one)"
    [ -n "$k" ] && [ "$k" -gt 1 ] || fail "$n processes: the run rebalanced ${k:-no} times; expected more than once"
    [ "$(hash_of "$out/$a.txt")" = "$one" ] || fail "$n processes: the rebalanced run ends in another state"
    EDDY_REBALANCE=0.01 "$mpirun" --oversubscribe -np "$n" "$eddy" run "$scene" --steps "$half" "$@" \
        --out "$out/$b" >"$out/$b.txt" 2>&1 || { cat "$out/$b.txt" >&2; fail "the first half on $n processes failed"; }
    kh=$(count_of "$out/$b")
    EDDY_REBALANCE=0.01 "$mpirun" --oversubscribe -np "$n" "$eddy" resume "$out/$b" --steps "$steps" --hash --quiet \
        >"$out/$b.resume.txt" 2>&1 || { cat "$out/$b.resume.txt" >&2; fail "the resume on $n processes failed"; }
    echo "$n processes: first half $kh rebalances, resumed: $(count_of "$out/$b") rebalances, state-hash $(hash_of "$out/$b.resume.txt")"
    [ "$(hash_of "$out/$b.resume.txt")" = "$one" ] || fail "$n processes: the resumed rebalanced run ends in another state"
    [ "$(count_of "$out/$b")" -ge "$kh" ] || fail "$n processes: the resumed run's rebalance count restarted"
    EDDY_REBALANCE=off "$mpirun" --oversubscribe -np "$n" "$eddy" run "$scene" --steps "$steps" "$@" \
        --out "$out/$c" >"$out/$c.txt" 2>&1 || { cat "$out/$c.txt" >&2; fail "the run without rebalancing failed"; }
    EDDY_REBALANCE=off "$mpirun" --oversubscribe -np "$n" "$eddy" run "$scene" --steps 1 "$@" \
        --out "$out/$d" >"$out/$d.txt" 2>&1 || { cat "$out/$d.txt" >&2; fail "the one-step run failed"; }
    echo "$n processes, EDDY_REBALANCE=off: $(count_of "$out/$c") rebalances, cuts $(cuts_of "$out/$c") (after one step: $(cuts_of "$out/$d"))"
    [ "$(count_of "$out/$c")" = 0 ] || fail "$n processes: EDDY_REBALANCE=off rebalanced"
    [ -n "$(cuts_of "$out/$c")" ] && [ "$(cuts_of "$out/$c")" = "$(cuts_of "$out/$d")" ] ||
        fail "$n processes: EDDY_REBALANCE=off moved the cuts"
    [ "$(cuts_of "$out/$a")" != "$(cuts_of "$out/$d")" ] || fail "$n processes: the rebalanced run kept its first cuts"
done
exit 0
