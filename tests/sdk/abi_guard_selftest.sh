#!/bin/sh
# abi_guard_selftest.sh SCRIPT TABLE INCLUDE_DIR CC WORKDIR
# The ABI guard must fail, naming the struct and member, when a public struct changes without an ABI
# version change: append a member to eddy_collider (which does not begin with `size`) in a copy of the
# headers, build the probe from the copy and check it against the recorded table. Also checks that the
# unchanged headers pass, so the failure is the change's and not the harness's.
set -u
script=$1; table=$2; include=$3; cc=$4; work=$5
rm -rf "$work" && mkdir -p "$work/include" && cp -R "$include/eddy" "$work/include/" || exit 1
probe() { # $1: include dir, $2: output name
    python3 "$script" probe-source "$1/eddy" "$work/$2.c" &&
    "$cc" -std=c11 -I"$1" "$work/$2.c" -o "$work/$2"
}
probe "$work/include" same || exit 1
python3 "$script" check --recorded "$table" --probe "$work/same" > "$work/same.log" 2>&1
status=$?
cat "$work/same.log"
if [ $status -eq 77 ]; then exit 77; fi
[ $status -eq 0 ] || { echo "selftest: unchanged headers do not pass the guard"; exit 1; }
# Append a member just before the closing "} eddy_collider;".
sed 's/^} eddy_collider;/    float selftest_member;\n} eddy_collider;/' "$include/eddy/boundary.h" > "$work/include/eddy/boundary.h"
grep -q selftest_member "$work/include/eddy/boundary.h" || { echo "selftest: could not edit boundary.h"; exit 1; }
probe "$work/include" changed || exit 1
python3 "$script" check --recorded "$table" --probe "$work/changed" > "$work/changed.log" 2>&1
status=$?
cat "$work/changed.log"
[ $status -eq 1 ] || { echo "selftest: the guard did not fail (status $status)"; exit 1; }
for text in "struct eddy_collider: was size" "member eddy_collider.selftest_member: new" \
            "bump EDDY_ABI_MAJOR" "eddy_abi_record"; do
    grep -qF "$text" "$work/changed.log" || { echo "selftest: message lacks: $text"; exit 1; }
done
echo "selftest: the guard caught the appended member"

# A minor bump (1.x -> 1.x+1) that appends a callback to eddy_solver_vtable (size-prefixed) is a
# compatible extension once recorded; one that also grows eddy_collider is not, even when recorded.
cp "$table" "$work/table.txt" || exit 1
minor=$(sed -n 's/^#define EDDY_ABI_MINOR \([0-9]*\).*/\1/p' "$include/eddy/plugin.h")
next=$((minor + 1))
sed -e "s/^#define EDDY_ABI_MINOR .*/#define EDDY_ABI_MINOR $next/" \
    -e 's/^} eddy_solver_vtable;/    int (*selftest_cb)(eddy_solver *solver);\n} eddy_solver_vtable;/' \
    "$include/eddy/plugin.h" > "$work/include/eddy/plugin.h"
cp "$include/eddy/boundary.h" "$work/include/eddy/boundary.h"
grep -q selftest_cb "$work/include/eddy/plugin.h" || { echo "selftest: could not edit plugin.h"; exit 1; }
probe "$work/include" minor || exit 1
python3 "$script" check --recorded "$work/table.txt" --probe "$work/minor" > "$work/minor.log" 2>&1
[ $? -eq 1 ] && grep -qF "no layout recorded for ABI 1.$next" "$work/minor.log" ||
    { cat "$work/minor.log"; echo "selftest: an unrecorded minor version passed"; exit 1; }
python3 "$script" record --recorded "$work/table.txt" --probe "$work/minor" || exit 1
python3 "$script" check --recorded "$work/table.txt" --probe "$work/minor" > "$work/minor.log" 2>&1 ||
    { cat "$work/minor.log"; echo "selftest: a compatible minor extension was refused"; exit 1; }
sed 's/^} eddy_collider;/    float selftest_member;\n} eddy_collider;/' "$include/eddy/boundary.h" > "$work/include/eddy/boundary.h"
probe "$work/include" minor_bad || exit 1
python3 "$script" record --recorded "$work/table.txt" --probe "$work/minor_bad" > /dev/null || exit 1
python3 "$script" check --recorded "$work/table.txt" --probe "$work/minor_bad" > "$work/minor_bad.log" 2>&1
status=$?
cat "$work/minor_bad.log"
[ $status -eq 1 ] && grep -qF "is not a compatible minor extension of 1.$minor: struct eddy_collider grew" "$work/minor_bad.log" &&
        grep -qF "needs a major version" "$work/minor_bad.log" ||
    { echo "selftest: an incompatible minor extension passed"; exit 1; }
echo "selftest: minor versions are held to the append-only rule"
