#!/bin/sh
# third_party.sh EDDY PLUGIN_SO OUT: a plugin outside eddy's tree ships its validation file beside its
# shared object and `eddy validate` finds it there. The in-tree tait plugin, copied to OUT/plugins (found
# first through EDDY_PLUGIN_PATH, so it shadows the built one), with a validation file that claims only
# shear_wave (with the settings tait's own file gives it: its default sound speed and artificial viscosity
# miss the 2% bar): --list must show exactly that claim, and a run without --case must run that case alone.
eddy=$1; so=$2; out=$3
rm -rf "$out"; mkdir -p "$out/plugins" || exit 1
cp "$so" "$out/plugins/eddy_tait.so" || exit 1
cat > "$out/plugins/eddy_tait.validation.json" <<'JSON'
{ "eddy_validation": 1,
  "solvers": { "tait": { "cases": { "shear_wave": { "expect": "pass",
      "set": ["solvers.tait.sound_speed=10", "solvers.tait.alpha=0"] } } } } }
JSON
list=$(EDDY_PLUGIN_PATH="$out/plugins" "$eddy" validate --list 2>&1); printf '%s\n' "$list"
case "$list" in
    *"  tait                   shear_wave
"*) ;;
    *) echo "third_party.sh: --list does not show tait's claim from $out/plugins" >&2; exit 1 ;;
esac
EDDY_PLUGIN_PATH="$out/plugins" "$eddy" validate --solver tait --resolution coarse --out "$out/report" --quiet || exit 1
cases=$(tail -n +2 "$out/report/report.csv" | cut -d, -f1 | sort -u)
if [ "$cases" != "shear_wave" ]; then
    echo "third_party.sh: ran '$cases', expected shear_wave alone" >&2; exit 1
fi
exit 0
