#!/bin/sh
# folder_two_runs.sh EDDY SCENE DIR: two eddy runs into one folder at once. Run A starts; once its first
# frames are on disk it is stopped (SIGSTOP, so that it is still running whatever the machine's speed),
# run B into the same folder must be refused with the exact message while A holds the folder (flock -n
# cannot take it either), A is continued and must end normally, and the folder must hold A's run alone,
# as a run of the same settings into a fresh folder writes it (diff -r; diagnostics.csv without its
# wall_ms column; the checkpoint, which names its folder, by the state hash, which --hash prints).
# Before the lock B cleared A's frames and wrote its own run, then A wrote on: mixed frames, a
# diagnostics.csv of B's rows then A's.
eddy=$1 scene=$2 dir=$3
set -u
command -v flock >/dev/null 2>&1 || { echo "skipped: no flock(1) (util-linux)"; exit 77; }
a=
fail() {
    echo "folder_two_runs.sh: $*" >&2
    if [ -n "$a" ]; then kill -CONT "$a" 2>/dev/null; kill "$a" 2>/dev/null; fi
    exit 1
}
rm -rf "$dir" "$dir.ref"
# (the hash files below sit beside the folders: their parent must exist before the first run makes it)
mkdir -p "$(dirname "$dir")" || fail "cannot make the parent of $dir"
"$eddy" run "$scene" --steps 1200 --threads 2 --quiet --hash --out "$dir.ref" >"$dir.ref.hash" ||
    fail "the reference run failed"
# (a plain command, not a shell function: $! must be eddy itself, not a subshell whose child SIGSTOP
# would not reach)
"$eddy" run "$scene" --steps 1200 --threads 2 --quiet --hash --out "$dir" >"$dir.hash" &
a=$!
n=0
until [ -f "$dir/frames/frame_00001.vtp" ]; do
    kill -0 "$a" 2>/dev/null || fail "run A ended before its second frame"
    n=$((n + 1))
    [ $n -lt 2400 ] || fail "run A wrote no second frame in 120 s"
    sleep 0.05
done
kill -STOP "$a"
# Stopped for certain (state T in /proc), or A ended between its frame and the signal: then B would not
# be tested. (The state changes when A takes the signal: a moment after kill.)
n=0
while st=$(sed 's/.*) //' "/proc/$a/stat" 2>/dev/null | cut -d' ' -f1); [ "$st" != T ]; do
    case $st in '' | Z | X) fail "run A ended before run B could try the folder" ;; esac
    n=$((n + 1))
    [ $n -lt 100 ] || fail "run A did not stop in 5 s"
    sleep 0.05
done
flock -n "$dir" true && fail "flock took the folder while run A holds it"
got=$("$eddy" run "$scene" --steps 40 --threads 2 --quiet --out "$dir" 2>&1); status=$?
printf 'run B: %s\n' "$got"
kill -CONT "$a"
[ "$status" = 1 ] || fail "run B: exit status $status, expected 1"
[ "$got" = "eddy: error: output folder '$dir' is in use by another eddy run; wait for it to finish or choose another --out" ] ||
    fail "run B: not the refusal"
wait "$a"; sa=$?
a=
[ "$sa" = 0 ] || fail "run A: exit status $sa"
cut -d, -f1-9,11- "$dir.ref/diagnostics.csv" >"$dir.ref.diag"
cut -d, -f1-9,11- "$dir/diagnostics.csv" >"$dir.diag"
cmp "$dir.ref.diag" "$dir.diag" || fail "diagnostics.csv is not run A's alone"
diff -r -x diagnostics.csv -x checkpoint.eddy -x run.json "$dir.ref" "$dir" || fail "the folder is not run A's alone"
# run.json records run A's command alone (its output folder, its start time: not the reference's)
[ "$(grep -c '"command":' "$dir/run.json")" = 1 ] && grep -q "\"--out\", \"$dir\"\]" "$dir/run.json" ||
    fail "run.json does not record run A alone"
cmp "$dir.ref.hash" "$dir.hash" || fail "run A's state hash is not the reference run's"
echo "run B was refused; the folder holds run A's run alone"
