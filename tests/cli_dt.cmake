# The time step the solver's stable-dt limit takes in place of the scene's time.dt (host/drive/run.c,
# compare.c, host/session/sim.c), and the states that leave no stable step (included after cli.cmake, whose
# EDDY_EXE, EXPECT, SCENES and CLI_OUT it uses). The robust test solver (tests/robust/faulty_plugin.c)
# gives limits known in advance; its folders are built with eddy_cli.
set(DT_FAULTY ${PROJECT_BINARY_DIR}/robust_plugins/faulty)
set(DT_RUN ${SCENES}/dam_break_2d.json --solver robust_faulty --no-picture --format csv)

# dt_test(NAME STATUS TEXT ARGS...): `eddy ARGS...` with the robust test solver's folder in EDDY_PLUGIN_PATH.
function(dt_test name status text)
  add_test(NAME cli_dt_${name} COMMAND ${EXPECT} ${status} "${text}" ${EDDY_EXE} ${ARGN})
  set_tests_properties(cli_dt_${name} PROPERTIES TIMEOUT 60
                       ENVIRONMENT "EDDY_PLUGIN_PATH=${DT_FAULTY};OMP_WAIT_POLICY=PASSIVE")
endfunction()

# The limit the run steps with was said once, at its first step, though it may shrink later (the CFL
# limit follows the fastest particle): the end of the run says how many steps it shortened and the
# shortest. dt_window limits steps 3 and 4 to 1e-5 s.
dt_test(limit_summary 0 "eddy: 2 of 10 steps were shorter than time.dt = 5e-05 s, limited by the solver's test limit (shortest step 1e-05 s)"
        run ${DT_RUN} --steps 10 --set solvers.robust_faulty.fault=dt_window --set solvers.robust_faulty.at_step=3
        --out ${CLI_OUT}/dt_summary)
# Steps shortened to land on an output time do not count, but a step halved before landing does where
# time.dt (5e-5 s) would have landed in one step: a limit of 1e-5 s and frames every 2.5e-5 s step
# 1e-5, then 7.5e-6 (half of the 1.5e-5 s left) and 7.5e-6 (the landing), four frames: the longest step,
# 1e-5 s, is said with the shortest (the shortest alone read as the step the limit set).
dt_test(limit_summary_not_landings 0 "eddy: 8 of 12 steps were shorter than time.dt = 5e-05 s, limited by the solver's stability limit (shortest step 7.5e-06 s, longest 1e-05 s)"
        run ${DT_RUN} --set solvers.robust_faulty.fault=dt_unnamed --set time.output_interval=2.5e-5
        --set time.end=1e-4 --out ${CLI_OUT}/dt_summary_landings)
# A limit just below time.dt (a float's rounding of the CFL limit) read as time.dt itself at %.4g: "time
# step 5e-05 s is above the solver's CFL limit; stepping with 5e-05 s". It changes every step, so it is
# still said, with the digits that tell the two apart.
dt_test(limit_just_below_said_apart 0 "warning: the solver's stability limit, 1e-05 s, is just below the time step 1.00000001e-05 s (by a relative 1e-08); stepping with the limit, so the steps differ from time.dt's"
        run ${DT_RUN} --steps 2 --set solvers.robust_faulty.fault=dt_unnamed --set time.dt=1.00000001e-05
        --out ${CLI_OUT}/dt_just_below)
# eddy compare's report gives the same figures per solver (it named the largest limited step alone).
add_test(NAME cli_dt_limit_summary_compare
         COMMAND ${EXPECT} 0 "; steps below the scene's 5e-05 s under its test limit (1e-05 s): 2 of 10 steps.\n"
                 sh -c "\"$0\" \"$@\" >/dev/null 2>&1 || exit 3; cat '${CLI_OUT}/dt_compare/summary.md'"
                 ${EDDY_EXE} compare ${SCENES}/dam_break_2d.json --solvers robust_faulty --steps 10 --quiet
                 --set solvers.robust_faulty.fault=dt_window --set solvers.robust_faulty.at_step=3
                 --out ${CLI_OUT}/dt_compare)
set_tests_properties(cli_dt_limit_summary_compare PROPERTIES TIMEOUT 60
                     ENVIRONMENT "EDDY_PLUGIN_PATH=${DT_FAULTY};OMP_WAIT_POLICY=PASSIVE")

# A checkpoint whose particle moves at 1e18 sim units/s: the CFL limit is below the clock's resolution at
# t = 2.5e-4 s. It was blamed on the solver ("solver 'sph_mueller' at step 6: max_dt returned 2e-21 s
# (CFL), too small to advance the clock"); the speed explains it, so the state is named. A limit the
# speed does not explain is still the solver's: robust_plugin_faulty_dt_tiny.
add_test(NAME cli_dt_too_small_from_speed
         COMMAND ${EXPECT} 1 "eddy: error: at step 6: the largest particle speed, 1e+18 sim units/s, makes the solver's CFL limit "
                 sh -c "d=$0; k=$1; shift 1; \"$@\" run '${SCENES}/dam_break_2d.json' --steps 5 --quiet --no-picture --format csv --out \"$d\" && \"$k\" \"$d/checkpoint.eddy\" field velocity 0 5 1e18 || exit 3; exec \"$@\" resume \"$d\" --steps 10 --quiet --no-picture"
                 ${CLI_OUT}/dt_too_small_speed $<TARGET_FILE:ckedit> ${EDDY_EXE})
set_tests_properties(cli_dt_too_small_from_speed PROPERTIES TIMEOUT 60 ENVIRONMENT "OMP_WAIT_POLICY=PASSIVE")
# The same at 1.25e17: a particle crosses h in 4e-20 s, which the clock resolves, but the CFL limit (a
# fraction of it) does not; the speed explains it all the same (it was "max_dt returned 1.6e-20 s").
add_test(NAME cli_dt_too_small_from_speed_resolved_crossing
         COMMAND ${EXPECT} 1 "eddy: error: at step 6: the largest particle speed, 1.25e+17 sim units/s, makes the solver's CFL limit "
                 sh -c "d=$0; k=$1; shift 1; \"$@\" run '${SCENES}/dam_break_2d.json' --steps 5 --quiet --no-picture --format csv --out \"$d\" && \"$k\" \"$d/checkpoint.eddy\" field velocity 0 5 1.25e17 || exit 3; exec \"$@\" resume \"$d\" --steps 10 --quiet --no-picture"
                 ${CLI_OUT}/dt_too_small_speed_resolved $<TARGET_FILE:ckedit> ${EDDY_EXE})
set_tests_properties(cli_dt_too_small_from_speed_resolved_crossing PROPERTIES TIMEOUT 60 ENVIRONMENT "OMP_WAIT_POLICY=PASSIVE")

# A gravity whose square overflows a float leaves a force limit of 0: refused when the scene is read, as
# a fluid's velocity is, not at the first step after the output folder's previous run was cleared.
cli_test(dt_gravity_overflows_float 1 "eddy: error: --set 'world.gravity=[0,-1e20]': world.gravity: expected a magnitude below 1.8446743525e19 (sim units/s^2; its square must fit single precision, or no time step is stable), got 1e+20"
         run ${SCENES}/dam_break_2d.json --steps 2 --set world.gravity=[0,-1e20] --quiet --no-picture
         --out ${CLI_OUT}/dt_gravity)
# At the bound: 2^64 - 2^39 = 1.8446743525e19 and above round to 2^64 as a float, whose square
# overflows; the limit and the value are printed so that the refused one reads as not below it (with
# "1.8e19", 1.84e19 passed, and with "1.8446744e19" 1.84467438e19 was refused as if below).
cli_test(dt_gravity_at_the_float_bound 1 "world.gravity: expected a magnitude below 1.8446743525e19 (sim units/s^2; its square must fit single precision, or no time step is stable), got 1.8446744e+19"
         run ${SCENES}/dam_break_2d.json --steps 2 --set "world.gravity=[0,-1.84467438e19]" --quiet --no-picture
         --out ${CLI_OUT}/dt_gravity_bound)

# Under 2 processes the figures are the same on each (the step and the limit's name are agreed): said
# once. robust_sides (dt_by_side): the right side's limit, 1e-5 s, is every step's.
set(DT_MPIRUN ${EDDY_TEST_MPIRUN})
add_test(NAME mpi_dt_limit_summary_said_once
         COMMAND sh -c "m=$0; e=$1; shift 1; command -v \"$m\" >/dev/null 2>&1 || { echo 'skipped: no mpirun'; exit 77; }; \"$e\" --version | grep -q '^processes: MPI' || { echo 'skipped: no MPI'; exit 77; }; out=$(\"$m\" --oversubscribe -np 2 \"$e\" \"$@\" 2>&1) || { echo \"$out\"; exit 1; }; echo \"$out\"; n=$(echo \"$out\" | grep -cxF \"eddy: 3 of 3 steps were shorter than time.dt = 5e-05 s, limited by the solver's right limit (shortest step 1e-05 s)\"); echo \"said $n times\"; [ \"$n\" -eq 1 ]"
                 ${DT_MPIRUN} ${EDDY_EXE} run ${SCENES}/dam_break_2d.json --solver robust_sides
                 --set solvers.robust_sides.fault=dt_by_side --set solvers.robust_sides.side_x=0.08 --steps 3
                 --no-picture --format csv --out ${CLI_OUT}/dt_summary_mpi)
set_tests_properties(mpi_dt_limit_summary_said_once PROPERTIES LABELS mpi SKIP_RETURN_CODE 77 TIMEOUT 120
                     ENVIRONMENT "EDDY_PLUGIN_PATH=${PROJECT_BINARY_DIR}/robust_plugins/sides;${EDDY_MPI_TEST_ENV}")
