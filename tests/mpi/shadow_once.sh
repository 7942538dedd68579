#!/bin/sh
# shadow_once.sh EDDY MPIRUN PLUGIN SCENE OUT: a copy of PLUGIN (the build's pbf) in a folder named by
# EDDY_PLUGIN_PATH shadows the build's own. `eddy run` and `eddy describe` on 3 processes say the shadow
# notice once (every process said it); where only one node's plugin folders shadow it (an MPMD launch, rank 1
# alone given EDDY_PLUGIN_PATH), that process still says it. Exit 77 without mpirun or MPI.
eddy=$1; mpirun=$2; plugin=$3; scene=$4; out=$5
fail() { echo "shadow_once.sh: $*" >&2; exit 1; }
command -v "$mpirun" >/dev/null 2>&1 || { echo "skipped: no mpirun ('$mpirun')"; exit 77; }
"$eddy" --version | grep -q '^processes: MPI' || { echo "skipped: eddy was built without MPI"; exit 77; }
rm -rf "$out" && mkdir -p "$out/plugins" && cp "$plugin" "$out/plugins/" || fail "cannot copy $plugin into $out/plugins"
set -- run "$scene" --solver pbf --steps 2 --quiet --no-picture --out "$out/run"
notice="eddy: notice: solver 'pbf' is the one in "
EDDY_PLUGIN_PATH="$out/plugins" "$mpirun" --oversubscribe -np 3 "$eddy" "$@" >"$out/np3.log" 2>&1 ||
    fail "3 processes: $(cat "$out/np3.log")"
k=$(grep -c "^$notice" "$out/np3.log")
[ "$k" -eq 1 ] || fail "3 processes say the shadow notice $k times, expected once: $(cat "$out/np3.log")"
"$mpirun" --oversubscribe -np 1 "$eddy" "$@" : -np 1 env EDDY_PLUGIN_PATH="$out/plugins" "$eddy" "$@" \
    >"$out/mpmd.log" 2>&1 || fail "rank 1 alone shadowing: $(cat "$out/mpmd.log")"
k=$(grep -c "^$notice" "$out/mpmd.log")
[ "$k" -eq 1 ] || fail "the notice of rank 1's shadow is said $k times, expected once: $(cat "$out/mpmd.log")"
# A print command prints once (docs/mpi.md): describe too, its notice included.
EDDY_PLUGIN_PATH="$out/plugins" "$mpirun" --oversubscribe -np 3 "$eddy" describe pbf >"$out/describe.log" 2>&1 ||
    fail "describe on 3 processes: $(cat "$out/describe.log")"
k=$(grep -c "^$notice" "$out/describe.log")
[ "$k" -eq 1 ] || fail "describe on 3 processes says the shadow notice $k times, expected once: $(cat "$out/describe.log")"
echo "shadow_once.sh: the shadow notice said once on 3 processes (run, describe), and by the one process whose folders shadow"
