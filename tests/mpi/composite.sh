#!/bin/sh
# composite.sh EDDY MPIRUN SCENE OUT STEPS N [ARG...]: on N processes, picture.png and the --render frames
# are composited from every process's own drawing (host/viz/composite.h), byte for byte the PNGs one
# process writes of the same run (cmp). A run writing VTK pieces and the picture or rendered frames never gathers the
# particles to rank 0 (EDDY_LOG=debug names each gather "gather of every particle"; there is none), and
# its frames are .pvtp over N pieces (so the run was split). Exit 77 without mpirun or MPI.
eddy=$1; mpirun=$2; scene=$3; out=$4; steps=$5; n=$6; shift 6
if ! command -v "$mpirun" >/dev/null 2>&1; then echo "skipped: no mpirun ('$mpirun'): install openmpi-bin"; exit 77; fi
if ! "$eddy" --version | grep -q '^processes: MPI'; then echo "skipped: eddy was built without MPI"; exit 77; fi
fail() { echo "composite.sh: $*" >&2; exit 1; }
rm -rf "$out"
# The picture alone (vtk writer, no probes: "front"/"height" probes gather by themselves): no gather.
"$eddy" run "$scene" --steps "$steps" --format vtk --quiet --set 'probes=[]' "$@" --out "$out/serial" \
    >"$out.serial.txt" 2>&1 ||
    { cat "$out.serial.txt" >&2; fail "the single-process run failed"; }
EDDY_LOG=debug "$mpirun" --oversubscribe -np "$n" "$eddy" run "$scene" --steps "$steps" --format vtk --quiet \
    --set 'probes=[]' "$@" --out "$out/np$n" >"$out.np$n.txt" 2>&1 ||
    { cat "$out.np$n.txt" >&2; fail "the run on $n processes failed"; }
s=$out/serial; p=$out/np$n
[ -s "$s/picture.png" ] || fail "one process wrote no picture.png"
f=$(ls "$p"/frames/frame_*.pvtp 2>/dev/null | tail -n 1)
[ -n "$f" ] && [ "$(grep -c '<Piece Source=' "$f")" -eq "$n" ] ||
    fail "the run on $n processes wrote no .pvtp over $n pieces"
g=$(grep -c 'gather of every particle' "$out.np$n.txt")
[ "$g" -eq 0 ] || fail "the run on $n processes gathered the particles $g times for VTK pieces and the picture"
cmp "$s/picture.png" "$p/picture.png" || fail "picture.png on $n processes differs from one process's"
# Rendered frames (the scene's default camera and field).
"$eddy" run "$scene" --steps "$steps" --format vtk --render --no-picture --quiet --set 'probes=[]' "$@" \
    --out "$out/serial_render" >"$out.serial_render.txt" 2>&1 ||
    { cat "$out.serial_render.txt" >&2; fail "the single-process --render run failed"; }
EDDY_LOG=debug "$mpirun" --oversubscribe -np "$n" "$eddy" run "$scene" --steps "$steps" --format vtk --render \
    --no-picture --quiet --set 'probes=[]' "$@" --out "$out/np${n}_render" >"$out.np${n}_render.txt" 2>&1 ||
    { cat "$out.np${n}_render.txt" >&2; fail "the --render run on $n processes failed"; }
frames=0
for a in "$out"/serial_render/render/frame_*.png; do
    [ -f "$a" ] || fail "one process rendered no frame"
    b=$out/np${n}_render/render/$(basename "$a")
    [ -f "$b" ] || fail "the run on $n processes did not write $b"
    cmp "$a" "$b" || fail "$(basename "$a") on $n processes differs from one process's"
    frames=$((frames + 1))
done
[ "$frames" -gt 1 ] || fail "one process rendered $frames frames; the test needs several"
[ "$(ls "$out/np${n}_render/render" | grep -c '^frame_.*\.png$')" -eq "$frames" ] ||
    fail "the run on $n processes rendered another number of frames than $frames"
gr=$(grep -c 'gather of every particle' "$out.np${n}_render.txt")
[ "$gr" -eq 0 ] || fail "the --render run on $n processes gathered the particles $gr times"
echo "$n processes: picture.png and $frames rendered frames equal one process's; no gather"
