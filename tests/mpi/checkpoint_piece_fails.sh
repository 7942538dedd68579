#!/bin/sh
# checkpoint_piece_fails.sh EDDY MPIRUN SCENE OUT: a run on 2 processes to step 40 leaves its checkpoint;
# a resume to step 60 whose rank 0 cannot write its piece (a folder stands in its way) fails; the
# checkpoint of step 40 must still resume, to a state-hash equal to a run straight to step 80. (Each
# process put its new piece in place before knowing the other's had failed: the folder then held the
# step-40 manifest and piece 0 beside a step-60 piece 1, and no resume was possible.) A manifest that
# cannot be written leaves the previous checkpoint too. Exit 77 without MPI.
eddy=$1; mpirun=$2; scene=$3; out=$4
fail() { echo "checkpoint_piece_fails.sh: $*" >&2; exit 1; }
command -v "$mpirun" >/dev/null 2>&1 || { echo "skipped: no mpirun ('$mpirun')"; exit 77; }
"$eddy" --version | grep -q '^processes: MPI' || { echo "skipped: eddy was built without MPI"; exit 77; }
rm -rf "$out" "$out.straight"
run() { "$mpirun" --oversubscribe -np 2 "$eddy" "$@" --quiet --no-picture; }
run run "$scene" --steps 40 --out "$out" || fail "the run to step 40"
# (a folder in the way of the file the piece is staged in; the message names the piece the user resumes
# from, not the staged file, and says that the previous one is kept)
mkdir "$out/checkpoint.p0.eddy.next"
run resume "$out" --steps 60 >"$out.log" 2>&1 && fail "the resume with piece 0 blocked succeeded"
grep -qxF "eddy: error: cannot write checkpoint '$out/checkpoint.p0.eddy': creating '$out/checkpoint.p0.eddy.next': Is a directory; the previous checkpoint there is kept unchanged" "$out.log" ||
    fail "the failed resume does not name the piece and that it is kept: $(cat "$out.log")"
rmdir "$out/checkpoint.p0.eddy.next"
[ ! -e "$out/checkpoint.p1.eddy.next" ] || fail "piece 1's unused new piece was left behind"
h=$(run resume "$out" --steps 80 --hash 2>"$out.log") || fail "the step-40 checkpoint no longer resumes: $(cat "$out.log")"
want=$(run run "$scene" --steps 80 --hash --out "$out.straight") || fail "the run straight to step 80"
[ -n "$h" ] && [ "$h" = "$want" ] || fail "resumed: '$h', straight: '$want'"
# A manifest rank 0 cannot write (a folder in the way of its temporary file): rank 0's message, said once
# by every process's agreement, status 1 (the others said "rank 0 could not write the manifest", the
# messages differed, and the processes stopped with MPI_Abort).
mkdir "$out/checkpoint.manifest.tmp"
run resume "$out" --steps 100 >"$out.manifest.log" 2>&1
status=$?
cat "$out.manifest.log"
[ "$status" -eq 1 ] || fail "manifest blocked: exit status $status, expected 1"
[ "$(grep -c '^eddy: ' "$out.manifest.log")" -eq 1 ] || fail "manifest blocked: more than one line said"
grep -qxF "eddy: error: cannot write '$out/checkpoint.manifest': Is a directory" "$out.manifest.log" ||
    fail "manifest blocked: not rank 0's message"
! grep -q "MPI_ABORT" "$out.manifest.log" || fail "manifest blocked: an MPI_Abort"
rmdir "$out/checkpoint.manifest.tmp"
# ... and the step-80 checkpoint is still whole: the pieces were put in place before the manifest, which
# then named the old step, and no resume was possible.
[ ! -e "$out/checkpoint.p0.eddy.next" ] && [ ! -e "$out/checkpoint.p1.eddy.next" ] || fail "manifest blocked: staged pieces left"
h2=$(run resume "$out" --steps 100 --hash 2>"$out.log") || fail "after the blocked manifest, no resume: $(cat "$out.log")"
want2=$(run run "$scene" --steps 100 --hash --out "$out.straight") || fail "the run straight to step 100"
[ -n "$h2" ] && [ "$h2" = "$want2" ] || fail "after the blocked manifest: resumed '$h2', straight '$want2'"
echo "checkpoint_piece_fails.sh: the previous checkpoint survived the failed one and resumed to $h; a blocked manifest is said once and leaves the previous checkpoint, resumed to $h2"
