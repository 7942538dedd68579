# Helpers of the check scripts of eddy_add_plugin_tests() (EddyPluginTests.cmake), included by each.
#
# eddy_hash(<var> <eddy argument>...): runs ${EDDY} with the arguments and --hash, and sets <var> to the
# "state-hash: ..." line it prints. The threads and resume checks judge a solver by comparing end
# states; a run that fails or prints no hash stops the check with the run's own output, so the author
# sees the host's error rather than a bare mismatch.
function(eddy_hash var)
  execute_process(COMMAND ${EDDY} ${ARGN} --hash OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  string(REPLACE ";" " " cmd "${ARGN}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "eddy ${cmd} --hash exited with ${rc}:\n${out}${err}")
  endif()
  string(REGEX MATCH "state-hash: [0-9a-f]+" hash "${out}")
  if(NOT hash)
    message(FATAL_ERROR "eddy ${cmd} --hash printed no state-hash:\n${out}${err}")
  endif()
  set(${var} "${hash}" PARENT_SCOPE)
endfunction()

# The --set options of a check, passed by eddy_add_plugin_tests() as one shell-quoted string because
# a CMake list would be split apart on its way through add_test.
macro(eddy_check_settings var)
  if(DEFINED SETTINGS)
    separate_arguments(${var} UNIX_COMMAND "${SETTINGS}")
  else()
    set(${var})
  endif()
endmacro()
