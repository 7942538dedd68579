#!/bin/sh
# interrupt_checkpoint_fails.sh EDDY SCENE DIR: a run stopped by SIGINT whose checkpoint cannot be
# written (its temporary name taken by a folder, as a full disk or a quota would refuse it) ends with
# status 1, not 130 (which promises the stop's checkpoint), and names the checkpoint the folder still
# continues from and how; that checkpoint resumes. It ended 130, "interrupted", naming none (HPC trial).
E=$1; S=$2; D=$3
fail() { echo "interrupt_checkpoint_fails.sh: $*" >&2; exit 1; }
rm -rf "$D" && "$E" run "$S" --until 0.01 --quiet --no-picture --out "$D" || fail "the first run failed"
mkdir "$D/checkpoint.eddy.tmp" || exit 1
. "$(dirname "$0")/signal_at_file.sh"
signal_at_file INT "$D/frames/frame_00003.vtp" sh -c 'exec "$0" resume "$1" --until 10 --quiet --no-picture 2>"$1.err"' "$E" "$D"
cat "$D.err"
[ "$status" = 1 ] || fail "exit status $status, expected 1"
grep -q "^eddy: error: interrupted by signal 2 (SIGINT) at step [0-9]* (t = [0-9.e-]* s); the checkpoint could not be written: cannot write checkpoint '$D/checkpoint.eddy': creating '$D/checkpoint.eddy.tmp': Is a directory; the previous checkpoint there is kept unchanged; once the cause is fixed, continue from the checkpoint of t = 0.01 s with: eddy resume $D\$" "$D.err" ||
    fail "not the message naming the kept checkpoint"
# (its frames past the kept checkpoint are not deleted by a new run: it did not finish)
"$E" run "$S" --steps 5 --quiet --no-picture --out "$D" 2>"$D.run.err" && fail "a new run cleared the stopped run"
grep -q "holds a run whose last command did not finish (\`eddy resume\` started .* failed at t = " "$D.run.err" ||
    { cat "$D.run.err"; fail "not the refusal of the stopped run's folder"; }
rmdir "$D/checkpoint.eddy.tmp" && "$E" resume "$D" --until 0.02 --quiet --no-picture || fail "the kept checkpoint does not resume"
echo "the failed stop's checkpoint ends the run as failed, naming the one kept"
