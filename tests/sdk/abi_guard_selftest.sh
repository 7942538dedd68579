#!/bin/sh
# abi_guard_selftest.sh SCRIPT TABLE INCLUDE_DIR CC WORKDIR
# The ABI guard must fail, naming the struct and member, when a public struct changes without an ABI
# version change: append a member to eddy_contact_params (which does not begin with `size`), and one
# to eddy_host (declared as a plain `struct eddy_host { ... };`), in a copy of the headers, build the
# probe from the copy and check it against the recorded table. Also checks that the unchanged headers
# pass, so the failure is the change's and not the harness's.
set -u
script=$1; table=$2; include=$3; cc=$4; work=$5
rm -rf "$work" && mkdir -p "$work/include" && cp -R "$include/eddy" "$work/include/" || exit 1
probe() { # $1: include dir, $2: output name
    python3 "$script" probe-source "$1/eddy" "$work/$2.c" &&
    "$cc" -std=c11 -I"$1" "$work/$2.c" -o "$work/$2"
}
# Appends `$3` before the line closing struct $2 in header $1 of the copy (from the original).
grow() {
    case $2 in
    eddy_host) sed "/^struct eddy_host {/,/^};/ s/^};/    $3\n};/" "$include/eddy/$1" ;;
    *) sed "s/^} $2;/    $3\n} $2;/" "$include/eddy/$1" ;;
    esac > "$work/include/eddy/$1" && grep -qF "$3" "$work/include/eddy/$1" ||
        { echo "selftest: could not edit $1"; exit 1; }
}
restore() { cp "$include/eddy/$1" "$work/include/eddy/$1" || exit 1; }
major=$(sed -n 's/^#define EDDY_ABI_MAJOR \([0-9]*\).*/\1/p' "$include/eddy/plugin.h")
minor=$(sed -n 's/^#define EDDY_ABI_MINOR \([0-9]*\).*/\1/p' "$include/eddy/plugin.h")
[ -n "$major" ] && [ -n "$minor" ] || { echo "selftest: no ABI version in plugin.h"; exit 1; }

probe "$work/include" same || exit 1
python3 "$script" check --recorded "$table" --probe "$work/same" > "$work/same.log" 2>&1
status=$?
cat "$work/same.log"
if [ $status -eq 77 ]; then exit 77; fi
[ $status -eq 0 ] || { echo "selftest: unchanged headers do not pass the guard"; exit 1; }

# Without a version change, any change fails.
for case in "boundary.h eddy_contact_params" "host.h eddy_host"; do
    set -- $case
    grow "$1" "$2" "float selftest_member;"
    probe "$work/include" changed || exit 1
    python3 "$script" check --recorded "$table" --probe "$work/changed" > "$work/changed.log" 2>&1
    status=$?
    cat "$work/changed.log"
    [ $status -eq 1 ] || { echo "selftest: the guard did not fail for $2 (status $status)"; exit 1; }
    for text in "struct $2: was size" "member $2.selftest_member: new" \
                "bump EDDY_ABI_MAJOR" "eddy_abi_record"; do
        grep -qF "$text" "$work/changed.log" || { echo "selftest: message lacks: $text"; exit 1; }
    done
    restore "$1"
    echo "selftest: the guard caught the member appended to $2"
done

# A minor bump (x.y -> x.y+1) that appends a callback to eddy_solver_vtable and a service to eddy_host
# (both begin with `size`) is a compatible extension once recorded; one that also grows
# eddy_contact_params is not, even when recorded.
cp "$table" "$work/table.txt" || exit 1
next=$((minor + 1))
sed -e "s/^#define EDDY_ABI_MINOR .*/#define EDDY_ABI_MINOR $next/" \
    -e 's/^} eddy_solver_vtable;/    int (*selftest_cb)(eddy_solver *solver);\n} eddy_solver_vtable;/' \
    "$include/eddy/plugin.h" > "$work/include/eddy/plugin.h"
grep -q selftest_cb "$work/include/eddy/plugin.h" || { echo "selftest: could not edit plugin.h"; exit 1; }
grow host.h eddy_host "int (*selftest_service)(const eddy_host *host);"
probe "$work/include" minor || exit 1
python3 "$script" check --recorded "$work/table.txt" --probe "$work/minor" > "$work/minor.log" 2>&1
[ $? -eq 1 ] && grep -qF "no layout recorded for ABI $major.$next" "$work/minor.log" ||
    { cat "$work/minor.log"; echo "selftest: an unrecorded minor version passed"; exit 1; }
python3 "$script" record --recorded "$work/table.txt" --probe "$work/minor" || exit 1
grep -qF "member eddy_host.selftest_service offset" "$work/table.txt" ||
    { echo "selftest: the recorded table lacks the appended eddy_host member"; exit 1; }
python3 "$script" check --recorded "$work/table.txt" --probe "$work/minor" > "$work/minor.log" 2>&1 ||
    { cat "$work/minor.log"; echo "selftest: a compatible minor extension was refused"; exit 1; }
grow boundary.h eddy_contact_params "float selftest_member;"
probe "$work/include" minor_bad || exit 1
python3 "$script" record --recorded "$work/table.txt" --probe "$work/minor_bad" > /dev/null || exit 1
python3 "$script" check --recorded "$work/table.txt" --probe "$work/minor_bad" > "$work/minor_bad.log" 2>&1
status=$?
cat "$work/minor_bad.log"
[ $status -eq 1 ] &&
    grep -qF "is not a compatible minor extension of $major.$minor: struct eddy_contact_params grew" "$work/minor_bad.log" &&
    grep -qF "needs a major version" "$work/minor_bad.log" ||
    { echo "selftest: an incompatible minor extension passed"; exit 1; }
echo "selftest: minor versions are held to the append-only rule"
