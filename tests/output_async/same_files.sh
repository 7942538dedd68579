#!/bin/sh
# same_files.sh EDDY SCENE OUT MPIRUN NP [ARG...]: `eddy run SCENE ARG...` with EDDY_OUTPUT_OVERLAP=on and
# =off writes the same files byte for byte (diagnostics.csv but its wall_ms column, a wall time; run.json,
# which records its start time, is only checked to be there), on 1
# and 2 threads when NP is 0, else under MPIRUN with NP processes. Each run writes into the same folder
# (the checkpoint names it) and is moved aside before the next; each checkpoint's run_id, which differs
# between any two runs, is taken out with the ckedit of EDDY_TEST_CKEDIT. Exit 77 without mpirun or MPI.
eddy=$1; scene=$2; out=$3; mpirun=$4; np=$5; shift 5
fail() { echo "same_files.sh: $*" >&2; exit 1; }
[ -x "${EDDY_TEST_CKEDIT:-}" ] || fail "EDDY_TEST_CKEDIT is not the ckedit program"

if [ "$np" -gt 0 ]; then
    command -v "$mpirun" >/dev/null 2>&1 || { echo "skipped: no mpirun ('$mpirun')"; exit 77; }
    "$eddy" --version | grep -q '^processes: MPI' || { echo "skipped: eddy was built without MPI"; exit 77; }
    set -- "$mpirun" --oversubscribe -np "$np" "$eddy" run "$scene" "$@"
    variants="np$np"
else
    set -- "$eddy" run "$scene" "$@"
    variants="1 2"
fi
rm -rf "$out"; mkdir -p "$out"
for v in $variants; do
    threads=""; [ "$np" -gt 0 ] || threads="--threads $v"
    for mode in on off; do
        # shellcheck disable=SC2086
        EDDY_OUTPUT_OVERLAP=$mode "$@" $threads --quiet --out "$out/run" >"$out/$mode$v.log" 2>&1 ||
            { cat "$out/$mode$v.log" >&2; fail "the run with overlap $mode ($v) failed"; }
        mv "$out/run" "$out/$mode$v"
        # (each run draws its own run_id, which its checkpoints carry: taken out before the comparison)
        for ck in "$out/$mode$v"/checkpoint.eddy "$out/$mode$v"/checkpoint.p*.eddy; do
            [ ! -f "$ck" ] || "$EDDY_TEST_CKEDIT" "$ck" setting run_id - || fail "cannot take the run_id out of $ck"
        done
    done
    a=$out/on$v; b=$out/off$v
    frames=$(ls "$a/frames" | wc -l)
    [ "$frames" -ge 4 ] || fail "only $frames frame files: the comparison would prove little"
    # (run.json records each run's start time: present in both, its content is tests/run_record's)
    [ -f "$a/run.json" ] && [ -f "$b/run.json" ] || fail "run.json missing ($v)"
    diff -r -x diagnostics.csv -x run.json "$a" "$b" || fail "overlap on and off ($v) wrote different files"
    cut -d, -f1-9,11- "$a/diagnostics.csv" >"$out/on$v.diag"
    cut -d, -f1-9,11- "$b/diagnostics.csv" >"$out/off$v.diag"
    cmp "$out/on$v.diag" "$out/off$v.diag" || fail "diagnostics.csv (without wall_ms) differs ($v)"
    [ "$(wc -l <"$out/on$v.diag")" -ge 3 ] || fail "diagnostics.csv has too few rows"
    echo "$v: $(find "$a" -type f | wc -l) files equal, $frames frame files"
done
