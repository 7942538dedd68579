#!/bin/sh
# refused_before_run.sh OUT TEXT CMD...: CMD (an `eddy compare` with a mistake in one of its solvers)
# exits 1 with TEXT in its output (tests/expect.sh) and has written nothing: OUT, its --out folder, does
# not exist. The solvers before the faulty one used to run to their end first.
out=$1; text=$2; shift 2
rm -rf "$out"
sh "$(dirname "$0")/../expect.sh" 1 "$text" "$@" || exit 1
if [ -e "$out" ]; then
    echo "refused_before_run.sh: the refused comparison wrote $out:" >&2
    ls -R "$out" >&2
    exit 1
fi
exit 0
