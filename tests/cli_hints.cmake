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

# A mistyped component id is answered with the registered id it is a typo of (at most 2 edits, 1 for
# ids of 3 characters or fewer; a swap of neighbours is one), after the ids available, and then without
# the hint about where plugins are searched: it said to add the folder that holds eddy_sph_muller.so.
# cli_hints_nearest.sh checks the whole line but for the list of ids, which depends on the plugins built.
set(NEAREST sh ${CMAKE_CURRENT_SOURCE_DIR}/cli_hints_nearest.sh)
add_test(NAME cli_nearest_solver_option COMMAND ${NEAREST} 1
         "eddy: error: unknown solver 'sph_muller' (available: "
         "); did you mean 'sph_mueller'?"
         ${EDDY_EXE} run ${SCENES}/dam_break_2d.json --solver sph_muller --out ${CLI_OUT}/nearest)
add_test(NAME cli_nearest_scene_solver COMMAND ${NEAREST} 1
         "eddy: error: unknown solver 'tiat' (available: "
         "); did you mean 'tait'?"
         ${EDDY_EXE} run ${SCENES}/dam_break_2d.json --set "solver=\"tiat\"" --out ${CLI_OUT}/nearest)
add_test(NAME cli_nearest_describe COMMAND ${NEAREST} 1
         "eddy: error: unknown component 'sph_muller' (available: " "); did you mean 'sph_mueller'?"
         ${EDDY_EXE} describe sph_muller)
# A tie (cpv is one edit from the grid cpu and from the writer csv) or nothing near: no guess, and the
# plugin-path hint stays (a missing plugin is then as likely as a typo).
add_test(NAME cli_nearest_describe_tie_keeps_hint COMMAND ${NEAREST} 1
         "eddy: error: unknown component 'cpv' (available: "
         "; a plugin's components are found in the folders of EDDY_PLUGIN_PATH (it is not set) and in eddy's own plugin folder (searched: ${OWN_PLUGIN_DIRS}): add the folder that holds eddy_cpv.so (`eddy list` shows the plugins found))"
         ${EDDY_EXE} describe cpv)
add_test(NAME cli_nearest_solver_far_keeps_hint COMMAND ${NEAREST} 1
         "eddy: error: unknown solver 'sph_muellerxyz' (available: "
         "; a plugin's components are found in the folders of EDDY_PLUGIN_PATH (it is not set) and in eddy's own plugin folder (searched: ${OWN_PLUGIN_DIRS}): add the folder that holds eddy_sph_muellerxyz.so (`eddy list` shows the plugins found))"
         ${EDDY_EXE} run ${SCENES}/dam_break_2d.json --solver sph_muellerxyz --out ${CLI_OUT}/nearest)
set_tests_properties(cli_nearest_describe_tie_keeps_hint cli_nearest_solver_far_keeps_hint PROPERTIES
                     ENVIRONMENT "EDDY_PLUGIN_PATH=")
# --format: the writers are the host's own, so the message is exact; in a list, the entry is named.
add_test(NAME cli_nearest_format COMMAND ${EXPECT} 2
         "eddy: --format expects writer ids separated by commas (available: csv, vtk), got 'cvs'; did you mean 'csv'?\n"
         ${EDDY_EXE} run ${SCENES}/dam_break_2d.json --format cvs --out ${CLI_OUT}/nearest)
add_test(NAME cli_nearest_format_in_list COMMAND ${EXPECT} 2
         "eddy: --format expects writer ids separated by commas (available: csv, vtk), got 'vtk,cvs'; did you mean 'csv' for 'cvs'?\n"
         ${EDDY_EXE} run ${SCENES}/dam_break_2d.json --format vtk,cvs --out ${CLI_OUT}/nearest)
# The scene's own check of output.format and of its sections' ids (scene/scene_components.c) suggests too.
add_test(NAME cli_nearest_scene_format COMMAND ${EXPECT} 1
         "eddy: error: --set 'output.format=cvs': output.format: expected \"vtk\" or \"csv\", got \"cvs\"; did you mean \"csv\"?"
         ${EDDY_EXE} run ${SCENES}/dam_break_2d.json --set output.format=cvs --out ${CLI_OUT}/nearest)
# Environment variables and plugin paths reach messages and `eddy list` with each control character a
# space (an escape sequence in them was written to the terminal).
add_test(NAME cli_env_values_without_control_characters
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli_hints_env_escapes.sh ${EDDY_EXE} ${SCENES}/dam_break_2d.json
                 ${CLI_OUT}/env_escapes)
# A program without its plugin folder (eddy_cli built alone, or copied away with its libeddy: one
# copied alone finds the plugins beside the build's libeddy) lists no solver: said, with where
# solvers are searched (the listing only lacked their section). The copy's search path loses the
# build's lib folder, which as a DT_RPATH (a build linked with --disable-new-dtags) would outrank
# LD_LIBRARY_PATH and load the build's libeddy.
add_test(NAME cli_list_says_no_solver_found
         COMMAND sh -c "rm -rf \"$1\" && mkdir -p \"$1/bin\" \"$1/lib\" && cp \"$2\" \"$1/bin/eddy\" && cp \"$4\" \"$1/lib/\" &&
                        \"$5\" -DPROGRAM=\"$1/bin/eddy\" -DFOLDER=\"$6\" -P \"$7\" &&
                        EDDY_PLUGIN_PATH= LD_LIBRARY_PATH=\"$1/lib\" sh \"$3\" 0 \"solvers: none found; they are plugins, searched in EDDY_PLUGIN_PATH's folders and in <program>/../lib/eddy/plugins and <folder of libeddy>/eddy/plugins: build them\" \"$1/bin/eddy\" list"
                 sh ${CLI_OUT}/lonely_list ${EDDY_EXE} ${CMAKE_CURRENT_SOURCE_DIR}/expect.sh $<TARGET_SONAME_FILE:eddy>
                 ${CMAKE_COMMAND} $<TARGET_FILE_DIR:eddy> ${CMAKE_CURRENT_SOURCE_DIR}/cli_hints_drop_rpath.cmake)
