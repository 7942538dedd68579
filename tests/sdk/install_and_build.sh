#!/bin/sh
# install_and_build.sh CMAKE BUILD_DIR WORK_DIR SOURCE_DIR CC GENERATOR [CXX]
# Installs eddy to a temporary prefix, builds examples/plugin_template as a separate CMake project
# against that prefix only (find_package(eddy)), installs the template to a second prefix, and runs it
# with the installed `eddy` through EDDY_PLUGIN_PATH. Also builds the template a second way, with
# plain cc and pkg-config, checks that nothing installed refers to the build tree and, given a C++
# compiler, builds and runs the C++ plugin of tests/sdk/cxx_plugin as C++17 and as C++20.
set -u
cmake=$1; build=$2; work=$3; src=$4; cc=$5; generator=$6; cxx=${7:-}
staging=$work/staging; prefix=$work/prefix; plugins=$work/plugins_prefix; tb=$work/template_build; out=$work/out
fail() { echo "install_and_build: FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work" || exit 1

echo "== cmake --install $build --prefix $staging, then moved to $prefix"
"$cmake" --install "$build" --prefix "$staging" > "$work/install.log" 2>&1 || { cat "$work/install.log"; fail "cmake --install"; }
# Relocatable: everything below works from the moved tree.
mv "$staging" "$prefix" || fail "move the installation"
for f in bin/eddy lib/libeddy.so include/eddy/eddy.h include/eddy/plugin.h lib/eddy/plugins/eddy_sph_mueller.so \
         lib/cmake/eddy/eddyConfig.cmake lib/cmake/eddy/eddyConfigVersion.cmake lib/cmake/eddy/eddyTargets.cmake \
         lib/cmake/eddy/EddyPlugin.cmake lib/cmake/eddy/EddyPluginTests.cmake lib/cmake/eddy/plugin_tests/threads_check.cmake \
         lib/cmake/eddy/plugin_tests/resume_check.cmake lib/cmake/eddy/plugin_tests/hydrostatic_check.cmake \
         lib/cmake/eddy/plugin_tests/check_hydrostatic.py lib/cmake/eddy/plugin_tests/check_common.cmake lib/pkgconfig/eddy.pc lib/pkgconfig/eddy_sph.pc share/eddy/scenes/dam_break_2d.json \
         share/eddy/scenes/hydrostatic_tank.json share/doc/eddy/plugin-guide.md; do
    [ -e "$prefix/$f" ] || fail "not installed: $f"
done
[ -e "$prefix/lib/eddy/plugins/eddy_a_good.so" ] && fail "a test plugin was installed"
for f in CMakeLists.txt README.md xsph.c scene.json; do
    cmp "$src/examples/plugin_template/$f" "$prefix/share/eddy/examples/plugin_template/$f" || fail "installed template: $f"
done
# The installed guides and the template's README link only what is installed (the README's
# ../../docs/ reaches share/doc/eddy through the share/eddy/docs link).
[ -L "$prefix/share/eddy/docs" ] || fail "not installed: the link share/eddy/docs"
[ -f "$prefix/share/eddy/docs/plugin-guide.md" ] || fail "the link share/eddy/docs does not lead to share/doc/eddy"
# ... listed in the manifest, so that an uninstall driven by it removes the link (made by install(CODE),
# it was not, and it was left behind).
grep -qxF "$staging/share/eddy/docs" "$build/install_manifest.txt" \
    || fail "$build/install_manifest.txt does not list the link $staging/share/eddy/docs"
sh "$src/tests/docs/links.sh" "$prefix/share/eddy/examples/plugin_template/README.md" \
    $(find "$prefix/share/doc/eddy" -name '*.md') || fail "the installed documentation has broken links"
# No installed text file may name the build tree, the source tree or the install prefix.
if grep -rlF -e "$build" -e "$src" -e "$staging" "$prefix/lib/cmake" "$prefix/lib/pkgconfig" "$prefix/include"; then
    fail "the files above contain absolute paths"
fi

echo "== configure and build examples/plugin_template against $prefix"
# Only the installed prefix: the source tree's headers must not be reachable.
"$cmake" -S "$src/examples/plugin_template" -B "$tb" -G "$generator" -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$plugins" \
    -DCMAKE_EXPORT_COMPILE_COMMANDS=ON > "$work/configure.log" 2>&1 || { cat "$work/configure.log"; fail "configure the template"; }
grep "plugin ABI" "$work/configure.log"
"$cmake" --build "$tb" > "$work/build.log" 2>&1 || { cat "$work/build.log"; fail "build the template"; }
grep -i "warning" "$work/build.log" && fail "the template builds with warnings"
grep -rqF "$src/core/include" "$tb/CMakeFiles" && fail "the template was compiled against the source tree"
# eddy::sph brings the flags its inline loops need to vectorize and to round alike on every ISA path
# (sdk/sph/CMakeLists.txt); without them the template's force pass compiled scalar.
for f in -fno-math-errno -fno-trapping-math -ffp-contract=off; do
    grep -F "xsph.c" "$tb/compile_commands.json" | grep -qe "$f" || fail "the template was compiled without $f (eddy::sph's flags)"
done
"$cmake" --install "$tb" > "$work/install_template.log" 2>&1 || fail "install the template"
so=$plugins/lib/eddy/plugins/eddy_xsph.so
[ -f "$so" ] || fail "the template did not install to lib/eddy/plugins: $(find "$plugins")"
# Exactly one exported symbol.
if command -v nm > /dev/null; then
    exports=$(nm -D --defined-only "$so" | awk '$2 ~ /^[TDBRVWi]$/ {print $3}')
    [ "$exports" = "eddy_plugin_entry" ] || fail "the template exports: $exports"
fi

echo "== eddy list / describe / run with EDDY_PLUGIN_PATH=$plugins/lib/eddy/plugins"
EDDY_PLUGIN_PATH=$plugins/lib/eddy/plugins
export EDDY_PLUGIN_PATH OMP_NUM_THREADS=2 OMP_WAIT_POLICY=passive
"$prefix/bin/eddy" list > "$work/list.log" 2>&1 || { cat "$work/list.log"; fail "eddy list"; }
cat "$work/list.log"
grep -qE "^xsph +solver +2\.0\.0 +$so" "$work/list.log" || fail "eddy list does not show the template solver xsph"
# The installed host finds the installed plugins (<exe>/../lib/eddy/plugins), not the build tree's.
grep -qF "$prefix/lib/eddy/plugins/eddy_sph_mueller.so" "$work/list.log" || fail "the installed host did not find its installed plugins"
grep -qi "refused" "$work/list.log" && fail "a plugin was refused"
"$prefix/bin/eddy" describe xsph > "$work/describe.log" 2>&1 || fail "eddy describe xsph"
grep -q "^xsph " "$work/describe.log" && grep -q "^alpha " "$work/describe.log" || { cat "$work/describe.log"; fail "describe xsph lacks its parameters"; }
"$prefix/bin/eddy" run "$prefix/share/eddy/scenes/dam_break_2d.json" --solver xsph --steps 100 --hash --quiet \
    --format vtk --out "$out" > "$work/run.log" 2>&1
status=$?
cat "$work/run.log"
[ $status -eq 0 ] || fail "eddy run exited with $status"
grep -qE "^state-hash: [0-9a-f]{16}$" "$work/run.log" || fail "no state-hash line"
# Bit-identical for any thread count (fixed-order gathers): one thread gives the same hash.
"$prefix/bin/eddy" run "$prefix/share/eddy/scenes/dam_break_2d.json" --solver xsph --steps 100 --hash --quiet \
    --threads 1 --no-picture --out "$work/out1" > "$work/run1.log" 2>&1 || { cat "$work/run1.log"; fail "eddy run --threads 1"; }
[ "$(grep state-hash "$work/run.log")" = "$(grep state-hash "$work/run1.log")" ] || fail "the hash depends on the thread count: $(cat "$work/run1.log")"
# The registered field reaches the output, and the run stayed bounded (speeds below 5 m/s).
grep -q 'Name="xsph_correction"' "$out"/frames/frame_00000.vtp || fail "xsph_correction is not in the frames"
awk -F, 'NR > 1 && ($9 != $9 + 0 || $9 > 5) {bad = 1} END {exit bad}' "$out/diagnostics.csv" || fail "implausible max_speed in diagnostics.csv"

# The template's own tests: eddy_add_plugin_tests() of the installed package, whose scripts run the
# installed eddy (eddy::cli) from the installed lib/cmake/eddy/plugin_tests.
"$cmake" -E chdir "$tb" ctest --output-on-failure > "$work/ctest.log" 2>&1 || { cat "$work/ctest.log"; fail "the template's own ctest"; }
cat "$work/ctest.log"
# ... all three checks, the physics among them (the hydrostatic tank; Python 3 is a dependency of this
# suite, so a template that found none would skip the one test that judges the physics).
for t in xsph_threads xsph_resume xsph_hydrostatic; do
    grep -q "$t .*Passed" "$work/ctest.log" || fail "the template's $t test did not run and pass"
done
"$cmake" -E chdir "$tb" ctest --show-only=json-v1 > "$work/ctest.json" 2>&1 || fail "ctest --show-only"
grep -qF "$prefix/lib/cmake/eddy/plugin_tests/" "$work/ctest.json" || fail "the template's tests do not run the installed scripts"

echo "== pkg-config: build the template with plain cc"
if command -v pkg-config > /dev/null; then
    PKG_CONFIG_PATH=$prefix/lib/pkgconfig
    export PKG_CONFIG_PATH
    # eddy is libeddy as eddy::eddy is, with no compiler flags for a program that embeds it; eddy_sph is
    # the toolkit as eddy::sph is, with the float flags its inline loops need (and eddy through Requires).
    core=$(pkg-config --cflags --libs eddy) || fail "pkg-config eddy"
    echo "pkg-config --cflags --libs eddy: $core"
    flags=$(pkg-config --cflags --libs eddy_sph) || fail "pkg-config eddy_sph"
    echo "pkg-config --cflags --libs eddy_sph: $flags"
    for f in -fno-math-errno -fno-trapping-math -ffp-contract=off; do
        case " $flags " in *" $f "*) ;; *) fail "pkg-config --cflags eddy_sph lacks $f";; esac
        case " $core " in *" $f "*) fail "pkg-config --cflags eddy gives $f, which eddy::eddy does not";; esac
    done
    for f in -leddy_sph -leddy; do
        case " $flags " in *" $f "*) ;; *) fail "pkg-config --cflags --libs eddy_sph lacks $f";; esac
    done
    case " $core " in *" -leddy_sph "*) fail "pkg-config --libs eddy links the toolkit, which eddy::eddy does not";; esac
    mkdir -p "$work/pc"
    "$cc" -std=c11 -O3 -Wall -Wextra -Werror -fPIC -shared -fvisibility=hidden -fopenmp \
        "$src/examples/plugin_template/xsph.c" $flags -o "$work/pc/eddy_xsph.so" || fail "cc with pkg-config flags"
    EDDY_PLUGIN_PATH=$work/pc "$prefix/bin/eddy" list | grep -qE "^xsph +solver .*$work/pc/eddy_xsph.so" || fail "the pkg-config build does not load"
    # The documented pkg-config line and eddy_add_plugin give the same numbers (plugin-guide.md,
    # "Determinism"): the same state hash as the CMake build's run above.
    EDDY_PLUGIN_PATH=$work/pc "$prefix/bin/eddy" run "$prefix/share/eddy/scenes/dam_break_2d.json" --solver xsph --steps 100 \
        --hash --quiet --no-picture --out "$work/pc_out" > "$work/pc_run.log" 2>&1 || { cat "$work/pc_run.log"; fail "eddy run of the pkg-config build"; }
    [ "$(grep state-hash "$work/run.log")" = "$(grep state-hash "$work/pc_run.log")" ] || fail "the pkg-config build's hash differs from the CMake build's: $(cat "$work/pc_run.log")"
fi
if [ -n "$cxx" ]; then
    # A C++ plugin: the SDK's initializer macros and the descriptor header compile without a warning
    # in C++17 and C++20, eddy_add_plugin gives C++ sources OpenMP (the plugin's #error otherwise), and
    # its density (the toolkit's pass compiled as C++) is sph_mueller's on the same lattice.
    for std in 17 20; do
        echo "== a C++$std plugin (tests/sdk/cxx_plugin) against $prefix"
        cb=$work/cxx$std
        "$cmake" -S "$src/tests/sdk/cxx_plugin" -B "$cb" -G "$generator" -DCMAKE_C_COMPILER="$cc" \
            -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_STANDARD=$std -DCMAKE_BUILD_TYPE=Release \
            "-DCMAKE_CXX_FLAGS=-Wall -Wextra -pedantic -Werror" -DCMAKE_PREFIX_PATH="$prefix" \
            > "$cb.configure.log" 2>&1 || { cat "$cb.configure.log"; fail "configure the C++$std plugin"; }
        grep -i "warning" "$cb.configure.log" && fail "configuring the C++$std plugin warns"
        "$cmake" --build "$cb" > "$cb.build.log" 2>&1 || { cat "$cb.build.log"; fail "build the C++$std plugin"; }
        EDDY_PLUGIN_PATH=$cb "$prefix/bin/eddy" list > "$cb.list.log" 2>&1
        grep -qE "^cxx_density +solver +1\.0\.0 +$cb/eddy_cxx_density.so" "$cb.list.log" || { cat "$cb.list.log"; fail "eddy list does not show the C++$std plugin"; }
        for t in 1 2; do
            EDDY_PLUGIN_PATH=$cb "$prefix/bin/eddy" run "$prefix/share/eddy/scenes/dam_break_2d.json" --solver cxx_density \
                --steps 20 --threads $t --hash --quiet --no-picture --format csv --out "$cb.out$t" > "$cb.run$t.log" 2>&1 \
                || { cat "$cb.run$t.log"; fail "eddy run --solver cxx_density --threads $t (C++$std)"; }
        done
        [ "$(grep state-hash "$cb.run1.log")" = "$(grep state-hash "$cb.run2.log")" ] || fail "the C++$std plugin's hash depends on the thread count"
    done
    "$prefix/bin/eddy" run "$prefix/share/eddy/scenes/dam_break_2d.json" --steps 0 --quiet --no-picture --format csv \
        --out "$work/cxx_reference" > "$work/cxx_reference.log" 2>&1 || { cat "$work/cxx_reference.log"; fail "the sph_mueller reference run"; }
    # Column 8 is the density; the two sums visit the same candidates in the same order.
    awk -F, 'NR == FNR {if (FNR > 1) ref[FNR] = $8; next}
             FNR > 1 {n++; d = $8 - ref[FNR]; if (d < 0) d = -d; if (d > 1e-3 * ref[FNR]) bad++}
             END {printf "cxx_density frame 0: %d densities, %d differ from sph_mueller'"'"'s by more than 0.1%%\n", n, bad; exit !(n > 0 && bad == 0)}' \
        "$work/cxx_reference/frames/frame_00000.csv" "$work/cxx20.out1/frames/frame_00000.csv" \
        || fail "the C++ plugin's densities are not sph_mueller's"
fi
echo "install_and_build: OK"
