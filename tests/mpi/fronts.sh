#!/bin/sh
# fronts.sh EDDY MPIRUN SCENE OUT STEPS N [ARG...]: on N processes, the "front" and "height" probes are
# measured from each process's occupied bins (host/observe/probes.c eddy_probes_measure_walks), not
# from particles gathered to rank 0 (docs/mpi.md): a VTK-only run with them logs no "gather of every
# particle" (EDDY_LOG=debug), and its probes.csv equals the single-process run's byte for byte. Twice:
# with the scene's own probes (a dam break declares a front and a height), and with walks of every
# kind mixed with a sum (fronts along -x and y with a short max_gap, heights across a slab boundary,
# along x, walking down, and over dry floor). The front must move over the rows (a test that reads one
# value throughout proves little). Exit 77 without mpirun or MPI.
eddy=$1; mpirun=$2; scene=$3; out=$4; steps=$5; n=$6; shift 6
if ! command -v "$mpirun" >/dev/null 2>&1; then echo "skipped: no mpirun ('$mpirun'): install openmpi-bin"; exit 77; fi
if ! "$eddy" --version | grep -q '^processes: MPI'; then echo "skipped: eddy was built without MPI"; exit 77; fi
fail() { echo "fronts.sh: $*" >&2; exit 1; }
walks='probes=[{"name":"front","kind":"front","axis":"x"},{"name":"back","kind":"front","axis":"-x"},
{"name":"top","kind":"front","axis":"y","max_gap":0.003},
{"name":"h_mid","kind":"height","axis":"y","at":[0.05,0],"width":0.01},
{"name":"h_side","kind":"height","axis":"x","at":[0,0.1],"max_gap":0.004},
{"name":"h_down","kind":"height","axis":"-y","at":[0.03,0.2],"width":0.02},
{"name":"h_dry","kind":"height","axis":"y","at":[0.5,0]},
{"name":"p_bottom","kind":"pressure","point":[0.05,0.01]}]'
rm -rf "$out"
mkdir -p "$out"
# run NAME [ARG...]: one process, then N with EDDY_LOG=debug; the probes must match, with no gather.
run() {
    name=$1; shift
    "$eddy" run "$scene" --steps "$steps" --format vtk --no-picture --quiet "$@" --out "$out/$name.serial" \
        >"$out/$name.serial.txt" 2>&1 ||
        { cat "$out/$name.serial.txt" >&2; fail "$name: the single-process run failed"; }
    EDDY_LOG=debug "$mpirun" --oversubscribe -np "$n" "$eddy" run "$scene" --steps "$steps" --format vtk --no-picture \
        --quiet "$@" --out "$out/$name.np$n" >"$out/$name.np$n.txt" 2>&1 ||
        { cat "$out/$name.np$n.txt" >&2; fail "$name: the run on $n processes failed"; }
    g=$(grep -c 'gather of every particle' "$out/$name.np$n.txt")
    [ "$g" -eq 0 ] || fail "$name: the run on $n processes gathered the particles $g times (front/height need none)"
    rows=$(tail -n +2 "$out/$name.serial/probes.csv" | wc -l)
    [ "$rows" -gt 2 ] || fail "$name: one process wrote $rows probe rows; the test needs several"
    fronts=$(tail -n +2 "$out/$name.serial/probes.csv" | cut -d, -f3 | sort -u | wc -l)
    [ "$fronts" -gt 2 ] || fail "$name: the front reads $fronts distinct values over $rows rows; it must move"
    cmp "$out/$name.serial/probes.csv" "$out/$name.np$n/probes.csv" ||
        fail "$name: probes.csv on $n processes differs from one process's"
    echo "$name: $rows rows, $(head -1 "$out/$name.serial/probes.csv"): equal on $n processes, no gather"
}
run scene "$@"
run walks --set "$walks" "$@"
# h_dry stands on dry floor (0 in every row); h_down walks from above the column down to the floor.
tail -n +2 "$out/walks.serial/probes.csv" | cut -d, -f9 | grep -qv '^0$' && fail "walks: h_dry is not 0 in every row"
exit 0
