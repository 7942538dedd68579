#!/bin/sh
# folder_in_use.sh EDDY SCENE DIR: an output folder another process holds (flock(1) here, which takes the
# lock eddy takes: host/drive/folder_lock.h) is refused by run, resume, compare (the comparison's folder,
# and a solver's folder) and validate, each with its exact message and exit status 1, and the folder is
# byte for byte what it was (diff -r against a copy taken before). Once the holder is gone a run and a
# resume go ahead, and leave neither a lock file nor a held lock behind. Before the lock the refused
# commands ran: run cleared the held folder's frames and wrote its own, resume continued it.
eddy=$1 scene=$2 dir=$3
set -u
fail() { echo "folder_in_use.sh: $*" >&2; exit 1; }
command -v flock >/dev/null 2>&1 || { echo "skipped: no flock(1) (util-linux)"; exit 77; }
rm -rf "$dir" "$dir.kept" "$dir.cmp" "$dir.cmp.kept" "$dir.val" "$dir.val.kept"
"$eddy" run "$scene" --steps 20 --quiet --no-picture --out "$dir" || fail "the first run failed"
cp -a "$dir" "$dir.kept"

# refused WHAT STATUS TEXT HELD KEPT CMD...: CMD run while HELD is locked by flock(1) exits STATUS, says
# exactly TEXT (its whole output), and HELD is the same as its copy KEPT.
refused() {
    what=$1 want=$2 text=$3 held=$4 kept=$5; shift 5
    got=$(flock "$held" "$@" 2>&1); status=$?
    printf '%s: %s\n' "$what" "$got"
    [ "$status" = "$want" ] || fail "$what: exit status $status, expected $want"
    [ "$got" = "$text" ] || fail "$what: the output is not exactly: $text"
    diff -r "$kept" "$held" || fail "$what: '$held' changed"
}
refused run 1 "eddy: error: output folder '$dir' is in use by another eddy run; wait for it to finish or choose another --out" \
    "$dir" "$dir.kept" "$eddy" run "$scene" --steps 30 --quiet --no-picture --out "$dir"
refused resume 1 "eddy: error: output folder '$dir' is in use by another eddy run; wait for it to finish" \
    "$dir" "$dir.kept" "$eddy" resume "$dir" --steps 30 --quiet --no-picture
# (a picture too: a refused run must not leave one in a folder that had none)
refused run_picture 1 "eddy: error: output folder '$dir' is in use by another eddy run; wait for it to finish or choose another --out" \
    "$dir" "$dir.kept" "$eddy" run "$scene" --steps 30 --quiet --out "$dir"

# compare: its folder, then one solver's folder within it (every solver's folder is held from the start,
# as the comparison's own: the comparison is refused before any solver runs).
"$eddy" compare "$scene" --solvers tait --steps 2 --quiet --out "$dir.cmp" >/dev/null || fail "the first comparison failed"
cp -a "$dir.cmp" "$dir.cmp.kept"
refused compare 1 "eddy: error: output folder '$dir.cmp' is in use by another eddy run; wait for it to finish or choose another --out" \
    "$dir.cmp" "$dir.cmp.kept" "$eddy" compare "$scene" --solvers tait --steps 3 --quiet --out "$dir.cmp"
got=$(flock "$dir.cmp/tait" "$eddy" compare "$scene" --solvers tait,pbf --steps 3 --quiet --out "$dir.cmp" 2>&1); status=$?
printf 'compare_solver: %s\n' "$got"
[ "$status" = 1 ] || fail "compare_solver: exit status $status, expected 1"
case "$got" in *"eddy: error: output folder '$dir.cmp/tait' is in use by another eddy run; wait for it to finish or choose another --out"*) ;;
    *) fail "compare_solver: tait's folder's refusal is not said" ;; esac
diff -r "$dir.cmp.kept/tait" "$dir.cmp/tait" || fail "compare_solver: '$dir.cmp/tait' changed"
[ ! -e "$dir.cmp/pbf/diagnostics.csv" ] || fail "compare_solver: pbf ran"

# validate: refused before any case runs.
mkdir -p "$dir.val" && echo "an earlier report" >"$dir.val/report.md" && cp -a "$dir.val" "$dir.val.kept"
refused validate 1 "eddy: error: output folder '$dir.val' is in use by another eddy run; wait for it to finish or choose another --out" \
    "$dir.val" "$dir.val.kept" "$eddy" validate --solver tait --case hydrostatic_tank --resolution coarse --quiet --out "$dir.val"

# The holder gone: a run and a resume go ahead, and hold nothing after they end.
flock "$dir" true || fail "flock could not take the folder"
"$eddy" run "$scene" --steps 30 --quiet --no-picture --out "$dir" || fail "the run after the holder failed"
flock -n "$dir" true || fail "the folder is still locked after the run ended"
"$eddy" resume "$dir" --steps 40 --quiet --no-picture || fail "the resume after the holder failed"
flock -n "$dir" true || fail "the folder is still locked after the resume ended"
[ "$(ls -A "$dir" | tr '\n' ' ')" = "checkpoint.eddy diagnostics.csv frames frames.pvd probes.csv run.json " ] ||
    fail "the folder holds other files than the run's: $(ls -A "$dir" | tr '\n' ' ')"
echo "every command into a held folder was refused and left it as it was"
