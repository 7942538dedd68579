#!/bin/sh
# cli_hints_plugin_path.sh EDDY OUT: the warning for an EDDY_PLUGIN_PATH entry that is no folder is said
# once per entry, however often the entry is listed, and empty entries (left by
# EDDY_PLUGIN_PATH=$EDDY_PLUGIN_PATH:dir when it was unset) are skipped without a word.
eddy=$1; out=$2
fail() { echo "cli_hints_plugin_path.sh: $*" >&2; exit 1; }
missing=$out/no_such_plugins
twice=$(EDDY_PLUGIN_PATH="$missing::$missing:" "$eddy" describe tait 2>&1 >/dev/null) || fail "describe tait failed: $twice"
printf '%s\n' "$twice"
[ "$(printf '%s\n' "$twice" | grep -c "^eddy: warning: $missing: EDDY_PLUGIN_PATH names a folder that cannot be read")" = 1 ] ||
    fail "an entry listed twice is not warned exactly once"
[ "$(printf '%s\n' "$twice" | grep -c 'warning')" = 1 ] || fail "more warnings than the one entry"
for path in ":" "::" ""; do
    said=$(EDDY_PLUGIN_PATH="$path" "$eddy" describe tait 2>&1 >/dev/null) || fail "describe tait failed with EDDY_PLUGIN_PATH='$path': $said"
    [ -z "$said" ] || fail "EDDY_PLUGIN_PATH='$path' said: $said"
done
exit 0
