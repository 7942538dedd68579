#!/bin/sh
# check_elf.sh NM READELF PLUGIN: the plugin exports eddy_plugin_entry and nothing else (the static
# CUDA runtime's symbols stay hidden), and needs no libcudart.so at run time (the runtime is linked
# statically; only the driver, loaded by the runtime itself, is needed).
nm=$1; readelf=$2; so=$3
exports=$("$nm" -D --defined-only "$so" | awk 'NF == 3 { print $3 }')
printf 'exported symbols:\n%s\n' "$exports"
if [ "$exports" != "eddy_plugin_entry" ]; then
    echo "check_elf.sh: $so must export exactly eddy_plugin_entry" >&2; exit 1
fi
needed=$("$readelf" -d "$so" | grep NEEDED) || { echo "check_elf.sh: cannot read $so" >&2; exit 1; }
printf '%s\n' "$needed"
case "$needed" in
    *libcudart*|*libcuda.so*) echo "check_elf.sh: $so links the CUDA runtime or driver dynamically" >&2; exit 1 ;;
esac
exit 0
