#!/bin/sh
# folder_in_use.sh EDDY MPIRUN SCENE DIR: a run and a resume on two processes into a folder another
# process holds (flock(1), the lock eddy takes: host/drive/folder_lock.h) are refused: rank 0 tries the
# lock and every process agrees on its refusal, so the message is said once (not once per process,
# not as "rank K of N: "), every process ends normally (no MPI_Abort, no process left waiting: the
# launch ends within the timeout) with exit status 1, and the folder is byte for byte what it was.
# Before the lock the run ran and replaced the folder's run. Exit 77 without mpirun, MPI or flock(1).
eddy=$1; mpirun=$2; scene=$3; dir=$4
set -u
if ! command -v "$mpirun" >/dev/null 2>&1; then echo "skipped: no mpirun ('$mpirun'): install openmpi-bin"; exit 77; fi
if ! "$eddy" --version | grep -q '^processes: MPI'; then echo "skipped: eddy was built without MPI"; exit 77; fi
command -v flock >/dev/null 2>&1 || { echo "skipped: no flock(1) (util-linux)"; exit 77; }
fail() { echo "folder_in_use.sh: $*" >&2; exit 1; }
rm -rf "$dir" "$dir.kept"
"$mpirun" --oversubscribe -np 2 "$eddy" run "$scene" --steps 20 --quiet --no-picture --out "$dir" ||
    fail "the first run failed"
cp -a "$dir" "$dir.kept"
# refused WHAT TEXT ARG...: `mpirun -np 2 EDDY ARG...` while DIR is held.
refused() {
    what=$1 text=$2; shift 2
    out=$(flock "$dir" timeout 100 "$mpirun" --oversubscribe -np 2 "$eddy" "$@" 2>&1); rc=$?
    printf '%s: %s\n' "$what" "$out"
    [ "$rc" != 124 ] || fail "$what: the processes did not end within 100 s"
    [ "$rc" = 1 ] || fail "$what: exit status $rc, expected 1"
    k=$(printf '%s\n' "$out" | sed 's/rank [0-9]* of [0-9]*: //' | grep -cF -- "$text")
    [ "$k" -eq 1 ] || fail "$what: the output says '$text' $k times, expected once"
    [ "$(printf '%s\n' "$out" | grep -c 'eddy: ')" -eq 1 ] || fail "$what: eddy said more than the refusal"
    ! printf '%s\n' "$out" | grep -q 'MPI_ABORT was invoked' || fail "$what: a process stopped the others with MPI_Abort"
    diff -r "$dir.kept" "$dir" || fail "$what: '$dir' changed"
}
refused run "eddy: error: output folder '$dir' is in use by another eddy run; wait for it to finish or choose another --out" \
    run "$scene" --steps 30 --quiet --no-picture --out "$dir"
refused resume "eddy: error: output folder '$dir' is in use by another eddy run; wait for it to finish" \
    resume "$dir" --steps 30 --quiet --no-picture
# The holder gone, the same run goes ahead and leaves the folder free.
"$mpirun" --oversubscribe -np 2 "$eddy" run "$scene" --steps 30 --quiet --no-picture --out "$dir" ||
    fail "the run after the holder failed"
flock -n "$dir" true || fail "the folder is still locked after the run ended"
echo "refused once on two processes; the folder is as it was"
