#!/bin/sh
# output.sh EDDY MPIRUN SCENE OUT STEPS N [ARG...]: the output of SCENE on N processes is one dataset equal to the
# single-process run's (docs/mpi.md): frames.pvd lists one .pvtp per frame, each naming N pieces that
# exist and whose particle counts add up to the single-process frame's; the CSV frames (written by
# rank 0 from the gathered particles), probes.csv, picture.png and diagnostics.csv (every column but
# wall_ms) equal the single-process files byte for byte. Exit 77 without mpirun or MPI.
eddy=$1; mpirun=$2; scene=$3; out=$4; steps=$5; n=$6; shift 6
if ! command -v "$mpirun" >/dev/null 2>&1; then echo "skipped: no mpirun ('$mpirun'): install openmpi-bin"; exit 77; fi
if ! "$eddy" --version | grep -q '^processes: MPI'; then echo "skipped: eddy was built without MPI"; exit 77; fi
fail() { echo "output.sh: $*" >&2; exit 1; }
rm -rf "$out"
"$eddy" run "$scene" --steps "$steps" --format vtk,csv --quiet "$@" --out "$out/serial" >"$out.serial.txt" 2>&1 ||
    { cat "$out.serial.txt" >&2; fail "the single-process run failed"; }
"$mpirun" --oversubscribe -np "$n" "$eddy" run "$scene" --steps "$steps" --format vtk,csv --quiet \
    "$@" --out "$out/np$n" >"$out.np$n.txt" 2>&1 || { cat "$out.np$n.txt" >&2; fail "the run on $n processes failed"; }
s=$out/serial; p=$out/np$n
# Sum of NumberOfPoints over the pieces a .pvtp names (pieces are relative to its folder).
frames=$(sed -n 's/.*file="\(frames\/frame_[0-9]*\.pvtp\)".*/\1/p' "$p/frames.pvd")
[ -n "$frames" ] || fail "$p/frames.pvd lists no .pvtp frame"
count=0
for f in $frames; do
    count=$((count + 1))
    [ -f "$p/$f" ] || fail "$p/frames.pvd lists $f, which does not exist"
    pieces=$(sed -n 's/.*<Piece Source="\([^"]*\)".*/\1/p' "$p/$f")
    [ "$(echo "$pieces" | wc -l)" -eq "$n" ] || fail "$p/$f names $(echo "$pieces" | wc -l) pieces, not $n"
    total=0
    for q in $pieces; do
        [ -f "$p/frames/$q" ] || fail "$p/$f names piece $q, which does not exist"
        k=$(sed -n 's/.*<Piece NumberOfPoints="\([0-9]*\)".*/\1/p' "$p/frames/$q")
        total=$((total + k))
    done
    one=$(sed -n 's/.*<Piece NumberOfPoints="\([0-9]*\)".*/\1/p' "$s/${f%.pvtp}.vtp")
    [ -n "$one" ] && [ "$total" -eq "$one" ] || fail "$f: the pieces hold $total particles, one process's frame $one"
done
[ "$count" -eq "$(grep -c 'file="frames/frame_' "$s/frames.pvd")" ] || fail "$count frames, one process wrote another count"
for f in "$s"/frames/*.csv; do
    cmp "$f" "$p/frames/$(basename "$f")" || fail "frames/$(basename "$f") differs from one process's"
done
cmp "$s/probes.csv" "$p/probes.csv" || fail "probes.csv differs from one process's"
cmp "$s/picture.png" "$p/picture.png" || fail "picture.png differs from one process's"
cut -d, -f1-9,11- "$s/diagnostics.csv" >"$out.serial.diag"
cut -d, -f1-9,11- "$p/diagnostics.csv" >"$out.np$n.diag"
cmp "$out.serial.diag" "$out.np$n.diag" || fail "diagnostics.csv (without wall_ms) differs from one process's"
[ ! -e "$p/rank-1" ] || fail "a rank-1 folder was written"
echo "$n processes: $count frames as .pvtp over $n pieces; csv frames, probes, picture, diagnostics equal"
