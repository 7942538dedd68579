#!/bin/sh
# plugin_tests_fail.sh CMAKE CTEST PREFIX WORK_DIR SOURCE_DIR CC GENERATOR
# eddy_add_plugin_tests() from an installed eddy (PREFIX, made by install_and_build.sh) must catch what
# it exists to catch: tests/sdk/broken_plugin builds the installed template's solver three times, each
# with one defect, and each defect's check must fail with its own message, on the solver that has the
# defect. Also: wrong calls of the function stop the configuration with an error naming the mistake, and
# without Python 3 the hydrostatic check reports itself skipped instead of vanishing.
set -u
cmake=$1; ctest=$2; prefix=$3; work=$4; src=$5; cc=$6; generator=$7
fail() { echo "plugin_tests_fail: FAIL: $*"; exit 1; }
template=$prefix/share/eddy/examples/plugin_template
[ -f "$prefix/lib/cmake/eddy/EddyPluginTests.cmake" ] || fail "no installed eddy in $prefix (sdk_install_and_build_template sets it up)"
rm -rf "$work" && mkdir -p "$work" || exit 1
export OMP_WAIT_POLICY=passive
configure() {
    "$cmake" -S "$src/tests/sdk/broken_plugin" -B "$work/build" -G "$generator" -DCMAKE_C_COMPILER="$cc" \
        -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release -DTEMPLATE_DIR="$template" "$@"
}

echo "== three broken copies of the template, each against the check meant to catch its defect"
configure > "$work/configure.log" 2>&1 || { cat "$work/configure.log"; fail "configure tests/sdk/broken_plugin"; }
"$cmake" --build "$work/build" > "$work/build.log" 2>&1 || { cat "$work/build.log"; fail "build the broken plugins"; }
grep -i "warning" "$work/build.log" && fail "the broken plugins build with warnings"
"$cmake" -E chdir "$work/build" "$ctest" -j2 --output-on-failure > "$work/ctest.log" 2>&1
status=$?
cat "$work/ctest.log"
[ $status -ne 0 ] || fail "ctest passed with three broken solvers"
grep -q "0% tests passed, 3 tests failed out of 3" "$work/ctest.log" || fail "not exactly three checks ran and failed"
# Each check fails for its own reason, not because a run broke down. CMake wraps the messages, so they
# are compared with the log's white space squeezed.
tr -s ' \n' '  ' < "$work/ctest.log" > "$work/ctest.flat"
expect() {
    grep -q "$1 .*Failed" "$work/ctest.log" || fail "$1 did not fail"
    grep -qF "$2" "$work/ctest.flat" || fail "$1 failed without saying: $2"
}
expect unstable_sum_threads "the state after --threads 1 and --threads 2 differs: solver 'unstable_sum' is not deterministic"
expect forgetful_load_resume "ends in another state than the uninterrupted one: solver 'forgetful_load' does not carry all of its state"
expect weak_pressure_hydrostatic "solver 'weak_pressure' does not hold water at rest"
grep -q "off by .* FAIL$" "$work/ctest.log" || fail "check_hydrostatic.py flagged no depth band"
grep -qE "exited with|printed no state-hash" "$work/ctest.log" && fail "a run of a broken solver exited with an error: the checks were not what failed"

echo "== wrong calls of eddy_add_plugin_tests stop the configuration"
bad() {
    configure -DBAD_CALL="$1" > "$work/bad$1.log" 2>&1 && fail "BAD_CALL=$1 configured"
    tr -s ' \n' '  ' < "$work/bad$1.log" | grep -qF "$2" || { cat "$work/bad$1.log"; fail "BAD_CALL=$1 did not say: $2"; }
    echo "BAD_CALL=$1: $2"
}
bad 1 "eddy_add_plugin_tests(forgetful_load): SKIP hydrostatics: no such check"
bad 2 "eddy_add_plugin_tests(forgetful_load): THREADS 0: a thread count is a whole number from 1"
bad 3 "eddy_add_plugin_tests(forgetful_load): RESUME_SETTINGS: '--set time.dt=0.01 --set a=1' where --set was expected"
bad 4 "eddy_add_plugin_tests(forgetful_load): SCENE $src/tests/sdk/broken_plugin/no_such_scene.json: no such file"
bad 5 "eddy_add_plugin_tests(forgetful_load): SCENE is required for the threads and resume checks"
bad 6 "eddy_add_plugin_tests(no_such_target): 'no_such_target' is not a target"
bad 7 "eddy_add_plugin_tests(forgetful_load): HYDROSTATIC_SETTINGS: '--set solvers.forgetful_load.alpha' is not --set KEY=VALUE"
bad 8 "eddy_add_plugin_tests(forgetful_load): RESUME_SETTINGS ends with --set and no KEY=VALUE"

echo "== without Python 3 the hydrostatic check is skipped, saying why"
rm -rf "$work/build"
configure -DCMAKE_DISABLE_FIND_PACKAGE_Python3=ON > "$work/nopython.log" 2>&1 || { cat "$work/nopython.log"; fail "configure without Python"; }
grep -q "no Python 3: the test weak_pressure_hydrostatic will report itself skipped" "$work/nopython.log" \
    || { cat "$work/nopython.log"; fail "the configuration did not say that the hydrostatic check will be skipped"; }
"$cmake" -E chdir "$work/build" "$ctest" -V -R weak_pressure_hydrostatic > "$work/nopython_ctest.log" 2>&1 \
    || { cat "$work/nopython_ctest.log"; fail "ctest without Python failed instead of skipping"; }
grep -q "weak_pressure_hydrostatic .*Skipped" "$work/nopython_ctest.log" || { cat "$work/nopython_ctest.log"; fail "the hydrostatic check was not skipped"; }
# ctest -V prefixes each line of the test's output with its number.
sed 's/^[0-9]*: //' "$work/nopython_ctest.log" | tr -s ' \n' '  ' | grep -qF "the hydrostatic check needs Python 3, and none was found" \
    || fail "the skipped check does not say it needs Python 3"
echo "plugin_tests_fail: OK"
