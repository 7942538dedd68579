#!/bin/sh
# scatter.sh EDDY MPIRUN SCENE OUT STEPS: no process holds every particle for --hash or for a resume on
# another process count (docs/mpi.md, "The state hash", "Resuming on another count").
#  - SCENE (tests/mpi/leaves_domain.json) with out_of_domain "remove" and both blocks squeezed to three
#    lattice columns: particles leave and are removed (sparse ids), and on 4 processes one slab holds no
#    particle (the three columns go to three slabs). The hash on 3 and 4 processes equals one process's;
#    with EDDY_LOG=debug every process says how many particles it hashed, which must be its exact share
#    of the ids, floor(k (r + 1) / N) - floor(k r / N) of the k particles left, and no process gathers
#    (VTK pieces only: the CSV frames would gather for rank 0 to write).
#  - The pieces of a run on 2 processes resumed on 3 and on 4 (two processes without a piece): every
#    process says it holds fewer than all of the checkpoint's particles, together all of them once, and
#    the resumed runs end with the single-process run's hash.
# Exit 77 (skipped) where mpirun is absent or eddy was built without MPI.
eddy=$1; mpirun=$2; scene=$3; out=$4; steps=$5
if ! command -v "$mpirun" >/dev/null 2>&1; then echo "skipped: no mpirun ('$mpirun'): install openmpi-bin"; exit 77; fi
if ! "$eddy" --version | grep -q '^processes: MPI'; then echo "skipped: eddy was built without MPI"; exit 77; fi
fail() { echo "scatter.sh: $*" >&2; exit 1; }
hash_of() { sed -n 's/^state-hash: //p' "$1"; }
rm -rf "$out"; mkdir -p "$out"
set -- --quiet --no-picture --format vtk --set domain.out_of_domain=remove --set 'fluids[0].box.max=[0.08,0.1]' \
    --set 'fluids[1].box.min=[0.05,0.45]' --set 'fluids[1].box.max=[0.08,0.55]'
"$eddy" run "$scene" --steps "$steps" --hash "$@" --out "$out/one" >"$out/one.txt" 2>&1 ||
    { cat "$out/one.txt" >&2; fail "the single-process run failed"; }
one=$(hash_of "$out/one.txt")
[ -n "$one" ] || fail "no hash from the single-process run"
for n in 3 4; do
    log="$out/np$n.txt"
    EDDY_LOG=debug "$mpirun" --oversubscribe -np "$n" "$eddy" run "$scene" --steps "$steps" --hash "$@" \
        --out "$out/np$n" >"$log" 2>&1 || { cat "$log" >&2; fail "$n processes failed"; }
    echo "$n processes: state-hash $(hash_of "$log") (one process: $one)"
    [ "$(hash_of "$log")" = "$one" ] || { cat "$log" >&2; fail "$n processes end with another hash"; }
    total=$(sed -n "s/.* created [0-9]* of the scene's \([0-9]*\) particles.*/\1/p" "$log" | head -n 1)
    k=$(sed -n "s/.*state hash over [0-9]* of the run's \([0-9]*\) particles.*/\1/p" "$log" | head -n 1)
    [ -n "$k" ] && [ -n "$total" ] || { cat "$log" >&2; fail "$n processes: no 'state hash over' or 'created' line"; }
    [ "$k" -lt "$total" ] || fail "$n processes: no particle was removed ($k of $total left): the ids are not sparse"
    if [ "$n" -eq 4 ]; then
        grep -q "rank [0-9]* of 4 created 0 of the scene's" "$log" || { cat "$log" >&2; fail "no process of 4 holds no particle"; }
    fi
    grep -q "gather of every particle" "$log" && { cat "$log" >&2; fail "$n processes: a gather to rank 0 happened"; }
    r=0
    while [ "$r" -lt "$n" ]; do
        want=$((k * (r + 1) / n - k * r / n))
        got=$(sed -n "s/.*rank $r of $n: state hash over \([0-9]*\) of the run's.*/\1/p" "$log")
        [ "$got" = "$want" ] || { cat "$log" >&2; fail "$n processes: rank $r hashed '$got' particles, its share is $want of $k"; }
        r=$((r + 1))
    done
done
# Resumes on other counts: each process reads its share of the pieces only.
dam=$(dirname "$scene")/../../scenes/dam_break_2d.json
set -- --quiet --no-picture --set time.output_interval=0.0005
"$eddy" run "$dam" --steps 40 --hash "$@" --out "$out/whole" >"$out/whole.txt" 2>&1 || fail "the 2D dam break failed"
whole=$(hash_of "$out/whole.txt")
EDDY_LOG=debug "$mpirun" --oversubscribe -np 2 "$eddy" run "$dam" --steps 20 "$@" --out "$out/part" >"$out/part.txt" 2>&1 ||
    { cat "$out/part.txt" >&2; fail "the first half on 2 processes failed"; }
total=$(sed -n "s/.* created [0-9]* of the scene's \([0-9]*\) particles.*/\1/p" "$out/part.txt" | head -n 1)
for n in 3 4; do
    cp -r "$out/part" "$out/part$n"
    log="$out/resume$n.txt"
    EDDY_LOG=debug "$mpirun" --oversubscribe -np "$n" "$eddy" resume "$out/part$n" --steps 40 --hash --quiet >"$log" 2>&1 ||
        { cat "$log" >&2; fail "the resume of 2 pieces on $n processes failed"; }
    echo "2 pieces resumed on $n processes: state-hash $(hash_of "$log") (one process: $whole)"
    [ "$(hash_of "$log")" = "$whole" ] || { cat "$log" >&2; fail "the resume on $n processes ends with another hash"; }
    lines=$(grep -c "resume holds [0-9]* particles of the checkpoint" "$log")
    [ "$lines" -eq "$n" ] || { cat "$log" >&2; fail "resume on $n: $lines 'resume holds' lines, expected $n"; }
    sum=0
    for c in $(sed -n "s/.*resume holds \([0-9]*\) particles of the checkpoint.*/\1/p" "$log"); do
        [ "$c" -lt "$total" ] || { cat "$log" >&2; fail "resume on $n: a process read $c of the $total particles"; }
        sum=$((sum + c))
    done
    [ "$sum" -eq "$total" ] || { cat "$log" >&2; fail "resume on $n: the processes hold $sum particles, the checkpoint $total"; }
done
exit 0
