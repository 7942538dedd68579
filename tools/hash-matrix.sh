#!/bin/sh
# Prints the state hash of every CPU solver on every scene after a fixed number of steps, one line per
# pair: "scene solver hash-or-error". Used to show that a refactoring (e.g. the ABI 2.0 move) leaves
# the physics bit-identical: run it with the build before and after, and diff the two outputs.
#   tools/hash-matrix.sh BUILD_DIR [STEPS] > hashes.txt
set -u
build=$1; steps=${2:-20}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for scene in "$root"/scenes/*.json; do
  for solver in sph_mueller tait pbf vpm_hybrid; do
    out=$("$build/bin/eddy" run "$scene" --solver "$solver" --steps "$steps" --hash --quiet --no-picture \
          --format csv --threads 2 --out "$tmp/o" 2>&1)
    h=$(printf '%s\n' "$out" | sed -n 's/^state-hash: //p')
    [ -n "$h" ] || h="error: $(printf '%s\n' "$out" | tail -n 1)"
    printf '%s %s %s\n' "$(basename "$scene" .json)" "$solver" "$h"
    rm -rf "$tmp/o"
  done
done
