#!/bin/sh
# reduced.sh EDDY MPIRUN SCENE OUT STEPS N [ARG...]: on N processes, a run whose outputs are VTK pieces,
# diagnostics and probes that are sums over particles ("pressure", "density") never gathers the
# particles to rank 0 (docs/mpi.md): EDDY_LOG=debug names each gather ("gather of every particle"),
# and there is none; its diagnostics.csv (every column but wall_ms) and probes.csv equal the
# single-process run's byte for byte, and frames.pvd lists as many .pvtp frames, each over N pieces.
# The control: the same run with the csv writer too gathers at every frame on every process. Exit 77
# without mpirun or MPI.
eddy=$1; mpirun=$2; scene=$3; out=$4; steps=$5; n=$6; shift 6
if ! command -v "$mpirun" >/dev/null 2>&1; then echo "skipped: no mpirun ('$mpirun'): install openmpi-bin"; exit 77; fi
if ! "$eddy" --version | grep -q '^processes: MPI'; then echo "skipped: eddy was built without MPI"; exit 77; fi
fail() { echo "reduced.sh: $*" >&2; exit 1; }
probes='probes=[{"name":"p_bottom","kind":"pressure","point":[0.05,0.01]},
{"name":"p_mid","kind":"pressure","point":[0.03,0.05]},{"name":"rho","kind":"density","min":[0,0],"max":[0.1,0.1]},
{"name":"rho_empty","kind":"density","min":[0.5,0.5],"max":[0.6,0.6]}]'
rm -rf "$out"
"$eddy" run "$scene" --steps "$steps" --format vtk --no-picture --quiet --set "$probes" "$@" --out "$out/serial" \
    >"$out.serial.txt" 2>&1 || { cat "$out.serial.txt" >&2; fail "the single-process run failed"; }
EDDY_LOG=debug "$mpirun" --oversubscribe -np "$n" "$eddy" run "$scene" --steps "$steps" --format vtk --no-picture \
    --quiet --set "$probes" "$@" --out "$out/np$n" >"$out.np$n.txt" 2>&1 ||
    { cat "$out.np$n.txt" >&2; fail "the run on $n processes failed"; }
s=$out/serial; p=$out/np$n
g=$(grep -c 'gather of every particle' "$out.np$n.txt")
[ "$g" -eq 0 ] || fail "the run on $n processes gathered the particles $g times (docs/mpi.md: it needs no gather)"
frames=$(grep -c 'file="frames/frame_' "$s/frames.pvd")
[ "$frames" -gt 1 ] || fail "one process wrote $frames frames; the test needs several"
[ "$(grep -c 'file="frames/frame_[0-9]*\.pvtp"' "$p/frames.pvd")" -eq "$frames" ] ||
    fail "$p/frames.pvd does not list $frames .pvtp frames"
for f in "$p"/frames/frame_*.pvtp; do
    [ "$(grep -c '<Piece Source=' "$f")" -eq "$n" ] || fail "$f does not name $n pieces"
done
[ "$(tail -n +2 "$s/probes.csv" | grep -c ',nan$')" -eq "$frames" ] || fail "rho_empty is not NaN in every row"
cmp "$s/probes.csv" "$p/probes.csv" || fail "probes.csv differs from one process's"
cut -d, -f1-9,11- "$s/diagnostics.csv" >"$out.serial.diag"
cut -d, -f1-9,11- "$p/diagnostics.csv" >"$out.np$n.diag"
cmp "$out.serial.diag" "$out.np$n.diag" || fail "diagnostics.csv (without wall_ms) differs from one process's"
# The control: a writer that needs every particle gathers them, once per frame on each process.
EDDY_LOG=debug "$mpirun" --oversubscribe -np "$n" "$eddy" run "$scene" --steps "$steps" --format vtk,csv --no-picture \
    --quiet --set "$probes" "$@" --out "$out/np${n}_csv" >"$out.np${n}_csv.txt" 2>&1 ||
    { cat "$out.np${n}_csv.txt" >&2; fail "the run on $n processes with csv frames failed"; }
g=$(grep -c 'gather of every particle' "$out.np${n}_csv.txt")
[ "$g" -eq $((frames * n)) ] || fail "with csv frames: $g gathers logged, expected $frames frames x $n processes"
cmp "$s/probes.csv" "$out/np${n}_csv/probes.csv" || fail "probes.csv of the gathering run differs from one process's"
echo "$n processes: $frames frames, no gather; diagnostics and probes equal one process's; csv frames gather $g times"
