#!/bin/sh
# claims.sh EDDY PLUGIN_SO OUT JSON STATUS TEXT ARGS...: the in-tree tait plugin copied to OUT/plugins
# with JSON as its validation file (eddy_tait.validation.json beside it, found first through
# EDDY_PLUGIN_PATH); `eddy validate ARGS...` must exit with STATUS and print TEXT (tests/expect.sh).
eddy=$1; so=$2; out=$3; json=$4; status=$5; text=$6; shift 6
rm -rf "$out"; mkdir -p "$out/plugins" || exit 1
cp "$so" "$out/plugins/eddy_tait.so" || exit 1
printf '%s\n' "$json" > "$out/plugins/eddy_tait.validation.json" || exit 1
EDDY_PLUGIN_PATH="$out/plugins" exec sh "$(dirname "$0")/../expect.sh" "$status" "$text" "$eddy" validate "$@"
