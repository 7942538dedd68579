#!/bin/sh
# resume_half_committed.sh EDDY MPIRUN SCENE OUT: a run on 2 processes killed while it put a checkpoint
# in place, after its manifest named the new step and before every process had renamed its staged piece
# (checkpoint.pK.eddy.next) over the old one (host/session/checkpoint_split.c), is resumed: the staged
# pieces the manifest names are read, and the run ends with the hash of the run that was never stopped. Resume refused both
# checkpoints ("does not match the manifest"), or at a run's first checkpoint found no piece at all.
# A staged piece of another step is not taken: the refusal stays. Exit 77 without mpirun or MPI.
eddy=$1; mpirun=$2; scene=$3; out=$4
fail() { echo "resume_half_committed.sh: $*" >&2; exit 1; }
command -v "$mpirun" >/dev/null 2>&1 || { echo "skipped: no mpirun ('$mpirun')"; exit 77; }
"$eddy" --version | grep -q '^processes: MPI' || { echo "skipped: eddy was built without MPI"; exit 77; }
rm -rf "$out" && mkdir -p "$out" || fail "cannot create $out"
mpi() { "$mpirun" --oversubscribe -np 2 "$eddy" "$@"; }
hash_of() { sed -n 's/^state-hash: //p' "$1"; }
q="--quiet --no-picture"
# shellcheck disable=SC2086 # $q is meant to split
mpi run "$scene" --steps 10 $q --out "$out/a" || fail "the run to step 10 failed"
cp -r "$out/a" "$out/at10" || exit 1
# shellcheck disable=SC2086
mpi resume "$out/a" --steps 20 $q || fail "the resume to step 20 failed"
cp -r "$out/a" "$out/at20" || exit 1
mpi resume "$out/a" --steps 30 --hash --quiet >"$out/whole.txt" 2>&1 || fail "the resume to step 30 failed"
want=$(hash_of "$out/whole.txt")
[ -n "$want" ] || fail "no hash from the run that was never stopped"
# half: piece 0 in place, piece 1 still staged beside its step-10 predecessor; first: no piece in place.
cp -r "$out/at20" "$out/half" && mv "$out/half/checkpoint.p1.eddy" "$out/half/checkpoint.p1.eddy.next" &&
    cp "$out/at10/checkpoint.p1.eddy" "$out/half/" || exit 1
cp -r "$out/at20" "$out/first" && for k in 0 1; do
    mv "$out/first/checkpoint.p$k.eddy" "$out/first/checkpoint.p$k.eddy.next" || exit 1
done
# A new run into the folder is refused as into a stopped run's, the folder left as it was (it was cleared).
cp -r "$out/first" "$out/first_run" || exit 1
before=$(find "$out/first_run" -type f | sort | xargs cksum)
mpi run "$scene" --steps 5 --quiet --no-picture --out "$out/first_run" >"$out/first_run.txt" 2>&1 &&
    fail "a new run cleared the checkpoint left half in place"
grep -qF "the output folder '$out/first_run' holds the checkpoint of a run on several processes stopped while it put it in place" \
    "$out/first_run.txt" || { cat "$out/first_run.txt"; fail "not the refusal of a new run"; }
[ "$(find "$out/first_run" -type f | sort | xargs cksum)" = "$before" ] || fail "the refused run changed the folder"
for case in half first; do
    mpi resume "$out/$case" --steps 30 --hash --quiet >"$out/$case.txt" 2>&1 || { cat "$out/$case.txt"; fail "$case: the resume failed"; }
    [ "$(hash_of "$out/$case.txt")" = "$want" ] || fail "$case: hash $(hash_of "$out/$case.txt"), the unstopped run's $want"
    grep -qF "eddy: warning: checkpoint piece '$out/$case/checkpoint.p1.eddy' is missing or older than its manifest '$out/$case/checkpoint.manifest': reading its staged successor '$out/$case/checkpoint.p1.eddy.next', which the manifest names (the run was stopped while it put its checkpoint in place)" \
        "$out/$case.txt" || { cat "$out/$case.txt"; fail "$case: the staged piece read is not said"; }
    # (the resumed run's own checkpoint replaced both)
    [ ! -e "$out/$case/checkpoint.p1.eddy.next" ] || fail "$case: the staged piece is still there after the resume"
done
# A staged piece of another step than the manifest's is not put in place.
cp -r "$out/at20" "$out/other" && cp "$out/at10/checkpoint.p1.eddy" "$out/other/" &&
    cp "$out/at10/checkpoint.p1.eddy" "$out/other/checkpoint.p1.eddy.next" || exit 1
mpi resume "$out/other" --steps 30 --quiet >"$out/other.txt" 2>&1 && fail "other: a piece of step 10 was resumed under the manifest of step 20"
grep -qF "eddy: error: checkpoint piece '$out/other/checkpoint.p1.eddy' does not match the manifest '$out/other/checkpoint.manifest'" \
    "$out/other.txt" || { cat "$out/other.txt"; fail "other: not the refusal of a piece of another step"; }
[ -e "$out/other/checkpoint.p1.eddy.next" ] || fail "other: the staged piece of another step was moved"
echo "resume_half_committed.sh: a checkpoint left half in place is finished and resumed exactly"
