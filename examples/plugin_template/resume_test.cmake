# cmake -DEDDY=<eddy> -DSOLVER=<solver id> -DSCENE=<scene.json> -DOUT=<folder> [-DSETTINGS="<--set ...>"]
#       -P resume_test.cmake
#
# A run stopped after 10 steps and resumed from its checkpoint must end in the state of one
# uninterrupted run (the same state hash). SETTINGS (one string of --set options, CMakeLists.txt's
# RESUME_SETTINGS) must make the solver's force limit set the time step, so that the test fails when
# max_accel, the state between steps outside the particle fields, is not carried through save() and
# load(): the resumed run would then take other time steps. The default is tuned to xsph: cfl 0.8, not
# 1 (at 1 the run sits at the edge of stability, where a change of summation order decides whether it
# explodes; 0.7 to 0.9 run stably, and from 0.8 a load() that restores nothing fails this test), and a
# speed of sound sqrt(stiffness) of 10 m/s. A solver with another equation of state needs its own
# settings: check that this test fails with a load() that restores only part of the state.
if(NOT DEFINED SETTINGS)
  set(SETTINGS "--set solvers.${SOLVER}.cfl=0.8 --set solvers.${SOLVER}.alpha=1 --set time.dt=0.01 --set materials[0].stiffness=100")
endif()
separate_arguments(settings UNIX_COMMAND "${SETTINGS}")
set(common ${SCENE} --solver ${SOLVER} ${settings} --quiet --no-picture)
file(REMOVE_RECURSE ${OUT})
function(eddy_hash var)
  execute_process(COMMAND ${EDDY} ${ARGN} --hash OUTPUT_VARIABLE out ERROR_VARIABLE err RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "eddy ${ARGN} exited with ${rc}:\n${out}${err}")
  endif()
  string(REGEX MATCH "state-hash: [0-9a-f]+" hash "${out}")
  if(NOT hash)
    message(FATAL_ERROR "eddy ${ARGN} printed no state-hash:\n${out}${err}")
  endif()
  set(${var} "${hash}" PARENT_SCOPE)
endfunction()
eddy_hash(full run ${common} --until 0.1 --out ${OUT}/full)
eddy_hash(split run ${common} --steps 10 --out ${OUT}/split)
eddy_hash(resumed resume ${OUT}/split --until 0.1 --quiet --no-picture)
message("uninterrupted: ${full}\nresumed:       ${resumed}")
if(NOT full STREQUAL resumed)
  message(FATAL_ERROR "the resumed run ends in another state than the uninterrupted one")
endif()
