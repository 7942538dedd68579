#!/bin/sh
# foreign_checkpoint.sh EDDY EXPECT SCENE OTHER_SCENE DIR
# A checkpoint copied into a finished run's folder from another run (another scene, the same scene with
# another --set value, another solver) is refused before anything is written, naming both files and what
# differs: it was resumed with status 0, and frames.pvd listed both runs' frames, probes.csv got the
# other scene's header over the old rows, and run.json still described the folder's run. A checkpoint
# of another run of the very same scene is told by the run_id both files carry. The run's own
# checkpoint still resumes, in its folder moved elsewhere too (the scene's output.dir is then another
# path), and again after that resume (whose checkpoint is written from the resumed session).
E=$1; X=$2; S=$3; O=$4; D=$5
fail() { echo "foreign_checkpoint.sh: $*"; exit 1; }
# (every case is tried, and each one that fails said, before the status)
bad=0
miss() { echo "foreign_checkpoint.sh: $*"; bad=1; }
rm -rf "$D" && mkdir -p "$D" || exit 1
q="--quiet --no-picture"
# shellcheck disable=SC2086 # $q is meant to split
{ "$E" run "$S" --steps 20 $q --out "$D/run" &&
  "$E" run "$O" --steps 10 $q --out "$D/other_scene" &&
  "$E" run "$S" --steps 20 $q --set 'materials[0].viscosity=0.2' --out "$D/other_set" &&
  "$E" run "$S" --steps 20 $q --solver tait --out "$D/other_solver" &&
  "$E" run "$S" --steps 20 $q --out "$D/twin"; } || fail "the runs failed"

files() { find "$1" -type f | sort | xargs cksum; }
# refused FROM INTO WHAT: the checkpoint of FROM copied into a copy of INTO is refused naming WHAT, and
# the copy's files are as they were.
refused() {
    into=$D/$1_in_$2; rm -rf "$into" && cp -r "$D/$2" "$into" && cp "$D/$1/checkpoint.eddy" "$into/" || exit 1
    before=$(files "$into")
    # shellcheck disable=SC2086
    sh "$X" 1 "checkpoint '$into/checkpoint.eddy' is not of the run that '$into/run.json' records: $3; resuming it would continue another run among this folder's frames and tables; move the checkpoint away, or resume it in the folder of the run it came from (nothing was written)" \
        "$E" resume "$into" --steps 40 $q || miss "the checkpoint of $1 resumed in $2's folder"
    [ "$(files "$into")" = "$before" ] || miss "the refused resume of $1's checkpoint changed $into"
}
# (the names and values as the scene files and the --set above give them)
refused run other_scene "its scene's 'name' is \"dam_break_2d\", the run's \"drop_into_pool\""
refused other_set run "its scene's 'materials[0].viscosity' is 0.2, the run's 0.1"
refused other_solver run "its solver is 'tait', the run's 'sph_mueller'"
run_id() { sed -n 's/^[[:space:]]*"run_id":[[:space:]]*"\([0-9a-f]*\)".*/\1/p' "$1/run.json"; }
[ "$(run_id "$D/run" | wc -c)" = 33 ] || fail "no run_id of 32 hex digits in $D/run/run.json"
[ "$(run_id "$D/run")" != "$(run_id "$D/twin")" ] || fail "two runs have one run_id"
refused twin run "it is of another run of the same scene (run_id '$(run_id "$D/twin")', the run's '$(run_id "$D/run")')"

mv "$D/run" "$D/moved" || exit 1
# shellcheck disable=SC2086
"$E" resume "$D/moved" --steps 40 $q || miss "the run's own checkpoint was refused in its moved folder"
# shellcheck disable=SC2086
"$E" resume "$D/moved" --steps 60 $q || miss "the checkpoint of the resumed run was refused"
# (the resumed run's checkpoint still carries the run's id: refused in the twin's folder by it)
cp -r "$D/moved" "$D/run" || exit 1
refused run twin "it is of another run of the same scene (run_id '$(run_id "$D/run")', the run's '$(run_id "$D/twin")')"
[ $bad = 0 ] && echo "foreign checkpoints refused, the run's own resumed"
exit $bad
