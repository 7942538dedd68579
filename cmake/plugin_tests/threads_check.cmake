# cmake -DEDDY=<eddy> -DSOLVER=<solver id> -DSCENE=<scene.json> -DOUT=<folder> -DTHREADS="1 2 ..."
#       -P threads_check.cmake                      (the <id>_threads test of eddy_add_plugin_tests)
#
# The solver runs the scene to its end, and the run is bit-identical for any thread count, as eddy
# promises for every solver: each count in THREADS must end in the first count's state hash. A solver
# that sums its neighbours in an order that depends on the threads (atomics, per-thread partial sums, a
# reduction whose order changes) fails here; so does a run that exits with an error or prints no hash.
include(${CMAKE_CURRENT_LIST_DIR}/check_common.cmake)
separate_arguments(threads UNIX_COMMAND "${THREADS}")
file(REMOVE_RECURSE ${OUT})
set(first)
foreach(n ${threads})
  eddy_hash(hash run ${SCENE} --solver ${SOLVER} --threads ${n} --quiet --no-picture --out ${OUT}/threads_${n})
  message("--threads ${n}: ${hash}")
  if(NOT first)
    set(first ${n})
    set(first_hash "${hash}")
  elseif(NOT hash STREQUAL first_hash)
    message(FATAL_ERROR "the state after --threads ${first} and --threads ${n} differs: solver '${SOLVER}' "
                        "is not deterministic across thread counts (a sum whose order depends on the threads?)")
  endif()
endforeach()
