# EddyPlugin.cmake — eddy_add_plugin(), the one definition of how an eddy solver plugin is built.
#
# Used by eddy's own build (plugins/*) and, installed next to eddyConfig.cmake, by third-party
# projects after find_package(eddy). It needs a target eddy::eddy (libeddy); OpenMP::OpenMP_C is linked
# when it exists.
#
#   eddy_add_plugin(<target> SOURCES <file>...
#                   [OUTPUT_NAME <name>]     # file name without .so; default eddy_<target>
#                   [OUTPUT_DIR <dir>]       # build-tree folder of the .so; default: CMake's default,
#                                            # or EDDY_PLUGIN_OUTPUT_DIR when that variable is set
#                   [INSTALL_DESTINATION <dir>]  # default lib/eddy/plugins (relative to the prefix)
#                   [NO_INSTALL])            # build only (test plugins)
#
# In eddy's own tree (where EDDY_PLUGIN_OUTPUT_DIR is set) a plugin given another OUTPUT_DIR is a
# build-tree-only plugin (a test plugin) and is not installed unless INSTALL_DESTINATION is given.
#
# What it sets, and why:
#   - a MODULE library (a dlopen-only shared object, never linked against);
#   - file name eddy_<target>.so with no "lib" prefix: the host tries exactly the files named eddy_*.so;
#   - hidden visibility for C and C++ (and inline functions): the plugin exports only
#     eddy_plugin_entry, which <eddy/defs.h> marks EDDY_EXPORT;
#   - position-independent code, and linking libeddy, the SPH toolkit eddy::sph (docs/toolkit.md) and
#     OpenMP when found (for C, and for C++ when the plugin has C++ sources);
#   - an install rule to <prefix>/lib/eddy/plugins, the folder the installed `eddy` searches
#     (<exe>/../lib/eddy/plugins), with the RPATH $ORIGIN/../.. so that the installed plugin finds the
#     libeddy of the same prefix.
include_guard(GLOBAL)

# Where plugins are installed, relative to the prefix: the folder the installed host searches.
if(NOT DEFINED EDDY_PLUGIN_INSTALL_DIR)
  set(EDDY_PLUGIN_INSTALL_DIR "lib/eddy/plugins")
endif()

function(eddy_add_plugin target)
  cmake_parse_arguments(ARG "NO_INSTALL" "OUTPUT_NAME;OUTPUT_DIR;INSTALL_DESTINATION" "SOURCES"
                        ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "eddy_add_plugin(${target}): unknown arguments: ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "eddy_add_plugin(${target}): SOURCES is required")
  endif()
  if(NOT TARGET eddy::eddy)
    message(FATAL_ERROR "eddy_add_plugin(${target}): no target eddy::eddy; call find_package(eddy) first")
  endif()
  if(NOT ARG_OUTPUT_NAME)
    set(ARG_OUTPUT_NAME "eddy_${target}")
  endif()
  if(NOT ARG_OUTPUT_NAME MATCHES "^eddy_")
    message(FATAL_ERROR "eddy_add_plugin(${target}): OUTPUT_NAME '${ARG_OUTPUT_NAME}' must start with "
                        "'eddy_': the host loads only files named eddy_*.so")
  endif()
  if(DEFINED EDDY_PLUGIN_OUTPUT_DIR)
    if(NOT ARG_OUTPUT_DIR)
      set(ARG_OUTPUT_DIR ${EDDY_PLUGIN_OUTPUT_DIR})
    elseif(NOT ARG_OUTPUT_DIR STREQUAL EDDY_PLUGIN_OUTPUT_DIR AND NOT ARG_INSTALL_DESTINATION)
      set(ARG_NO_INSTALL TRUE)
    endif()
  endif()
  if(NOT ARG_INSTALL_DESTINATION)
    set(ARG_INSTALL_DESTINATION ${EDDY_PLUGIN_INSTALL_DIR})
  endif()

  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE eddy::eddy)
  # The SPH toolkit (<eddy_sph/...>, a static library: no part of the plugin ABI), where installed.
  if(TARGET eddy::sph)
    target_link_libraries(${target} PRIVATE eddy::sph)
  endif()
  if(TARGET OpenMP::OpenMP_C)
    target_link_libraries(${target} PRIVATE OpenMP::OpenMP_C)
  endif()
  # C++ sources need OpenMP's C++ flags of their own: with only OpenMP_C linked they compile without
  # -fopenmp, and the toolkit's parallel loops (compiled into the plugin) silently run on one thread.
  set(cxx_sources ${ARG_SOURCES})
  list(FILTER cxx_sources INCLUDE REGEX "\\.(cpp|cxx|cc|C|c\\+\\+)$")
  if(cxx_sources)
    if(NOT TARGET OpenMP::OpenMP_CXX)
      find_package(OpenMP QUIET COMPONENTS CXX)
    endif()
    if(TARGET OpenMP::OpenMP_CXX)
      target_link_libraries(${target} PRIVATE OpenMP::OpenMP_CXX)
    else()
      message(WARNING "eddy_add_plugin(${target}): no OpenMP for C++ was found; the plugin's C++ sources "
                      "(${cxx_sources}) and the toolkit loops they contain will run on one thread")
    endif()
  endif()
  set_target_properties(${target} PROPERTIES
    PREFIX ""
    SUFFIX ".so"
    OUTPUT_NAME ${ARG_OUTPUT_NAME}
    C_VISIBILITY_PRESET hidden
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    POSITION_INDEPENDENT_CODE ON
    INSTALL_RPATH "$ORIGIN/../..")
  if(ARG_OUTPUT_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIR})
  endif()
  if(NOT ARG_NO_INSTALL)
    install(TARGETS ${target} LIBRARY DESTINATION ${ARG_INSTALL_DESTINATION})
  endif()
endfunction()
