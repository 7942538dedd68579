# cmake -DPROGRAM=FILE -DFOLDER=DIR -P cli_hints_drop_rpath.cmake: takes the folder DIR out of the
# run-time search path (DT_RPATH or DT_RUNPATH) of the ELF file FILE, its other entries kept; nothing
# where DIR is not one of them.
# cli_list_says_no_solver_found points a copy of the program at a copy of libeddy with LD_LIBRARY_PATH,
# which a DT_RUNPATH yields to but a DT_RPATH does not (a build linked with --disable-new-dtags, as
# tools/gpu-check.sh links): the copy would load the build's libeddy, whose folder holds the plugins.
# The other entries stay because they may be where the program finds libcairo and the like.
cmake_minimum_required(VERSION 3.18)
foreach(v PROGRAM FOLDER)
  if(NOT ${v})
    message(FATAL_ERROR "cli_hints_drop_rpath.cmake: give -D${v}=")
  endif()
endforeach()
file(READ_ELF "${PROGRAM}" RPATH rpath RUNPATH runpath CAPTURE_ERROR error)
if(error)
  message(FATAL_ERROR "cli_hints_drop_rpath.cmake: ${PROGRAM}: ${error}")
endif()
# READ_ELF gives the path as a list; the ELF file holds it joined with ':'.
string(REPLACE ";" ":" rpath "${rpath}")
string(REPLACE ";" ":" runpath "${runpath}")
if(rpath AND runpath AND NOT rpath STREQUAL runpath)
  message(FATAL_ERROR "cli_hints_drop_rpath.cmake: ${PROGRAM} has an RPATH (${rpath}) and a different RUNPATH (${runpath})")
endif()
set(old "${rpath}")
if(runpath)
  set(old "${runpath}")
endif()
set(path ":${old}:")
string(FIND "${path}" ":${FOLDER}:" at)
while(at GREATER -1)
  string(REPLACE ":${FOLDER}:" ":" path "${path}")
  string(FIND "${path}" ":${FOLDER}:" at)
endwhile()
if(path STREQUAL ":")
  set(new "")
else()
  string(REGEX REPLACE "^:(.*):$" "\\1" new "${path}")
endif()
if(NOT new STREQUAL old)
  file(RPATH_CHANGE FILE "${PROGRAM}" OLD_RPATH "${old}" NEW_RPATH "${new}")
endif()
