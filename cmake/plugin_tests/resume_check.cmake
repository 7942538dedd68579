# cmake -DEDDY=<eddy> -DSOLVER=<solver id> -DSCENE=<scene.json> -DOUT=<folder> [-DSETTINGS="<--set ...>"]
#       -P resume_check.cmake                       (the <id>_resume test of eddy_add_plugin_tests)
#
# A run stopped after 10 steps and resumed from its checkpoint must end in the state of one
# uninterrupted run to t = 0.1 s (the same state hash). State the solver keeps between steps outside the
# particle fields reaches the resumed run only through save() and load(), but it changes the end
# state only when it changes what the run does: SETTINGS must make it matter. For a solver whose time
# step depends on such state (a force limit from the last step's largest acceleration, say), that
# means settings under which that limit, not the CFL limit, sets the step; check that this test fails
# with a load() that restores nothing.
include(${CMAKE_CURRENT_LIST_DIR}/check_common.cmake)
eddy_check_settings(settings)
set(common ${SCENE} --solver ${SOLVER} ${settings} --quiet --no-picture)
file(REMOVE_RECURSE ${OUT})
eddy_hash(full run ${common} --until 0.1 --out ${OUT}/full)
eddy_hash(split run ${common} --steps 10 --out ${OUT}/split)
eddy_hash(resumed resume ${OUT}/split --until 0.1 --quiet --no-picture)
message("uninterrupted: ${full}\nresumed:       ${resumed}")
if(NOT full STREQUAL resumed)
  message(FATAL_ERROR "the run resumed after 10 steps ends in another state than the uninterrupted one: "
                      "solver '${SOLVER}' does not carry all of its state through save() and load()")
endif()
