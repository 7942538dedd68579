# eddy_cmocka_cases(PREFIX TARGET CASE...): one CTest entry PREFIX_CASE per case of the cmocka program
# TARGET (run as `TARGET CASE`, tests/support/sim_support.h), so that `ctest -j` spreads a suite's cases
# over the cores and reports each alone; plus PREFIX_cases_registered, which fails when the program
# holds a case this list lacks (it would never run) or the list names one the program lacks.
# OMP_WAIT_POLICY=PASSIVE: two OpenMP programs side by side on a 2-core machine otherwise spin against
# each other.
function(eddy_cmocka_cases prefix target)
  foreach(c ${ARGN})
    add_test(NAME ${prefix}_${c} COMMAND ${target} ${c})
    set_tests_properties(${prefix}_${c} PROPERTIES
      ENVIRONMENT "EDDY_SOURCE_DIR=${PROJECT_SOURCE_DIR};EDDY_BINARY_DIR=${PROJECT_BINARY_DIR};OMP_WAIT_POLICY=PASSIVE")
  endforeach()
  string(REPLACE ";" " " listed "${ARGN}")
  add_test(NAME ${prefix}_cases_registered
           COMMAND sh ${PROJECT_SOURCE_DIR}/tests/support/cases.sh $<TARGET_FILE:${target}> "${listed}")
endfunction()
