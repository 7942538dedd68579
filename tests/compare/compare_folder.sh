#!/bin/sh
# compare_folder.sh CHECK EDDY SCENE DIR: what `eddy compare` leaves in its output folder.
#   rerun      a second, shorter comparison into the folder of a longer one with probes, now without
#              probes: each solver's frames are this run's first and last only (the earlier last frame
#              was left behind, unlisted), no probes.csv, and no probe plot of the earlier scene.
#   interrupt  a SIGINT while the first solver writes its last frame (the test writer raises it; the
#              run itself has ended): exit status 130, the second solver "not run" in summary.csv and
#              named on stderr (the comparison exited 0 as if complete).
#   blocked    summary.md is a folder: exit status 1 before any solver runs (every solver ran first), the
#              error names summary.md once, and no summary.md.tmp is left in the folder (it was).
#   fifo       FIFOs at the temporary names of summary.csv, summary.md and a plot (left by another
#              program): the comparison completes and writes them (opening a FIFO to write waited for a
#              reader forever; the timeout turns that hang into a failure).
#   probes     70 probes: a plot for each, 76 in all, each listed in summary.md (past 72 plots the
#              rest were dropped without a word, exit status 0).
#   old_run    a solver's folder holding a finished `eddy run` (of another solver): the comparison clears
#              it as a run does, its checkpoint and picture too, so `eddy resume` of the folder is refused
#              (it continued the old run among the comparison's rows, an adversarial trial found).
#   stopped    a solver's folder holding an interrupted `eddy run`: the comparison is refused before any
#              solver runs, naming it and how to continue it, and the checkpoint stays.
#   held       an `eddy run` into the second solver's folder while the first solver runs: refused, the
#              folder in use (the comparison held a solver's folder only while that solver ran).
set -u
C=$1; E=$2; S=$3; D=$4
fail() { echo "compare_folder.sh $C: $*" >&2; exit 1; }
rm -rf "$D"
run() { "$E" compare "$S" --quiet --set time.output_interval=0.001 --out "$D" "$@"; }
case $C in
old_run)
    "$E" run "$S" --solver tait --until 0.002 --set time.output_interval=0.001 --quiet --out "$D/sph_mueller" \
        > /dev/null 2>&1 || fail "the run failed"
    [ -f "$D/sph_mueller/checkpoint.eddy" ] && [ -f "$D/sph_mueller/picture.png" ] || fail "the run left no checkpoint and picture"
    run --solvers sph_mueller --until 0.002 > /dev/null || fail "the comparison failed"
    for f in checkpoint.eddy picture.png; do [ ! -e "$D/sph_mueller/$f" ] || fail "the old run's $f is still there"; done
    out=$("$E" resume "$D/sph_mueller" --until 0.003 --quiet 2>&1) && fail "the resume of the comparison's folder ran: $out"
    case $out in *"no checkpoint '$D/sph_mueller/checkpoint.eddy'"*) ;; *) fail "the resume said: $out" ;; esac
    ;;
stopped)
    "$E" run "$S" --solver tait --until 0.003 --set time.output_interval=0.001 --quiet --no-picture \
        --set 'output.format=["vtk","test_writer"]' --set output.writers.test_writer.signal_at_frame=2 \
        --out "$D/tait" > /dev/null 2>&1
    [ $? = 130 ] && [ -f "$D/tait/checkpoint.eddy" ] || fail "the run was not interrupted with its checkpoint"
    out=$(run --solvers pbf,tait --until 0.002 2>&1 >/dev/null) && fail "the comparison ran"
    want="eddy: error: the output folder '$D/tait' holds a run stopped at step 40 (t = 0.002 s) before its end (t = 0.003 s); continue it with \`eddy resume $D/tait\`, or choose another --out"
    case $out in *"$want"*) ;; *) fail "the comparison said: $out" ;; esac
    [ -f "$D/tait/checkpoint.eddy" ] && [ ! -e "$D/pbf/diagnostics.csv" ] || fail "the checkpoint went, or pbf ran"
    ;;
held)
    run --solvers tait,pbf --until 0.05 > /dev/null 2>&1 &
    pid=$!
    n=0
    while [ ! -f "$D/tait/diagnostics.csv" ] && [ $n -lt 600 ]; do sleep 0.1; n=$((n + 1)); done
    out=$("$E" run "$S" --until 0.001 --quiet --no-picture --out "$D/pbf" 2>&1)
    status=$?
    wait $pid || fail "the comparison failed"
    [ $status = 1 ] || fail "the run into pbf's folder exited $status: $out"
    case $out in *"output folder '$D/pbf' is in use by another eddy run"*) ;; *) fail "the run said: $out" ;; esac
    ;;
rerun)
    run --solvers tait,pbf --until 0.004 > /dev/null || fail "the first comparison failed"
    [ -f "$D/tait/frames/frame_00004.vtp" ] && [ -f "$D/plots/probe_front.png" ] && [ -f "$D/tait/probes.csv" ] \
        || fail "the first comparison did not write its last frame, probe plot and probes.csv"
    run --solvers tait --until 0.002 --set 'probes=[]' > /dev/null || fail "the second comparison failed"
    got=$(cd "$D/tait/frames" && echo *)
    [ "$got" = "frame_00000.vtp frame_00002.vtp" ] || fail "tait/frames holds: $got"
    [ ! -e "$D/tait/probes.csv" ] || fail "tait/probes.csv of the earlier scene is still there"
    for p in probe_front probe_height_left_wall; do
        [ ! -e "$D/plots/$p.png" ] || fail "plots/$p.png of the earlier scene is still there"
    done
    [ -f "$D/plots/kinetic_energy.png" ] || fail "no plots/kinetic_energy.png"
    ;;
interrupt)
    out=$(run --solvers tait,pbf --until 0.002 --set 'output.format=["vtk","test_writer"]' \
          --set output.writers.test_writer.signal_at_frame=2 2>&1 >/dev/null)
    status=$?
    printf '%s\n' "$out"
    [ "$status" = 130 ] || fail "exit status $status, expected 130"
    case $out in *"eddy: interrupted by signal 2 (SIGINT); not run: pbf (see $D/summary.md)"*) ;; *) fail "no 'not run' message" ;; esac
    grep -q '^tait,ok,' "$D/summary.csv" || fail "tait is not ok in summary.csv"
    grep -q '^pbf,not run,' "$D/summary.csv" || fail "pbf is not 'not run' in summary.csv"
    ;;
blocked)
    mkdir -p "$D/summary.md"
    out=$(run --solvers tait,pbf --until 0.001 2>&1 >/dev/null)
    status=$?
    printf '%s\n' "$out"
    [ "$status" = 1 ] || fail "exit status $status, expected 1"
    case $out in *"eddy: error: cannot write '$D/summary.md': Is a directory"*) ;; *) fail "no error naming summary.md" ;; esac
    # Said once, not after each solver and again at the end.
    said=$(printf '%s\n' "$out" | grep -c "cannot write '$D/summary.md'")
    [ "$said" = 1 ] || fail "the summary's error is said $said times, expected once"
    [ ! -e "$D/summary.md.tmp" ] || fail "summary.md.tmp left behind"
    [ ! -e "$D/tait/diagnostics.csv" ] || fail "the solvers ran before the summary was found unwritable"
    ;;
fifo)
    mkdir -p "$D/plots"
    mkfifo "$D/summary.csv.tmp" "$D/summary.md.tmp" "$D/plots/kinetic_energy.png.tmp" || fail "mkfifo failed"
    timeout -k 10 120 "$E" compare "$S" --quiet --out "$D" --solvers tait --steps 1 > /dev/null
    status=$?
    [ "$status" = 0 ] || fail "exit status $status, expected 0"
    for f in summary.csv summary.md plots/kinetic_energy.png; do
        [ -f "$D/$f" ] && [ -s "$D/$f" ] || fail "$f is not a written file"
        [ ! -e "$D/$f.tmp" ] || fail "$f.tmp left behind"
    done
    ;;
probes)
    probes=$(i=0; sep=''; printf '['; while [ $i -lt 70 ]; do
        printf '%s{"name": "d%d", "kind": "density", "min": [0, 0], "max": [0.1, 0.1]}' "$sep" $i; sep=', '
        i=$((i + 1)); done; printf ']')
    "$E" compare "$S" --quiet --out "$D" --solvers tait --steps 1 --set "probes=$probes" > /dev/null \
        || fail "the comparison failed"
    n=$(ls "$D/plots" | grep -c '\.png$')
    [ "$n" = 76 ] || fail "$n plots, expected 76"
    for f in plots/probe_d0.png plots/probe_d69.png plots/total_energy.png; do
        [ -f "$D/$f" ] || fail "no $f"
        grep -qF -- "- [$f]($f)" "$D/summary.md" || fail "summary.md does not list $f"
    done
    ;;
*) fail "unknown check" ;;
esac
