#!/bin/sh
# cli_hints_nearest.sh STATUS PREFIX SUFFIX CMD...: runs CMD, fails unless it exits with STATUS and one
# line of its stdout+stderr is exactly PREFIX, a list of component ids ("a, b, c"), then SUFFIX. The
# list is left open because it depends on the plugins this build has (sph_mueller_cuda with CUDA); that
# nothing else stands between the two (a plugin-path hint) is what expect.sh's substring cannot tell.
want_status=$1; prefix=$2; suffix=$3; shift 3
out=$("$@" 2>&1); status=$?
printf '%s\n' "$out"
if [ "$status" -ne "$want_status" ]; then
    echo "cli_hints_nearest.sh: exit status $status, expected $want_status" >&2; exit 1
fi
printf '%s\n' "$out" | while IFS= read -r line; do
    case "$line" in "$prefix"*"$suffix") ;; *) continue ;; esac
    rest=${line#"$prefix"}
    ids=${rest%"$suffix"}
    printf '%s\n' "$ids" | grep -Eqx '[a-z0-9_]+(, [a-z0-9_]+)*' && exit 3
done
[ $? -eq 3 ] && exit 0
echo "cli_hints_nearest.sh: no line is: ${prefix}<ids>${suffix}" >&2
exit 1
