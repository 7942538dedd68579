#!/bin/sh
# closed_std_fds.sh EDDY SCENE DIR PLUGINS: eddy started with standard input, output or error closed
# writes its run folder byte for byte as a run with them open does, and says a lost result by its exit
# status. A closed descriptor was the number the next open() returned: with stderr closed the log lines
# went into diagnostics.csv (where flock is unsupported, so that no folder lock took the number first)
# or into probes.csv (all three closed). PLUGINS holds the test plugins (exploding_solver); the ckedit of
# EDDY_TEST_CKEDIT takes each checkpoint's run_id out before the comparison.
eddy=$1 scene=$2 dir=$3 plugins=$4
set -u
fail() { echo "closed_std_fds.sh: $*" >&2; exit 1; }
run=$dir/run
rm -rf "$dir" && mkdir -p "$dir" || fail "cannot make $dir"

# diagnostics.csv's wall_ms column is a time measured, different in every run; the rest is the state's.
without_wall_ms() {
    awk -F, -v OFS=, 'NR == 1 { for (i = 1; i <= NF; ++i) if ($i == "wall_ms") w = i }
                      { if (w) { for (i = w; i < NF; ++i) $i = $(i + 1); NF--; } print }' "$1"
}
# same_folder GOT WANT WHAT: the same files, each byte for byte (diagnostics.csv but for wall_ms, run.json
# by its presence).
same_folder() {
    (cd "$1" && find . -type f | sort) > "$dir/got.list" || fail "$3: no folder $1"
    (cd "$2" && find . -type f | sort) > "$dir/want.list"
    cmp -s "$dir/got.list" "$dir/want.list" || fail "$3: the files in $1 are not those of $2: $(diff "$dir/got.list" "$dir/want.list" | tr '\n' ' ')"
    while read -r f; do
        case "$f" in
            */diagnostics.csv)
                without_wall_ms "$1/$f" > "$dir/got.csv"; without_wall_ms "$2/$f" > "$dir/want.csv"
                cmp -s "$dir/got.csv" "$dir/want.csv" || fail "$3: $f differs from a run with every descriptor open: $(diff "$dir/got.csv" "$dir/want.csv" | head -5 | tr '\n' ' ')" ;;
            # (the command line, output folder and start time are each run's own; tests/run_record checks it)
            */run.json) ;;
            # (each run draws its own run_id, which its checkpoint carries: taken out of copies first)
            */checkpoint.eddy)
                cp "$1/$f" "$dir/got.ck" && cp "$2/$f" "$dir/want.ck" &&
                    "$EDDY_TEST_CKEDIT" "$dir/got.ck" setting run_id - && "$EDDY_TEST_CKEDIT" "$dir/want.ck" setting run_id - ||
                    fail "$3: cannot take the run_id out of $f"
                cmp -s "$dir/got.ck" "$dir/want.ck" || fail "$3: $f differs from a run with every descriptor open" ;;
            *) cmp -s "$1/$f" "$2/$f" || fail "$3: $f differs from a run with every descriptor open" ;;
        esac
    done < "$dir/want.list"
}
status_is() { [ "$1" = "$2" ] || fail "$3: exit status $1, expected $2"; }

# The reference: every descriptor open. Not --quiet, so that log lines are written while files are open.
"$eddy" run "$scene" --steps 2 --hash --no-picture --out "$run" > "$dir/out" 2> "$dir/err"
status_is $? 0 "the reference run"
grep -q '^state-hash: ' "$dir/out" || fail "the reference run printed no state-hash"
mv "$run" "$run.ref"

# --hash with stdout closed: the hash is lost, so exit 1 with the message, and the folder is whole.
rm -rf "$run"; "$eddy" run "$scene" --steps 2 --hash --no-picture --out "$run" >&- 2> "$dir/err"
status_is $? 1 "stdout closed, --hash"
grep -q 'eddy: error: cannot write to standard output' "$dir/err" || fail "stdout closed, --hash: no message on stderr: $(cat "$dir/err")"
same_folder "$run" "$run.ref" "stdout closed, --hash"
# Nothing printed on stdout, nothing lost: exit 0.
rm -rf "$run"; "$eddy" run "$scene" --steps 2 --no-picture --out "$run" >&- 2> "$dir/err"
status_is $? 0 "stdout closed, no --hash"
same_folder "$run" "$run.ref" "stdout closed, no --hash"
rm -rf "$run"; "$eddy" run "$scene" --steps 2 --hash --no-picture --out "$run" <&- >&- 2>&-
status_is $? 1 "stdin, stdout and stderr closed, --hash"
same_folder "$run" "$run.ref" "stdin, stdout and stderr closed"
rm -rf "$run"; "$eddy" run "$scene" --steps 2 --hash --no-picture --out "$run" <&- > "$dir/out" 2> "$dir/err"
status_is $? 0 "stdin closed"
same_folder "$run" "$run.ref" "stdin closed"

# stderr closed, with and without the folder lock (a file system without flock: nothing else takes 2).
for lock in "" unsupported; do
    rm -rf "$run"; EDDY_TEST_FOLDER_LOCK=$lock "$eddy" run "$scene" --steps 2 --hash --no-picture --out "$run" > "$dir/out" 2>&-
    status_is $? 0 "stderr closed${lock:+, folder lock $lock}"
    grep -q '^state-hash: ' "$dir/out" || fail "stderr closed: no state-hash on stdout"
    same_folder "$run" "$run.ref" "stderr closed${lock:+, folder lock $lock}"
done
# A bad --set with stderr closed: refused (its message lost), the run already in the folder untouched.
cp -r "$run" "$run.kept"
EDDY_TEST_FOLDER_LOCK=unsupported "$eddy" run "$scene" --steps 3 --no-picture --out "$run" --set 'materials[0].viscosity=-1' 2>&-
[ $? -ne 0 ] || fail "stderr closed, bad --set: exit status 0"
diff -r "$run" "$run.kept" > /dev/null || fail "stderr closed, bad --set: the folder changed"
# A run that fails after its output opened (the solver explodes at step 30): its log lines are written
# while diagnostics.csv and probes.csv are open, its error after they are closed.
explode() { # explode LOCK ARGS...
    with_lock=$1; shift
    EDDY_TEST_FOLDER_LOCK=$with_lock EDDY_PLUGIN_PATH=$plugins "$eddy" run "$scene" --solver exploding_solver --set time.output_interval=0.0005 \
        --no-picture --out "$run" "$@"
}
rm -rf "$run"; explode "" 2> "$dir/err"
status_is $? 1 "the exploding reference run"
grep -q 'simulation exploded at step 30' "$dir/err" || fail "the exploding run did not explode: $(cat "$dir/err")"
rm -rf "$run.explode"; mv "$run" "$run.explode"
for lock in "" unsupported; do
    rm -rf "$run"; explode "$lock" 2>&-
    status_is $? 1 "stderr closed, exploding${lock:+, folder lock $lock}"
    same_folder "$run" "$run.explode" "stderr closed, exploding${lock:+, folder lock $lock}"
done
echo "closed_std_fds.sh: every run folder is byte for byte that of a run with its descriptors open"
