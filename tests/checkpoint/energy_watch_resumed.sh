#!/bin/sh
# energy_watch_resumed.sh EDDY SCENE OUT: a run that makes energy (the 2D dam break without viscosity)
# stopped at step 1000 and resumed to its end warns of the same rise, from the same start, as the run
# without a break: the checkpoint keeps the run's energy watch (a resume once measured from the
# checkpoint, naming another rise and another "energy at the start"). The end warnings must be equal,
# text for text (the resumed state is bit-identical, docs/host.md).
eddy=$1 scene=$2 out=$3
set -u
fail() { echo "energy_watch_resumed.sh: $*" >&2; exit 1; }
rm -rf "$out" && mkdir -p "$out" || fail "cannot make $out"
warning() { grep '^eddy: warning: the energy E_k + E_p rose by' "$1"; }
"$eddy" run "$scene" --set "materials[0].viscosity=0" --until 0.16 --out "$out/whole" --quiet --no-picture \
    >"$out/whole.txt" 2>&1 || fail "the run without a break failed: $(cat "$out/whole.txt")"
"$eddy" run "$scene" --set "materials[0].viscosity=0" --steps 1000 --out "$out/broken" --quiet --no-picture \
    >"$out/first.txt" 2>&1 || fail "the first part failed: $(cat "$out/first.txt")"
"$eddy" resume "$out/broken" --until 0.16 --quiet --no-picture >"$out/resumed.txt" 2>&1 ||
    fail "the resume failed: $(cat "$out/resumed.txt")"
want=$(warning "$out/whole.txt") || fail "the run without a break did not warn: $(cat "$out/whole.txt")"
got=$(warning "$out/resumed.txt") || fail "the resumed run did not warn: $(cat "$out/resumed.txt")"
[ "$got" = "$want" ] || fail "the resumed run warned
  $got
where the run without a break warned
  $want"
echo "the same warning: $want"
