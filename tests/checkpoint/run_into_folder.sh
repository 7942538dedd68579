#!/bin/sh
# run_into_folder.sh EDDY CKEDIT SCENE DIR: `eddy run` into a folder that holds a run (run_folder.c).
#  - A finished run is replaced whole: after a run of 300 steps (frames 0-2), a run of 50 steps into the
#    same folder leaves exactly its own frames (0-1) and a frames.pvd naming them; the older run's
#    frame 2 once stayed behind, unlisted.
#  - ... and so are its probe table (when the new run has no probes) and stray checkpoint pieces, which
#    without a manifest do not count as a checkpoint, and the temporary files of writes killed half-way;
#  - a folder that shows no eddy run keeps every file (render/frame_of_my_holiday.png), run after run,
#    and one holding files of the names an eddy run writes there (the user's run.json, picture.png,
#    movie.mp4, frames/frame_00001.csv) is refused, naming them;
#  - A run stopped before its end (here: its checkpoint's end moved to step 400 with ckedit, as a run
#    interrupted at step 300 of 400 would store it) is refused with the exact message, exit 1, and the
#    folder keeps its checkpoint, diagnostics and frames byte for byte.
eddy=$1 ckedit=$2 scene=$3 dir=$4
set -u
fail() { echo "run_into_folder.sh: $*" >&2; exit 1; }
rm -rf "$dir" "$dir.kept"
run() { "$eddy" run "$scene" --quiet --no-picture --format vtk,csv --out "$dir" "$@"; }
run --steps 300 || fail "the first run failed"
[ -f "$dir/frames/frame_00002.vtp" ] || fail "the first run wrote no frame 2"
run --steps 50 || fail "the second run failed"
frames=$(cd "$dir/frames" && ls | tr '\n' ' ')
[ "$frames" = "frame_00000.csv frame_00000.vtp frame_00001.csv frame_00001.vtp " ] ||
    fail "after the shorter run the frames are: $frames"
[ "$(grep -c '<DataSet' "$dir/frames.pvd")" = 2 ] || fail "frames.pvd does not name exactly the 2 frames"
: > "$dir/checkpoint.p3.eddy"
run --steps 40 --set 'probes=[]' || fail "the run without probes (and a stray piece) failed"
[ ! -e "$dir/probes.csv" ] || fail "the older run's probes.csv was left behind"
[ ! -e "$dir/checkpoint.p3.eddy" ] || fail "the stray checkpoint piece was left behind"
# The files a write killed half-way (kill -9) leaves behind go with the run they belonged to; a user's
# file that merely ends in .tmp stays.
for f in checkpoint.eddy.tmp checkpoint.manifest.tmp checkpoint.p1.eddy.next frames.pvd.tmp probes.csv.tmp \
         frames/frame_00007.vtp.tmp frames/frame_00001.csv.tmp render/frame_00004.png.tmp; do
    mkdir -p "$(dirname "$dir/$f")" && : > "$dir/$f" || fail "cannot make $f"
done
echo me > "$dir/notes.tmp"
run --steps 40 || fail "the run into a folder with a killed write's leftovers failed"
left=$(cd "$dir" && find . -name '*.tmp' -o -name '*.next' | sort | tr '\n' ' ')
[ "$left" = "./notes.tmp " ] || fail "after the run these temporaries remain: $left"
mine="$dir.mine"
rm -rf "$mine" && mkdir -p "$mine/render" && echo me > "$mine/render/frame_of_my_holiday.png" &&
    echo me > "$mine/notes.txt" || fail "cannot set up $mine"
for k in 1 2; do
    "$eddy" run "$scene" --quiet --no-picture --steps 5 --out "$mine" || fail "run $k into a folder of the user's failed"
done
for f in render/frame_of_my_holiday.png notes.txt; do
    [ "$(cat "$mine/$f")" = me ] || fail "the user's $f was removed or changed"
done
# A folder of the user's that holds files of the names an eddy run writes there (their run.json,
# picture.png, movie.mp4 and a frame named as eddy's) is refused, naming them, and keeps them, whether
# this run writes them or not (--no-picture, no movie): the next run would find this one's files and
# clear a run's names. An eddy run record alone (a run killed before its first table) is eddy's, and the
# run goes on.
theirs="$dir.theirs"
rm -rf "$theirs" && mkdir -p "$theirs/frames" && echo me > "$theirs/picture.png" && echo '{"mine": 1}' > "$theirs/run.json" &&
    echo me > "$theirs/movie.mp4" && echo me > "$theirs/frames/frame_00001.csv" && echo me > "$theirs/notes.txt" ||
    fail "cannot set up $theirs"
got=$("$eddy" run "$scene" --quiet --no-picture --steps 5 --out "$theirs" 2>&1); status=$?
want="eddy: error: the output folder '$theirs' holds run.json, picture.png and movie.mp4, which no eddy run wrote there (it shows no checkpoint, frames.pvd or diagnostics.csv) and runs into it would overwrite or remove; move them away or choose another --out"
[ $status = 1 ] || fail "exit status $status into a folder of the user's files, expected 1: $got"
[ "$got" = "$want" ] || fail "expected: $want, got: $got"
[ "$(cat "$theirs/run.json")" = '{"mine": 1}' ] || fail "the user's run.json was changed"
for f in picture.png movie.mp4 frames/frame_00001.csv notes.txt; do
    [ "$(cat "$theirs/$f")" = me ] || fail "the user's $f was removed or changed"
done
rm -rf "$theirs" && mkdir -p "$theirs" && printf '{"format": "eddy.run/1", "commands": []}' > "$theirs/run.json" || fail "cannot set up $theirs"
"$eddy" run "$scene" --quiet --no-picture --steps 5 --out "$theirs" || fail "the run over an eddy run record alone failed"
run --steps 50 || fail "the run after the one without probes failed"
"$ckedit" "$dir/checkpoint.eddy" setting end_steps 400 || fail "ckedit failed"
cp -r "$dir" "$dir.kept"
got=$(run --steps 10 2>&1); status=$?
printf '%s\n' "$got"
want="eddy: error: the output folder '$dir' holds a run stopped at step 50 (t = 0.0025 s) before its end (step 400); continue it with \`eddy resume $dir\`, or choose another --out (a new run would delete its checkpoint)"
[ $status = 1 ] || fail "exit status $status into a stopped run, expected 1"
[ "$got" = "$want" ] || fail "expected: $want"
for f in checkpoint.eddy diagnostics.csv frames.pvd frames/frame_00001.vtp; do
    cmp -s "$dir/$f" "$dir.kept/$f" || fail "$f changed after the refusal"
done
echo "a finished run replaced whole; a stopped one refused and kept"
