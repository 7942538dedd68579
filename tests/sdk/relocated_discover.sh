#!/bin/sh
# relocated_discover.sh CMAKE BUILD_DIR WORK_DIR SOURCE_DIR CC [CFLAG...]
# Installs eddy to a temporary prefix and moves it, so that the prefix eddy was configured with is not
# where the files are; then builds tests/sdk/relocated_discover.c, a program of its own in a folder
# outside the prefix, against the moved libeddy and runs it with EDDY_PLUGIN_PATH unset: it must find
# the in-tree solvers in the moved prefix's lib/eddy/plugins (through the folder beside libeddy). The
# installed `eddy`, whose executable's folder and libeddy's lead to the same plugins, must load each
# plugin once (`eddy list` exits 1 when anything is refused, a duplicate included). A copy of the
# installation, the original standing as the configured prefix (EDDY_TEST_INSTALL_PLUGIN_DIR, the tests'
# stand-in for it), loads its own plugins alone: it loaded the original's too, each said to shadow the
# copy's; and a libeddy without a plugin folder of its own falls back to the configured one.
set -u
cmake=$1; build=$2; work=$3; src=$4; cc=$5; shift 5
staging=$work/staging; prefix=$work/moved/prefix; app=$work/app
fail() { echo "relocated_discover: FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work/moved" "$app" || exit 1
"$cmake" --install "$build" --prefix "$staging" > "$work/install.log" 2>&1 || { cat "$work/install.log"; fail "cmake --install"; }
mv "$staging" "$prefix" || fail "move the installation"
"$cc" -std=c11 -Wall -Wextra -Werror "$@" -I"$prefix/include" "$src/tests/sdk/relocated_discover.c" \
    -L"$prefix/lib" -leddy -Wl,-rpath,"$prefix/lib" -o "$app/relocated_discover" || fail "build the program"
env -u EDDY_PLUGIN_PATH "$app/relocated_discover" "$prefix" || fail "the program linked against the moved libeddy did not find its plugins"
env -u EDDY_PLUGIN_PATH "$prefix/bin/eddy" list > "$work/list.log" 2>&1 || { cat "$work/list.log"; fail "eddy list of the moved installation"; }
grep -qF "$prefix/lib/eddy/plugins/eddy_sph_mueller.so" "$work/list.log" || { cat "$work/list.log"; fail "the moved eddy did not find its plugins"; }
copy=$work/copy/prefix
mkdir -p "$work/copy" && cp -a "$prefix" "$copy" || fail "copy the installation"
EDDY_TEST_INSTALL_PLUGIN_DIR="$prefix/lib/eddy/plugins" env -u EDDY_PLUGIN_PATH "$copy/bin/eddy" list > "$work/copy.log" 2>&1 ||
    { cat "$work/copy.log"; fail "eddy list of the copied installation"; }
grep -qF "$copy/lib/eddy/plugins/eddy_sph_mueller.so" "$work/copy.log" || { cat "$work/copy.log"; fail "the copy did not load its own plugins"; }
if grep -qF "$prefix/lib/eddy/plugins" "$work/copy.log"; then cat "$work/copy.log"; fail "the copy loaded or named the configured installation's plugins"; fi
rm -rf "$copy/lib/eddy/plugins"
EDDY_TEST_INSTALL_PLUGIN_DIR="$prefix/lib/eddy/plugins" env -u EDDY_PLUGIN_PATH "$copy/bin/eddy" list > "$work/fallback.log" 2>&1 ||
    { cat "$work/fallback.log"; fail "eddy list of the copy without plugins"; }
grep -qF "$prefix/lib/eddy/plugins/eddy_sph_mueller.so" "$work/fallback.log" || { cat "$work/fallback.log"; fail "without a plugin folder of its own, the copy did not fall back to the configured one"; }
echo "relocated_discover: OK"
