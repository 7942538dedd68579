# cmake -DSOURCE=DIR -DOUT=FILE -DCOMPILER=TEXT -DBUILD_TYPE=TEXT -P eddy_build_info.cmake: writes FILE, a
# C header naming the source's commit (git describe of DIR, "-dirty" when it has uncommitted changes;
# "unknown" outside a git checkout, e.g. a release tarball), the compiler and the build type, for the
# provenance of run.json and the reports (host/drive/provenance.c). Run at every build, so the commit is
# the one built, not the one configured; FILE is rewritten only when its text changes, so an unchanged
# commit recompiles nothing.
execute_process(COMMAND git -C "${SOURCE}" describe --always --dirty --abbrev=12
                OUTPUT_VARIABLE commit RESULT_VARIABLE status OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
# Only eddy's own checkout: unpacked or vendored inside another repository, git would name that one's.
execute_process(COMMAND git -C "${SOURCE}" rev-parse --show-toplevel
                OUTPUT_VARIABLE toplevel RESULT_VARIABLE top_status OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
get_filename_component(source_real "${SOURCE}" REALPATH)
if(top_status EQUAL 0)
  get_filename_component(toplevel "${toplevel}" REALPATH)
endif()
if(NOT status EQUAL 0 OR commit STREQUAL "" OR NOT top_status EQUAL 0 OR NOT toplevel STREQUAL source_real)
  set(commit "unknown")
endif()
if(BUILD_TYPE STREQUAL "")
  set(BUILD_TYPE "no build type")
endif()
set(text "#define EDDY_BUILD_COMMIT \"${commit}\"\n#define EDDY_BUILD_COMPILER \"${COMPILER}\"\n#define EDDY_BUILD_TYPE \"${BUILD_TYPE}\"\n")
set(old "")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
