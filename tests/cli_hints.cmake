# The hints `eddy` gives about where it looks for plugins (included after cli.cmake, whose EDDY_EXE,
# EXPECT, SCENES and CLI_OUT it uses).

# An EDDY_PLUGIN_PATH entry that is no folder is warned about by every command that loads plugins, in
# the words `eddy list` gives it; `eddy run` went on without a word, and without the plugins meant.
add_test(NAME cli_plugin_path_missing_warned_by_run COMMAND ${EXPECT} 0
         "eddy: warning: ${CLI_OUT}/no_such_plugins: EDDY_PLUGIN_PATH names a folder that cannot be read: No such file or directory; no plugin is searched there (`eddy list` shows the plugins found and those refused)"
         ${EDDY_EXE} run ${CMAKE_CURRENT_SOURCE_DIR}/bench_at/small_dam_break.json --steps 1
         --out ${CLI_OUT}/plugin_path_missing --no-picture --quiet)
add_test(NAME cli_plugin_path_file_warned_by_describe COMMAND ${EXPECT} 0
         "eddy: warning: ${SCENES}/dam_break_2d.json: EDDY_PLUGIN_PATH lists folders, and this is a file: give its folder '${SCENES}' (and name the file eddy_<name>.so); no plugin is searched there"
         ${EDDY_EXE} describe tait)
# Once per entry, and empty entries (EDDY_PLUGIN_PATH=$EDDY_PLUGIN_PATH:dir with it unset) skipped.
add_test(NAME cli_plugin_path_warned_once COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli_hints_plugin_path.sh
         ${EDDY_EXE} ${CLI_OUT}/plugin_path_once)
set_tests_properties(cli_plugin_path_missing_warned_by_run PROPERTIES
                     ENVIRONMENT "EDDY_PLUGIN_PATH=${CLI_OUT}/no_such_plugins;OMP_WAIT_POLICY=PASSIVE")
set_tests_properties(cli_plugin_path_file_warned_by_describe PROPERTIES
                     ENVIRONMENT "EDDY_PLUGIN_PATH=${SCENES}/dam_break_2d.json")
