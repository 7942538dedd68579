#!/bin/sh
# fill.sh EDDY MPIRUN SCENE OUT STEPS "N..." [ARG...]: every process creates only the particles it owns
# (docs/mpi.md, host/session/decomp_fill.c), and that changes nothing but the memory:
#  - with EDDY_LOG=debug each of the N processes says "rank K of N created C of the scene's T particles"
#    once; the C add up to T, each C is below T, and T is the particle count of the one-process run;
#    a build of the whole scene on every process fails here (no such lines, or N T in all);
#  - the first cuts and their imbalance (the checkpoint manifest after 0 steps, with 17 digits) equal
#    those of the earlier way (EDDY_DECOMP_FILL=whole: every process builds every particle and the
#    attach cuts them, decomp.c), and so does the imbalance `eddy run` reports;
#  - after STEPS steps the state hash equals the one-process run's, both ways.
# ARG... go to every eddy run (--set ...). Exit 77 without mpirun or MPI.
eddy=$1; mpirun=$2; scene=$3; out=$4; steps=$5; counts=$6; shift 6
if ! command -v "$mpirun" >/dev/null 2>&1; then echo "skipped: no mpirun ('$mpirun'): install openmpi-bin"; exit 77; fi
if ! "$eddy" --version | grep -q '^processes: MPI'; then echo "skipped: eddy was built without MPI"; exit 77; fi
export EDDY_REBALANCE=off
fail() { echo "fill.sh: $*" >&2; exit 1; }
hash_of() { sed -n 's/^state-hash: //p' "$1"; }
"$eddy" run "$scene" --steps "$steps" --hash --no-picture --out "$out/serial" "$@" >"$out.serial.txt" 2>&1 ||
    { cat "$out.serial.txt" >&2; fail "the single-process run failed"; }
one=$(hash_of "$out.serial.txt")
total=$(sed -n 's/^eddy: running .*, \([0-9]*\) particles, .*/\1/p' "$out.serial.txt")
echo "1 process: $total particles, state-hash $one"
[ -n "$one" ] && [ -n "$total" ] || { cat "$out.serial.txt" >&2; fail "no hash or particle count from one process"; }
for n in $counts; do
    for how in whole pieces; do
        # The first cuts: 0 steps, the manifest as the attach left it.
        EDDY_DECOMP_FILL=$how EDDY_LOG=debug "$mpirun" --oversubscribe -np "$n" "$eddy" run "$scene" --steps 0 \
            --no-picture --out "$out/np${n}_$how" "$@" >"$out.np${n}_$how.txt" 2>&1 ||
            { cat "$out.np${n}_$how.txt" >&2; fail "$n processes ($how) failed at 0 steps"; }
        grep -E '"cuts"|"imbalance_floor"' "$out/np${n}_$how/checkpoint.manifest" >"$out.np${n}_$how.cuts" ||
            fail "no cuts in $out/np${n}_$how/checkpoint.manifest"
        sed -n 's/.*processes: rebalanced.* in rebalancing; //p' "$out.np${n}_$how.txt" >>"$out.np${n}_$how.cuts"
        EDDY_DECOMP_FILL=$how "$mpirun" --oversubscribe -np "$n" "$eddy" run "$scene" --steps "$steps" --hash \
            --quiet --no-picture --out "$out/np${n}_${how}_run" "$@" >"$out.np${n}_${how}_run.txt" 2>&1
        h=$(hash_of "$out.np${n}_${how}_run.txt")
        echo "$n processes ($how): state-hash $h"
        [ "$h" = "$one" ] || { cat "$out.np${n}_${how}_run.txt" >&2; fail "$n processes ($how) end in another state"; }
    done
    # Who created what.
    lines=$(grep -c "created .* of the scene's" "$out.np${n}_pieces.txt")
    [ "$lines" -eq "$n" ] || { cat "$out.np${n}_pieces.txt" >&2; fail "$n processes: $lines 'created' lines, expected $n"; }
    ranks=$(sed -n "s/.*rank \([0-9]*\) of $n created .*/\1/p" "$out.np${n}_pieces.txt" | sort -n | tr '\n' ' ')
    [ "$ranks" = "$(seq 0 $((n - 1)) | tr '\n' ' ')" ] || fail "$n processes: the ranks that spoke are '$ranks'"
    sum=0
    for c in $(sed -n "s/.* created \([0-9]*\) of the scene's $total particles.*/\1/p" "$out.np${n}_pieces.txt"); do
        [ "$c" -lt "$total" ] || fail "$n processes: one process created $c of $total particles"
        sum=$((sum + c))
    done
    echo "$n processes: the processes created $sum particles in all (the scene: $total)"
    [ "$sum" -eq "$total" ] || { cat "$out.np${n}_pieces.txt" >&2; fail "$n processes created $sum particles, the scene has $total"; }
    if grep -q "created .* of the scene's" "$out.np${n}_whole.txt"; then fail "EDDY_DECOMP_FILL=whole still fills pieces"; fi
    cmp "$out.np${n}_whole.cuts" "$out.np${n}_pieces.cuts" ||
        { cat "$out.np${n}_whole.cuts" "$out.np${n}_pieces.cuts" >&2; fail "$n processes: other first cuts than the attach's"; }
    [ "$(wc -l <"$out.np${n}_pieces.cuts")" -eq 3 ] || { cat "$out.np${n}_pieces.cuts" >&2; fail "cuts, floor or imbalance missing"; }
    echo "$n processes: first cuts as the attach makes them: $(tr -d '\t\n' <"$out.np${n}_pieces.cuts")"
done
exit 0
