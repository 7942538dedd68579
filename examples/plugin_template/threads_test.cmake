# cmake -DEDDY=<eddy> -DSOLVER=<solver id> -DSCENE=<scene.json> -DOUT=<folder> -P threads_test.cmake
#
# The solver runs the scene to its end, and the run is bit-identical for any thread count, as eddy
# promises for every solver: --threads 1 and --threads 2 end in the same state hash. A solver that sums
# its neighbours in an order that depends on the threads (atomics, per-thread partial sums, a reduction
# whose order changes) fails here; so does a run that exits with an error or prints no hash.
file(REMOVE_RECURSE ${OUT})
function(eddy_hash var threads)
  execute_process(COMMAND ${EDDY} run ${SCENE} --solver ${SOLVER} --threads ${threads} --hash --quiet --no-picture
                          --out ${OUT}/threads_${threads}
                  OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "eddy run --threads ${threads} exited with ${rc}:\n${out}${err}")
  endif()
  string(REGEX MATCH "state-hash: [0-9a-f]+" hash "${out}")
  if(NOT hash)
    message(FATAL_ERROR "eddy run --threads ${threads} printed no state-hash:\n${out}${err}")
  endif()
  set(${var} "${hash}" PARENT_SCOPE)
endfunction()
eddy_hash(one 1)
eddy_hash(two 2)
message("1 thread:  ${one}\n2 threads: ${two}")
if(NOT one STREQUAL two)
  message(FATAL_ERROR "the state after 1 and 2 threads differs: the solver is not deterministic across threads")
endif()
