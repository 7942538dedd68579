#!/bin/sh
# killed_before_checkpoint.sh EDDY SCENE DIR TEST_PLUGINS: a run killed (SIGKILL: a scheduler's kill, out of memory,
# a lost node) before its first checkpoint leaves frames and tables that nothing can continue, and a
# resubmitted `eddy run` into its folder deleted them without a word (an HPC trial: 220 MB). run.json
# now records how each run and resume ended ("ended": {"outcome", "at", "time", "step"[, "message"]},
# null while it runs): such a folder is refused, naming the command that never ended, and left as it
# was; a run that ended, finished or interrupted, says so and is replaced as before.
E=$1; S=$2; D=$3; PLUGINS=$4 # (the test plugins: exploding_solver)
fail() { echo "killed_before_checkpoint.sh: $*" >&2; exit 1; }
rm -rf "$D" && mkdir -p "$D" || exit 1
. "$(dirname "$0")/signal_at_file.sh"
signal_at_file 9 "$D/killed/frames/frame_00002.vtp" "$E" run "$S" --until 10 --quiet --no-picture --out "$D/killed"
[ ! -f "$D/killed/checkpoint.eddy" ] || fail "the killed run wrote a checkpoint: the case is not the one tested"
grep -Eq '"ended":[[:space:]]*null' "$D/killed/run.json" || fail "the killed run's record does not say it never ended"
files() { find "$1" -type f | sort | xargs cksum; }
before=$(files "$D/killed")
started=$(sed -n 's/^[[:space:]]*"started":[[:space:]]*"\([^"]*\)".*/\1/p' "$D/killed/run.json")
host=$(sed -n 's/^[[:space:]]*"host":[[:space:]]*"\([^"]*\)".*/\1/p' "$D/killed/run.json")
sh "$(dirname "$0")/../expect.sh" 1 "eddy: error: the output folder '$D/killed' holds the frames and tables of a run that did not finish (\`eddy run\` started $started on $host never recorded its end: killed, or its process lost) and left no checkpoint, so eddy resume cannot continue it: a new run would delete them; move them away or choose another --out" \
    "$E" run "$S" --steps 5 --quiet --no-picture --out "$D/killed" || fail "the killed run's folder was not refused"
[ "$(files "$D/killed")" = "$before" ] || fail "the refused run changed the killed run's folder"
# Ended runs say how, and are replaced.
"$E" run "$S" --steps 5 --quiet --no-picture --out "$D/done" || fail "the finished run failed"
tr -d ' \t\n' <"$D/done/run.json" | grep -q '"ended":{"outcome":"finished","at":"[0-9T:Z-]*","time":[0-9.e-]*,"step":5}' ||
    fail "the finished run's end is not recorded: $(tr -d ' \t\n' <"$D/done/run.json" | grep -o '"ended":{[^}]*}')"
"$E" run "$S" --steps 3 --quiet --no-picture --out "$D/done" || fail "a run into the finished run's folder was refused"
signal_at_file INT "$D/stopped/frames/frame_00001.vtp" "$E" run "$S" --until 10 --quiet --no-picture --out "$D/stopped"
[ $status = 130 ] || fail "the interrupted run ended with status $status"
tr -d ' \t\n' <"$D/stopped/run.json" | grep -q '"ended":{"outcome":"interrupted","at":"[^"]*","time":[0-9.e-]*,"step":[0-9]*,"message":"interruptedbysignal2(SIGINT)atstep' ||
    fail "the interrupted run's end is not recorded: $(tr -d ' \t\n' <"$D/stopped/run.json" | grep -o '"ended":{[^}]*}')"
"$E" resume "$D/stopped" --until 0.02 --quiet --no-picture 2>/dev/null
tr -d ' \t\n' <"$D/stopped/run.json" | grep -o '"ended":{"outcome":"[a-z]*"' | tr '\n' ' ' | grep -q 'interrupted.*finished' ||
    fail "the resume's end is not recorded after the run's: $(tr -d ' \t\n' <"$D/stopped/run.json" | grep -o '"ended":{[^}]*}')"
# A resume that extended a finished run, killed before its own checkpoint: the finished run's checkpoint
# is there, and a new run deleted the resume's frames (adversarial trial); refused, pointing at resume.
"$E" run "$S" --steps 20 --quiet --no-picture --out "$D/ext" || fail "the run to extend failed"
signal_at_file 9 "$D/ext/frames/frame_00003.vtp" "$E" resume "$D/ext" --until 10 --quiet --no-picture
before=$(files "$D/ext")
"$E" run "$S" --steps 5 --quiet --no-picture --out "$D/ext" 2>"$D/ext.err" && fail "a new run cleared the killed resume's frames"
grep -q "^eddy: error: the output folder '$D/ext' holds a run whose last command did not finish (\`eddy resume\` started .* never recorded its end: killed, or its process lost); its checkpoint (step 20, t = 0.001 s) continues it with \`eddy resume $D/ext --until T\`, or choose another --out (a new run would delete its files)\$" "$D/ext.err" ||
    { cat "$D/ext.err"; fail "not the refusal of the killed resume's folder"; }
[ "$(files "$D/ext")" = "$before" ] || fail "the refused run changed the killed resume's folder"
# A run that exploded is replaced (its frames show the blow-up; the next run has other settings).
EDDY_PLUGIN_PATH=$PLUGINS "$E" run "$S" --solver exploding_solver --quiet --no-picture --out "$D/boom" 2>/dev/null &&
    fail "exploding_solver did not explode"
tr -d ' \t\n' <"$D/boom/run.json" | grep -q '"ended":{"outcome":"failed","at":"[^"]*","time":[0-9.e-]*,"step":[0-9]*,"error":"unstable","message":"simulationexploded' ||
    fail "the exploded run's end is not recorded: $(tr -d ' \t\n' <"$D/boom/run.json" | grep -o '"ended":{[^}]*}')"
"$E" run "$S" --steps 3 --quiet --no-picture --out "$D/boom" || fail "a run into the exploded run's folder was refused"
echo "a run killed before its first checkpoint is kept; ended runs say how"
