#!/bin/sh
# compare.sh EDDY MPIRUN SCENE OUT STEPS N SOLVERS [ARG...]: `eddy compare SCENE --solvers SOLVERS ARG...`
# on N processes writes the report of one process (docs/mpi.md): the summary on stdout and summary.md without the two
# timing columns (ms/step, particle-steps/s) and the "Made by" line (which names N processes), summary.csv without ms_per_step and particle_steps_per_s,
# every solver's diagnostics.csv without wall_ms, and every other file (frames, probes.csv, plots) byte
# for byte. With COMPARE_STATUS=failed every solver must fail, alike on one process and on N (both exit 1),
# and the reports still agree. With COMPARE_BLOCK=PATH a folder stands where each run would write the file
# PATH of its output folder (e.g. sph_mueller/frames/frame_00002.vtp: rank 0 cannot write that sample):
# that solver fails, alike on one process and on N (both exit 1), the others go on, and the reports
# agree but for the folder named in the message. Exit 77 without mpirun or MPI.
eddy=$1; mpirun=$2; scene=$3; out=$4; steps=$5; n=$6; solvers=$7; shift 7
if ! command -v "$mpirun" >/dev/null 2>&1; then echo "skipped: no mpirun ('$mpirun'): install openmpi-bin"; exit 77; fi
if ! "$eddy" --version | grep -q '^processes: MPI'; then echo "skipped: eddy was built without MPI"; exit 77; fi
fail() { echo "compare.sh: $*" >&2; exit 1; }
rm -rf "$out"
mkdir -p "$out"
status=${COMPARE_STATUS:-ok}
want_rc=0; [ "$status" = ok ] && [ -z "${COMPARE_BLOCK:-}" ] || want_rc=1
[ -z "${COMPARE_BLOCK:-}" ] || mkdir -p "$out/serial/$COMPARE_BLOCK" "$out/np$n/$COMPARE_BLOCK"
# (stderr apart: the failed solvers' messages name the folder, and mpirun adds its notices)
"$eddy" compare "$scene" --solvers "$solvers" --steps "$steps" --quiet "$@" --out "$out/serial" >"$out/serial.txt" 2>"$out/serial.err"
rc=$?; [ $rc -eq $want_rc ] || { cat "$out/serial.txt" "$out/serial.err" >&2; fail "the single-process comparison exited $rc, expected $want_rc"; }
"$mpirun" --oversubscribe -np "$n" "$eddy" compare "$scene" --solvers "$solvers" --steps "$steps" --quiet \
    "$@" --out "$out/np$n" >"$out/np$n.txt" 2>"$out/np$n.err"
rc=$?; [ $rc -eq $want_rc ] || { cat "$out/np$n.txt" "$out/np$n.err" >&2; fail "the comparison on $n processes exited $rc, expected $want_rc"; }
s=$out/serial; p=$out/np$n
# The Markdown table without its 5th and 6th cells (ms/step, particle-steps/s) and without the provenance
# line; other lines as they are.
md() { awk -F'|' 'BEGIN { OFS = "|" } /^Made by / { next } /^\| / && NF > 7 { $6 = ""; $7 = "" } { print }' "$1" |
       sed -e "s#$out/serial/#OUT/#g" -e "s#$out/np$n/#OUT/#g"; }
grep -q "^Made by eddy .*; 1 process\.\$" "$s/summary.md" || fail "the single-process summary.md does not say what made it"
grep -q "^Made by eddy .*; $n processes\.\$" "$p/summary.md" || fail "summary.md on $n processes does not say so"
md "$out/serial.txt" >"$out/serial.md.txt"
md "$out/np$n.txt" >"$out/np$n.md.txt"
[ -n "${COMPARE_BLOCK:-}" ] ||
[ "$(grep -c "^| [a-z_]* | $status |" "$out/np$n.md.txt")" -eq "$(echo "$solvers" | tr ',' '\n' | wc -l)" ] ||
    fail "not every solver is $status on $n processes"
cmp "$out/serial.md.txt" "$out/np$n.md.txt" || { diff "$out/serial.md.txt" "$out/np$n.md.txt" >&2; fail "the summary on stdout differs"; }
md "$s/summary.md" >"$out/serial.summary.md"
md "$p/summary.md" >"$out/np$n.summary.md"
cmp "$out/serial.summary.md" "$out/np$n.summary.md" || fail "summary.md differs (timing columns aside)"
# summary.csv: solver,status,end_time,steps,particles,dem,dmax,ke,drift,ms_per_step,particle_steps_per_s,...
head -1 "$s/summary.csv" | grep -q '^solver,status,end_time,steps,particles,[a-z_]*,[a-z_]*,[a-z_]*,[a-z_]*,ms_per_step,particle_steps_per_s' ||
    fail "summary.csv's columns moved: update compare.sh"
cut -d, -f1-9,12- "$s/summary.csv" | sed "s#$s/#OUT/#g" >"$out/serial.summary.csv"
cut -d, -f1-9,12- "$p/summary.csv" | sed "s#$p/#OUT/#g" >"$out/np$n.summary.csv"
cmp "$out/serial.summary.csv" "$out/np$n.summary.csv" || fail "summary.csv differs (timing columns aside)"
files=0
for f in $(cd "$s" && find . -type f ! -name 'summary.*' | sort); do
    [ -f "$p/$f" ] || fail "$f is missing on $n processes"
    case $f in
        */diagnostics.csv)
            head -1 "$s/$f" | cut -d, -f10 | grep -qx wall_ms || fail "$f: wall_ms is not column 10: update compare.sh"
            cut -d, -f1-9,11- "$s/$f" >"$out/a.csv"
            cut -d, -f1-9,11- "$p/$f" >"$out/b.csv"
            cmp "$out/a.csv" "$out/b.csv" || fail "$f differs (wall_ms aside)" ;;
        # (each run's own start time, folder and process count: the count is checked)
        */run.json)
            grep -Eq "\"processes\":[[:space:]]*$n," "$p/$f" || fail "$f does not record $n processes" ;;
        *) cmp "$s/$f" "$p/$f" || fail "$f differs" ;;
    esac
    files=$((files + 1))
done
[ "$files" -ge 6 ] || fail "only $files files written by one process"
[ "$(cd "$p" && find . -type f | wc -l)" -eq "$(cd "$s" && find . -type f | wc -l)" ] || fail "another number of files on $n processes"
echo "$n processes: the report and $files files equal one process's (timing columns aside)"
