# EddyPluginTests.cmake — eddy_add_plugin_tests(), the standard CTest checks of a solver plugin.
#
# Installed next to eddyConfig.cmake, which includes it, with the scripts the tests run (plugin_tests/);
# so every plugin gets the same checks, kept up to date with eddy, instead of a copy of them. Needs the
# targets eddy::cli (the installed host runs the tests) and the solver's plugin target, and
# EDDY_SCENES_DIR (eddyConfig.cmake sets both).
#
#   eddy_add_plugin_tests(<solver id>
#       [TARGET <target>]                  # the plugin's target (eddy_add_plugin); default <solver id>
#       [SCENE <scene.json>]               # the scene of the threads and resume checks; relative paths
#                                          # are taken from CMAKE_CURRENT_SOURCE_DIR
#       [RESUME_SETTINGS --set KEY=VALUE ...]       # options of the resume check's runs
#       [HYDROSTATIC_SETTINGS --set KEY=VALUE ...]  # options of the hydrostatic check's run
#       [THREADS <n> <n> ...]              # thread counts of the threads check; default 1 2
#       [SKIP threads|resume|hydrostatic ...]
#       [SUFFIX <word>])                   # names the tests <solver id>_<check>_<word>: a second call
#                                          # adds a second set, e.g. a resume check with other settings
#
# registers, each named <solver id>_<check> and run with EDDY_PLUGIN_PATH at the target's folder:
#   threads      SCENE to its end once per THREADS count: every run exits 0 and prints the same
#                --hash (eddy promises bit-identical runs for any thread count)
#   resume       SCENE to t = 0.1 s, and again stopped by --steps 10 and resumed (`eddy resume`): both
#                end in the same --hash, which save()/load() must make true
#   hydrostatic  EDDY_SCENES_DIR/hydrostatic_tank.json coarsened to 1500 particles for 0.5 s: the
#                pressure averaged over t >= 0.2 s is rho0 g d in three depth bands within 5% of
#                rho0 g H (plugin_tests/check_hydrostatic.py)
# SCENE is required unless threads and resume are both skipped. SKIP only drops checks: the other
# arguments may stay (and are still checked), so a check is turned off and on by one word.
#
# The hydrostatic check runs Python 3. Without one the test is still registered and reports itself
# skipped, naming what is missing (a configure-time error would stop authors who merely lack Python
# from building their plugin; a missing test would go unnoticed): `ctest` lists it under the tests
# that did not run.
include_guard(GLOBAL)
# A function runs under the policies in force where it was defined: these, not the including
# project's (IN_LIST needs CMP0057 even in a project that declares an older CMake).
cmake_policy(PUSH)
cmake_policy(VERSION 3.18)

# A macro around the function because enable_testing() only takes effect in the calling directory's
# scope (in a function's it is lost, and ctest finds no tests): the author need not call it.
macro(eddy_add_plugin_tests)
  if(${ARGC} EQUAL 0)
    message(FATAL_ERROR "eddy_add_plugin_tests(): the solver id is required: eddy_add_plugin_tests(<solver id> ...)")
  endif()
  enable_testing()
  _eddy_add_plugin_tests(${ARGV})
endmacro()

function(_eddy_add_plugin_tests solver)
  set(fn "eddy_add_plugin_tests(${solver})")
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "TARGET;SCENE;SUFFIX" "RESUME_SETTINGS;HYDROSTATIC_SETTINGS;THREADS;SKIP")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "${fn}: unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  foreach(kw TARGET SCENE SUFFIX RESUME_SETTINGS HYDROSTATIC_SETTINGS THREADS SKIP)
    if(kw IN_LIST ARG_KEYWORDS_MISSING_VALUES)
      message(FATAL_ERROR "${fn}: ${kw} is given without a value")
    endif()
  endforeach()
  # The id the host knows the solver by: tests pass it to --solver and name solvers.<id>.* settings.
  if(NOT solver MATCHES "^[a-z0-9_]+$")
    message(FATAL_ERROR "${fn}: '${solver}' is not a solver id: ids are made of [a-z0-9_]")
  endif()

  set(suffix)
  if(ARG_SUFFIX)
    if(NOT ARG_SUFFIX MATCHES "^[A-Za-z0-9_]+$")
      message(FATAL_ERROR "${fn}: SUFFIX '${ARG_SUFFIX}': a suffix of test names is made of [A-Za-z0-9_]")
    endif()
    set(suffix _${ARG_SUFFIX})
  endif()

  set(checks threads resume hydrostatic)
  foreach(check ${ARG_SKIP})
    if(NOT check IN_LIST checks)
      message(FATAL_ERROR "${fn}: SKIP ${check}: no such check; the checks are ${checks}")
    endif()
  endforeach()
  list(REMOVE_ITEM checks ${ARG_SKIP})

  if(NOT ARG_TARGET)
    set(ARG_TARGET ${solver})
  endif()
  if(NOT TARGET ${ARG_TARGET})
    message(FATAL_ERROR "${fn}: '${ARG_TARGET}' is not a target; pass the plugin's target "
                        "(the first argument of eddy_add_plugin) as TARGET")
  endif()
  if(NOT TARGET eddy::cli)
    message(FATAL_ERROR "${fn}: no target eddy::cli (the host that runs the tests); call find_package(eddy) first")
  endif()

  if("threads" IN_LIST checks OR "resume" IN_LIST checks)
    if(NOT ARG_SCENE)
      message(FATAL_ERROR "${fn}: SCENE is required for the threads and resume checks "
                          "(a small scene that uses the solver; or SKIP threads resume)")
    endif()
    get_filename_component(scene "${ARG_SCENE}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    if(NOT EXISTS "${scene}" OR IS_DIRECTORY "${scene}")
      message(FATAL_ERROR "${fn}: SCENE ${scene}: no such file")
    endif()
  endif()

  if(NOT ARG_THREADS)
    set(ARG_THREADS 1 2)
  endif()
  foreach(n ${ARG_THREADS})
    if(NOT n MATCHES "^[1-9][0-9]*$")
      message(FATAL_ERROR "${fn}: THREADS ${n}: a thread count is a whole number from 1")
    endif()
  endforeach()
  set(distinct ${ARG_THREADS})
  list(REMOVE_DUPLICATES distinct)
  list(LENGTH distinct n_distinct)
  if("threads" IN_LIST checks AND n_distinct LESS 2)
    message(FATAL_ERROR "${fn}: THREADS ${ARG_THREADS}: give at least two different thread counts to compare")
  endif()
  list(JOIN ARG_THREADS " " threads)

  # Each settings list travels to its script as one string that the script splits like a shell
  # command line, so every element is quoted: a value with spaces stays one argument.
  foreach(kind RESUME HYDROSTATIC)
    set(quoted)
    set(expect_set TRUE)
    foreach(a ${ARG_${kind}_SETTINGS})
      if(expect_set AND NOT a STREQUAL "--set")
        message(FATAL_ERROR "${fn}: ${kind}_SETTINGS: '${a}' where --set was expected; the settings are "
                            "separate arguments --set KEY=VALUE ... (not one string)")
      elseif(NOT expect_set AND NOT a MATCHES "^[^=]+=")
        message(FATAL_ERROR "${fn}: ${kind}_SETTINGS: '--set ${a}' is not --set KEY=VALUE")
      endif()
      string(REPLACE "\\" "\\\\" a "${a}")
      string(REPLACE "\"" "\\\"" a "${a}")
      string(APPEND quoted " \"${a}\"")
      if(expect_set)
        set(expect_set FALSE)
      else()
        set(expect_set TRUE)
      endif()
    endforeach()
    if(NOT expect_set)
      message(FATAL_ERROR "${fn}: ${kind}_SETTINGS ends with --set and no KEY=VALUE")
    endif()
    string(STRIP "${quoted}" ${kind}_settings)
  endforeach()

  set(scripts "${CMAKE_CURRENT_FUNCTION_LIST_DIR}/plugin_tests")
  set(out "${CMAKE_CURRENT_BINARY_DIR}/eddy_plugin_tests")
  set(env "EDDY_PLUGIN_PATH=$<TARGET_FILE_DIR:${ARG_TARGET}>")
  set(common -DEDDY=$<TARGET_FILE:eddy::cli> -DSOLVER=${solver})

  if("threads" IN_LIST checks)
    add_test(NAME ${solver}_threads${suffix}
             COMMAND ${CMAKE_COMMAND} ${common} -DSCENE=${scene} -DOUT=${out}/${solver}_threads${suffix}
                     "-DTHREADS=${threads}" -P ${scripts}/threads_check.cmake)
    set_tests_properties(${solver}_threads${suffix} PROPERTIES ENVIRONMENT "${env}" TIMEOUT 120)
  endif()
  if("resume" IN_LIST checks)
    add_test(NAME ${solver}_resume${suffix}
             COMMAND ${CMAKE_COMMAND} ${common} -DSCENE=${scene} -DOUT=${out}/${solver}_resume${suffix}
                     "-DSETTINGS=${RESUME_settings}" -P ${scripts}/resume_check.cmake)
    set_tests_properties(${solver}_resume${suffix} PROPERTIES ENVIRONMENT "${env}" TIMEOUT 120)
  endif()
  if("hydrostatic" IN_LIST checks)
    if(NOT EDDY_SCENES_DIR OR NOT EXISTS "${EDDY_SCENES_DIR}/hydrostatic_tank.json")
      message(FATAL_ERROR "${fn}: no hydrostatic_tank.json in EDDY_SCENES_DIR ('${EDDY_SCENES_DIR}'), "
                          "which find_package(eddy) sets; is the eddy installation complete?")
    endif()
    find_package(Python3 QUIET COMPONENTS Interpreter)
    set(python)
    if(Python3_Interpreter_FOUND)
      set(python ${Python3_EXECUTABLE})
    else()
      message(STATUS "${fn}: no Python 3: the test ${solver}_hydrostatic${suffix} will report itself skipped")
    endif()
    add_test(NAME ${solver}_hydrostatic${suffix}
             COMMAND ${CMAKE_COMMAND} ${common} -DPYTHON=${python} -DSCENE=${EDDY_SCENES_DIR}/hydrostatic_tank.json
                     -DOUT=${out}/${solver}_hydrostatic${suffix} "-DSETTINGS=${HYDROSTATIC_settings}"
                     -P ${scripts}/hydrostatic_check.cmake)
    set_tests_properties(${solver}_hydrostatic${suffix} PROPERTIES ENVIRONMENT "${env}" TIMEOUT 300)
    if(NOT python)
      set_tests_properties(${solver}_hydrostatic${suffix} PROPERTIES
                           SKIP_REGULAR_EXPRESSION "eddy_add_plugin_tests: SKIPPED")
    endif()
  endif()
endfunction()

cmake_policy(POP)
