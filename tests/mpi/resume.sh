#!/bin/sh
# resume.sh EDDY MPIRUN SCENE OUT STEPS N RECORD: checkpoints of runs on several processes (docs/mpi.md).
#  - SCENE run to STEPS/2 on N processes leaves pieces and a manifest; `mpirun -np N eddy resume` to
#    STEPS ends with the state-hash of the uninterrupted single-process run, bit for bit, and its
#    diagnostics.csv (without wall_ms) equals the uninterrupted run's;
#  - the single-process checkpoint of STEPS/2 resumed on N processes ends with the same hash;
#  - the pieces resumed on N + 1 processes and on one end with the same hash: every piece's solver
#    record is the same (sph_mueller and tait keep the largest acceleration over every process, pbf
#    none), so the pieces merge; so do they on 2 N processes (half of them read no piece) and, for
#    N > 2, on N - 1 (a process reads two pieces): each process reads only its share of the pieces;
#  - RECORD=record: a piece of another run at the same step (another gravity) is refused naming both
#    pieces and the setting that differs, on one process, on N + 1 and on N (where each process reads
#    its own piece: a sph_mueller piece beside a tait piece once resumed, each process another solver);
#  - RECORD=record with CKEDIT (tests/checkpoint/ckedit): piece 1 of the run itself with its solver record
#    changed (settings equal, as a solver keeping a state per process would leave them) cannot be merged
#    and is refused naming both pieces, on one process and on N + 1;
#  - a missing piece, and a piece of another checkpoint, are refused by name;
#  - every frame file frames.pvd names exists after each resume, on the same count or another (frames
#    written before the checkpoint keep their kind: .vtp from one process, .pvtp over pieces from several).
# Exit 77 (skipped) where mpirun is absent or eddy was built without MPI.
eddy=$1; mpirun=$2; scene=$3; out=$4; steps=$5; n=$6; record=$7; ckedit=$8
if ! command -v "$mpirun" >/dev/null 2>&1; then echo "skipped: no mpirun ('$mpirun'): install openmpi-bin"; exit 77; fi
if ! "$eddy" --version | grep -q '^processes: MPI'; then echo "skipped: eddy was built without MPI"; exit 77; fi
fail() { echo "resume.sh: $*" >&2; exit 1; }
mpi() { "$mpirun" --oversubscribe "$@"; }
hash_of() { sed -n 's/^state-hash: //p' "$1"; }
# refused K DIR TEXT WHAT: `eddy resume DIR` on K processes (1: without mpirun) must fail and say TEXT;
# its output stays in DIR.npK.txt.
refused() {
    log="$2.np$1.txt"
    if [ "$1" -eq 1 ]; then "$eddy" resume "$2" --steps "$steps" --quiet >"$log" 2>&1
    else mpi -np "$1" "$eddy" resume "$2" --steps "$steps" --quiet >"$log" 2>&1; fi &&
        fail "$4: resumed on $1 process(es)"
    grep -qF "$3" "$log" || { cat "$log" >&2; fail "$4: the refusal on $1 process(es) does not say: $3"; }
}
pvd_files_exist() {
    [ -f "$1/frames.pvd" ] || fail "no $1/frames.pvd"
    for f in $(sed -n 's/.*file="\([^"]*\)".*/\1/p' "$1/frames.pvd"); do
        [ -f "$1/$f" ] || fail "$1/frames.pvd names $f, which does not exist"
    done
}
rm -rf "$out"; mkdir -p "$out"
half=$((steps / 2)); m=$((n + 1))
set -- --quiet --no-picture --set time.output_interval=0.0005
"$eddy" run "$scene" --steps "$steps" --hash "$@" --out "$out/whole" >"$out/whole.txt" 2>&1 ||
    { cat "$out/whole.txt" >&2; fail "the uninterrupted run failed"; }
one=$(hash_of "$out/whole.txt")
[ -n "$one" ] || fail "no hash from the uninterrupted run"
mpi -np "$n" "$eddy" run "$scene" --steps "$half" "$@" --out "$out/part" >"$out/part.txt" 2>&1 ||
    { cat "$out/part.txt" >&2; fail "the first half on $n processes failed"; }
[ -f "$out/part/checkpoint.manifest" ] || fail "no checkpoint.manifest"
for d in spare other single missing differ record double fewer; do cp -r "$out/part" "$out/$d"; done
mpi -np "$n" "$eddy" resume "$out/part" --steps "$steps" --hash --quiet >"$out/resume.txt" 2>&1 ||
    { cat "$out/resume.txt" >&2; fail "the resume on $n processes failed"; }
echo "uninterrupted, one process: $one; resumed on $n processes: $(hash_of "$out/resume.txt")"
[ "$(hash_of "$out/resume.txt")" = "$one" ] || fail "the resumed run ends in another state"
cut -d, -f1-9,11 "$out/whole/diagnostics.csv" >"$out/whole.diag"
cut -d, -f1-9,11 "$out/part/diagnostics.csv" >"$out/part.diag"
cmp "$out/whole.diag" "$out/part.diag" || fail "diagnostics.csv of the resumed run differs from the uninterrupted run's"
# One process's checkpoint, resumed on n.
"$eddy" run "$scene" --steps "$half" "$@" --out "$out/serial" >/dev/null 2>&1 || fail "the single-process half failed"
mpi -np "$n" "$eddy" resume "$out/serial" --steps "$steps" --hash --quiet >"$out/serial.txt" 2>&1 ||
    { cat "$out/serial.txt" >&2; fail "the single-process checkpoint resumed on $n processes failed"; }
[ "$(hash_of "$out/serial.txt")" = "$one" ] || fail "the single-process checkpoint resumed on $n processes ends in another state"
pvd_files_exist "$out/part"
pvd_files_exist "$out/serial"
# Another process count, and one process.
mpi -np "$m" "$eddy" resume "$out/other" --steps "$steps" --hash --quiet >"$out/other.txt" 2>&1
rc_other=$?
"$eddy" resume "$out/single" --steps "$steps" --hash --quiet >"$out/single.txt" 2>&1
rc_single=$?
echo "pieces of $n processes resumed on $m: $(hash_of "$out/other.txt"); as one process: $(hash_of "$out/single.txt")"
[ "$rc_other" -eq 0 ] && [ "$(hash_of "$out/other.txt")" = "$one" ] ||
    { cat "$out/other.txt" >&2; fail "the pieces resumed on $m processes do not end in the same state"; }
[ "$rc_single" -eq 0 ] && [ "$(hash_of "$out/single.txt")" = "$one" ] ||
    { cat "$out/single.txt" >&2; fail "the pieces resumed as one process do not end in the same state"; }
pvd_files_exist "$out/other"
pvd_files_exist "$out/single"
counts=$((2 * n))
[ "$n" -gt 2 ] && counts="$counts $((n - 1))"
for k in $counts; do
    d=double; [ "$k" -lt "$n" ] && d=fewer
    mpi -np "$k" "$eddy" resume "$out/$d" --steps "$steps" --hash --quiet >"$out/$d.txt" 2>&1
    rc=$?
    echo "pieces of $n processes resumed on $k: $(hash_of "$out/$d.txt")"
    [ "$rc" -eq 0 ] && [ "$(hash_of "$out/$d.txt")" = "$one" ] ||
        { cat "$out/$d.txt" >&2; fail "the pieces resumed on $k processes do not end in the same state"; }
done
if [ "$record" = record ]; then
    # Piece 1 of a run with another gravity at the same step: a piece of another run, refused by its
    # settings (the scene) against piece 0's before anything is merged, on one process and on N + 1
    # (each process comparing its share with piece 0). Its solver record differs too, which the merge
    # would refuse next.
    mpi -np "$n" "$eddy" run "$scene" --steps "$half" "$@" --set 'world.gravity=[0,-9]' --out "$out/gravity" \
        >/dev/null 2>&1 || fail "the run with another gravity failed"
    cp "$out/gravity/checkpoint.p1.eddy" "$out/differ/checkpoint.p1.eddy"
    # (which setting is named first depends on the run: the scene, or the cuts where gravity moved them)
    said="checkpoint pieces '$out/differ/checkpoint.p0.eddy' and '$out/differ/checkpoint.p1.eddy' are not of one run: their settings differ in \""
    refused 1 "$out/differ" "$said" "pieces of two runs"
    refused "$m" "$out/differ" "$said" "pieces of two runs"
    # On as many processes as wrote them, each process reads its own piece: compared with piece 0 all the same.
    refused "$n" "$out/differ" "$said" "pieces of two runs"
    if [ -n "$ckedit" ]; then
        "$ckedit" "$out/record/checkpoint.p1.eddy" state-real 0 12345 || fail "ckedit could not change the record"
        said="has different state records in '$out/record/checkpoint.p0.eddy' and '$out/record/checkpoint.p1.eddy'"
        refused 1 "$out/record" "$said" "pieces with different solver records"
        refused "$m" "$out/record" "$said" "pieces with different solver records"
    fi
fi
rm "$out/missing/checkpoint.p1.eddy"
refused "$n" "$out/missing" "$out/missing/checkpoint.p1.eddy" "a missing piece"
# Piece 0 of a checkpoint at another step.
mpi -np "$n" "$eddy" run "$scene" --steps $((half + 2)) "$@" --out "$out/later" >/dev/null 2>&1 || fail "the later run failed"
cp "$out/later/checkpoint.p0.eddy" "$out/spare/checkpoint.p0.eddy"
refused "$n" "$out/spare" "checkpoint piece '$out/spare/checkpoint.p0.eddy' does not match the manifest" \
    "a piece of another checkpoint"
# (and no process blames its own good piece, judged against the stale piece 0)
! grep -qF "are not of one run" "$out/spare.np$n.txt" ||
    { cat "$out/spare.np$n.txt" >&2; fail "a good piece was refused as one of another run"; }
exit 0
