#!/bin/sh
# bench_from_pieces.sh EDDY MPIRUN SCENE OUT: `eddy bench --from DIR` reads a checkpoint written on
# several processes (pieces and a manifest), as `eddy resume` does: on one process (the pieces merged)
# and on as many as wrote it (a piece each), it benches the checkpoint's particles from its step. It
# once said "no checkpoint 'DIR/checkpoint.eddy'" (the manifest was read by `eddy resume` only).
# Exit 77 (skipped) where mpirun is absent or eddy was built without MPI.
eddy=$1; mpirun=$2; scene=$3; out=$4
if ! command -v "$mpirun" >/dev/null 2>&1; then echo "skipped: no mpirun ('$mpirun'): install openmpi-bin"; exit 77; fi
if ! "$eddy" --version | grep -q '^processes: MPI'; then echo "skipped: eddy was built without MPI"; exit 77; fi
fail() { echo "bench_from_pieces.sh: $*" >&2; exit 1; }
rm -rf "$out"; mkdir -p "$out"
"$mpirun" --oversubscribe -np 2 "$eddy" run "$scene" --steps 60 --quiet --no-picture --out "$out/run" >"$out/run.txt" 2>&1 ||
    { cat "$out/run.txt" >&2; fail "the run on 2 processes failed"; }
[ -f "$out/run/checkpoint.manifest" ] || fail "no checkpoint.manifest"
[ ! -f "$out/run/checkpoint.eddy" ] || fail "a single-process checkpoint.eddy beside the pieces"
particles=$("$eddy" run "$scene" --steps 0 --no-picture --out "$out/count" 2>&1 | sed -n 's/.*, \([0-9][0-9]*\) particles,.*/\1/p' | head -n 1)
[ -n "$particles" ] || fail "no particle count from the scene's run"
for np in 1 2; do
    if [ "$np" -eq 1 ]; then "$eddy" bench --from "$out/run" --steps 5 --repeats 1 >"$out/bench$np.txt" 2>&1
    else "$mpirun" --oversubscribe -np 2 "$eddy" bench --from "$out/run" --steps 5 --repeats 1 >"$out/bench$np.txt" 2>&1; fi
    rc=$?
    cat "$out/bench$np.txt"
    [ "$rc" -eq 0 ] || fail "bench --from the pieces on $np process(es) exited $rc"
    grep -q '^bench: .* start_step=60 ' "$out/bench$np.txt" || fail "bench on $np process(es) did not start at the checkpoint's step 60"
    grep -q "^bench: .* particles=$particles " "$out/bench$np.txt" ||
        fail "bench on $np process(es) did not bench the checkpoint's $particles particles"
done
exit 0
