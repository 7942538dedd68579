#!/bin/sh
# speak_once.sh EDDY MPIRUN OUT: the commands that only print (help, --version, list, describe, CMD
# --help) say their output once under mpirun, equal to one process's byte for byte, and an error once:
# every process printed its own copy, interleaved with the others'. Exit 77 without mpirun or MPI.
eddy=$1; mpirun=$2; out=$3
fail() { echo "speak_once.sh: $*" >&2; exit 1; }
command -v "$mpirun" >/dev/null 2>&1 || { echo "skipped: no mpirun ('$mpirun')"; exit 77; }
"$eddy" --version | grep -q '^processes: MPI' || { echo "skipped: eddy was built without MPI"; exit 77; }
rm -rf "$out" && mkdir -p "$out" || fail "cannot create $out"
n=0
for args in "help" "--version" "list" "describe tait" "run --help" "bench --help"; do
    n=$((n + 1))
    # shellcheck disable=SC2086 # the words are meant to split
    "$eddy" $args >"$out/one.$n" 2>&1
    one=$?
    # shellcheck disable=SC2086
    "$mpirun" --oversubscribe -np 3 "$eddy" $args >"$out/three.$n" 2>"$out/three.$n.err"
    three=$?
    [ "$three" -eq "$one" ] || fail "'eddy $args': exit status $three on 3 processes, $one on one"
    cmp -s "$out/one.$n" "$out/three.$n" || fail "'eddy $args' on 3 processes differs from one process's output: $(diff "$out/one.$n" "$out/three.$n" | head -5)"
    [ ! -s "$out/three.$n.err" ] || fail "'eddy $args' on 3 processes wrote on stderr: $(head -3 "$out/three.$n.err")"
done
"$mpirun" --oversubscribe -np 3 "$eddy" describe no_such_component >"$out/unknown" 2>&1
[ "$(grep -c '^eddy: error: unknown component' "$out/unknown")" -eq 1 ] || fail "an unknown id is not said once: $(grep '^eddy' "$out/unknown")"
echo "speak_once.sh: help, --version, list, describe and --help said once, equal to one process's; an error said once"
