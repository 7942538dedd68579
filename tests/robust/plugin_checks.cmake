# Plugin outputs, component ids across search paths, signals while loading.
#
# Fixture plugins (faulty_plugin.c) go to folders of their own under robust_plugins/, so that no other
# suite sees them; each test points EDDY_PLUGIN_PATH at the folders it needs.
set(ROBUST_PLUGINS ${PROJECT_BINARY_DIR}/robust_plugins)
set(ROBUST_ENV_BASE "OMP_WAIT_POLICY=PASSIVE")

# robust_plugin(<name> <folder> [definitions...]): <folder>/eddy_<name>.so from faulty_plugin.c.
function(robust_plugin name folder)
  eddy_add_plugin(robustplugin_${name} SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/faulty_plugin.c
                  OUTPUT_NAME eddy_${name} OUTPUT_DIR ${ROBUST_PLUGINS}/${folder} NO_INSTALL)
  if(ARGN)
    target_compile_definitions(robustplugin_${name} PRIVATE ${ARGN})
  endif()
  # `eddy` is what the tests run, and the loader test scans some: building them builds what they load.
  add_dependencies(eddy_cli robustplugin_${name})
  if(TARGET test_loader)
    add_dependencies(test_loader robustplugin_${name})
  endif()
endfunction()

robust_plugin(robust_faulty faulty)
# A fixed build of an installed solver, as a plugin author tests one: same id as the real sph_mueller.
robust_plugin(shadow_sph_mueller shadow COMPONENT_ID="sph_mueller" PLUGIN_NAME="shadow_sph_mueller")
# Two plugins of one folder with the same id: the second (in name order) is refused.
robust_plugin(dup_a same_dir COMPONENT_ID="robust_dup" PLUGIN_NAME="dup_a")
robust_plugin(dup_b same_dir COMPONENT_ID="robust_dup" PLUGIN_NAME="dup_b")
# A writer, a probe and a grid besides the solver (OTHER_KINDS), for the create() checks of each kind.
robust_plugin(kinds kinds COMPONENT_ID="robust_kinds" PLUGIN_NAME="kinds" OTHER_KINDS)
# Decomposable, for tests/mpi/dt_limit_name.sh.
robust_plugin(sides sides COMPONENT_ID="robust_sides" PLUGIN_NAME="sides" DECOMPOSABLE)

# plugin_check(<name> <status> <text> <plugin path> <args...>): expect.sh with EDDY_PLUGIN_PATH set, TIMEOUT 30;
# with PLUGIN_CHECK_FRESH set (a folder) in the caller, that folder is removed first (fresh_out.sh).
function(plugin_check name status text plugin_path)
  set(fresh)
  if(PLUGIN_CHECK_FRESH)
    set(fresh sh ${PROJECT_SOURCE_DIR}/tests/support/fresh_out.sh ${PLUGIN_CHECK_FRESH})
  endif()
  add_test(NAME robust_plugin_${name} COMMAND ${fresh} ${EXPECT} ${status} "${text}" ${EDDY_EXE} ${ARGN})
  set_tests_properties(robust_plugin_${name} PROPERTIES TIMEOUT 30
                       ENVIRONMENT "EDDY_PLUGIN_PATH=${plugin_path};${ROBUST_ENV_BASE}")
endfunction()

# --- 1. component ids across search paths --------------------------------------------------------
# EDDY_PLUGIN_PATH is searched first and wins, never silently: `eddy list` names both files, and every
# command that uses the shadowing component says so once on stderr (also with --quiet).
get_filename_component(REAL_PLUGIN_DIR ${EDDY_PLUGIN_OUTPUT_DIR} REALPATH)
get_filename_component(REAL_ROBUST_PLUGINS ${ROBUST_PLUGINS} REALPATH)
set(SHADOW_FILE ${REAL_ROBUST_PLUGINS}/shadow/eddy_shadow_sph_mueller.so)
set(SHADOWED_FILE ${REAL_PLUGIN_DIR}/eddy_sph_mueller.so)
set(SHADOW_NOTICE "eddy: notice: solver 'sph_mueller' is the one in ${SHADOW_FILE}, which shadows ${SHADOWED_FILE} (a plugin folder earlier in the search order wins)")
plugin_check(shadow_run_notice 0 "${SHADOW_NOTICE}" ${ROBUST_PLUGINS}/shadow
             run ${SCENES}/dam_break_2d.json --steps 2 --quiet --no-picture --out ${ROBUST_OUT}/shadow_run)
plugin_check(shadow_list 0 "shadowed components (the first one found in the search order is used):\n  sph_mueller      solver  ${SHADOWED_FILE}\n                   shadowed by ${SHADOW_FILE}"
             ${ROBUST_PLUGINS}/shadow list)
plugin_check(shadow_list_uses_shadow 0 "sph_mueller      solver  0.0.1     ${SHADOW_FILE}" ${ROBUST_PLUGINS}/shadow list)
plugin_check(shadow_describe_notice 0 "${SHADOW_NOTICE}" ${ROBUST_PLUGINS}/shadow describe sph_mueller)
plugin_check(shadow_bench_notice 0 "${SHADOW_NOTICE}" ${ROBUST_PLUGINS}/shadow
             bench ${SCENES}/dam_break_2d.json --particles 200 --steps 1 --repeats 1)
plugin_check(shadow_compare_notice 0 "${SHADOW_NOTICE}" ${ROBUST_PLUGINS}/shadow
             compare ${SCENES}/dam_break_2d.json --solvers sph_mueller --steps 2 --quiet --out ${ROBUST_OUT}/shadow_compare)
# Exactly one notice per command, and none for a run that does not use the shadowing component.
add_test(NAME robust_plugin_shadow_notice_once
         COMMAND sh -c "n=$(\"$0\" run \"$1\" --steps 2 --quiet --no-picture --out \"$2\" 2>&1 | grep -c 'eddy: notice: solver .sph_mueller. is the one in'); echo \"notices: $n\"; [ \"$n\" = 1 ] && m=$(\"$0\" run \"$1\" --solver robust_dup --steps 2 --quiet --no-picture --out \"$2\" 2>&1 | grep -c 'notice'); echo \"other solver: $m\"; [ \"$m\" = 0 ]"
                 ${EDDY_EXE} ${SCENES}/dam_break_2d.json ${ROBUST_OUT}/shadow_once)
set_tests_properties(robust_plugin_shadow_notice_once PROPERTIES TIMEOUT 30
                     ENVIRONMENT "EDDY_PLUGIN_PATH=${ROBUST_PLUGINS}/shadow:${ROBUST_PLUGINS}/same_dir;${ROBUST_ENV_BASE}")
# The shadowing solver is the one that runs: its parameter table, not sph_mueller's.
plugin_check(shadow_is_used 1 "solvers.sph_mueller.cfl: unknown key" ${ROBUST_PLUGINS}/shadow
             run ${SCENES}/dam_break_2d.json --steps 1 --set solvers.sph_mueller.cfl=0.4 --quiet --out ${ROBUST_OUT}/shadow_used)
# Same folder: the later file is refused, naming both.
set(REAL_SAME_DIR ${REAL_ROBUST_PLUGINS}/same_dir)
plugin_check(same_dir_refused 1 "  ${REAL_SAME_DIR}/eddy_dup_b.so: duplicate component id 'robust_dup' (already provided by ${REAL_SAME_DIR}/eddy_dup_a.so)"
             ${ROBUST_PLUGINS}/same_dir list)

# --- 2. the host checks every plugin output it relies on ------------------------------------------
set(FAULTY_RUN run ${SCENES}/dam_break_2d.json --solver robust_faulty --quiet --no-picture)
# (each into a folder of its own, emptied first: a plugin's error keeps the folder from a new run)
function(faulty_check name status text)
  set(PLUGIN_CHECK_FRESH ${ROBUST_OUT}/faulty_${name})
  plugin_check(faulty_${name} ${status} "${text}" ${ROBUST_PLUGINS}/faulty ${FAULTY_RUN}
               --out ${ROBUST_OUT}/faulty_${name} ${ARGN})
endfunction()
# A max_dt of 0 looped forever with --until; -1 ran time backwards; NaN was ignored.
faulty_check(dt_zero_until 1 "eddy: error: solver 'robust_faulty' at step 1 (t = 0 s): max_dt returned 0; it must be finite and > 0"
             --until 0.01 --set solvers.robust_faulty.fault=dt_zero)
faulty_check(dt_zero_steps 1 "eddy: error: solver 'robust_faulty' at step 1 (t = 0 s): max_dt returned 0; it must be finite and > 0"
             --steps 5 --set solvers.robust_faulty.fault=dt_zero)
faulty_check(dt_negative 1 "eddy: error: solver 'robust_faulty' at step 1 (t = 0 s): max_dt returned -1; it must be finite and > 0"
             --steps 3 --set solvers.robust_faulty.fault=dt_negative)
faulty_check(dt_nan 1 "eddy: error: solver 'robust_faulty' at step 1 (t = 0 s): max_dt returned nan; it must be finite and > 0"
             --until 0.01 --set solvers.robust_faulty.fault=dt_nan)
# A force limit of 0 is the state's only when eddy_world_stable_dt says its acceleration overflowed a
# float (it names that limit "acceleration overflow"); one the solver names "force" itself is still its
# own max_dt's fault. The overflow was EDDY_ERR_PLUGIN, "max_dt returned 0", blaming the solver.
faulty_check(dt_zero_force 1 "eddy: error: solver 'robust_faulty' at step 1 (t = 0 s): max_dt returned 0; it must be finite and > 0"
             --steps 5 --set solvers.robust_faulty.fault=dt_zero_force)
faulty_check(accel_overflow 1 "eddy: error: at step 3 (t = 0.0001 s): the largest particle acceleration overflows single precision (1.8446743525e19 sim units/s^2 or more), so the force limit of solver 'robust_faulty' is 0 and no time step is stable"
             --steps 5 --set solvers.robust_faulty.fault=accel_overflow --set solvers.robust_faulty.at_step=3)
# EDDY_LOG=debug: a limit that sets steps 3 and 4 only is said when it starts and when it ends, once each.
add_test(NAME robust_plugin_dt_window_said
         COMMAND sh ${PROJECT_SOURCE_DIR}/tests/dt_said.sh
                 "eddy: dt: step 3 (t = 0.0001 s): dt 1e-05 s, set by the solver's test limit (the scene's time.dt is 5e-05 s)\neddy: dt: step 5 (t = 0.00012 s): dt 5e-05 s, the scene's time.dt again (the solver's limits are above it)"
                 ${EDDY_EXE} ${FAULTY_RUN} --out ${ROBUST_OUT}/faulty_dt_window --steps 10
                 --set solvers.robust_faulty.fault=dt_window --set solvers.robust_faulty.at_step=3)
set_tests_properties(robust_plugin_dt_window_said PROPERTIES TIMEOUT 30
                     ENVIRONMENT "EDDY_PLUGIN_PATH=${ROBUST_PLUGINS}/faulty;${ROBUST_ENV_BASE}")
# A positive limit the clock cannot resolve (t + dt == t) looped forever on a run that ends by time.
# The limit's name is optional: unset, the warning read "the solver's solver limit limit".
plugin_check(faulty_dt_unnamed 0 "warning: time step 5e-05 s is above the solver's stability limit; stepping with 1e-05 s"
             ${ROBUST_PLUGINS}/faulty run ${SCENES}/dam_break_2d.json --solver robust_faulty --no-picture
             --out ${ROBUST_OUT}/faulty_dt_unnamed --steps 2 --set solvers.robust_faulty.fault=dt_unnamed)
# save() mistakes surfaced only at the resume, blaming the checkpoint: said when the checkpoint is
# written (the frames stay), naming the callback.
faulty_check(save_empty 1 "eddy: error: solver 'robust_faulty' cannot save its state: save() returned success with an empty record; it must store at least a tag (eddy_state_save_floats), or a resume takes the state for lost"
             --steps 2 --set solvers.robust_faulty.fault=save_empty)
robust_plugin(robust_save_only save_only COMPONENT_ID="robust_save_only" PLUGIN_NAME="save_only" SAVE_WITHOUT_LOAD)
# save() without load(): refused when the plugin loads. It was said at the first checkpoint, which every
# run writes at its end, after the whole run.
set(SAVE_ONLY_REFUSAL "solver 'robust_save_only': has save() but no load(), so a checkpoint of it could not be resumed: give it load(), or leave save() NULL when it keeps no state outside its particle fields")
plugin_check(save_without_load 1 "eddy_robust_save_only.so: ${SAVE_ONLY_REFUSAL}" ${ROBUST_PLUGINS}/save_only list)
# A run of a solver whose plugin file (eddy_ID.so, the usual name) was refused says why, where it said
# only "some plugins were refused, see `eddy list`".
get_filename_component(REAL_SAVE_ONLY ${ROBUST_PLUGINS}/save_only REALPATH)
plugin_check(save_without_load_run 1 "unknown solver 'robust_save_only' (available: "
             ${ROBUST_PLUGINS}/save_only run ${SCENES}/dam_break_2d.json --solver robust_save_only --quiet --no-picture
             --steps 2 --out ${ROBUST_OUT}/save_only)
plugin_check(save_without_load_run_says_why 1 "; ${REAL_SAVE_ONLY}/eddy_robust_save_only.so was refused: ${SAVE_ONLY_REFUSAL})"
             ${ROBUST_PLUGINS}/save_only run ${SCENES}/dam_break_2d.json --solver robust_save_only --quiet --no-picture
             --steps 2 --out ${ROBUST_OUT}/save_only)
plugin_check(save_without_load_describe_says_why 1 "; ${REAL_SAVE_ONLY}/eddy_robust_save_only.so was refused: ${SAVE_ONLY_REFUSAL})"
             ${ROBUST_PLUGINS}/save_only describe robust_save_only)
# A blow-up without a NaN whose limit shrinks with it ran for ever at ever smaller steps: stopped once the
# limit is under time.min_dt_fraction (default 1e-3) of the first step (here time.dt, 5e-05 s: steps 1-2
# have no limit). The limit 1e-4 s halves from step 3, so step 14's, 1e-4 / 2^11 = 4.88281e-08 s, is the
# first under 5e-08 s, at t = 2e-4 + 1e-4 (1/2 - 2^-10) = 0.000249902 s. With the check off the clock
# stops it, as before.
faulty_check(dt_runaway 1 "eddy: error: at step 14 (t = 0.000249902 s): the solver's CFL limit fell to 4.88281e-08 s, under time.min_dt_fraction = 0.001 of this run's first step (5e-05 s), with the largest particle speed "
             --until 0.01 --set solvers.robust_faulty.fault=dt_runaway --set solvers.robust_faulty.at_step=3)
# The scale is the run's, kept in the checkpoint (runaway_resumed.sh).
add_test(NAME robust_plugin_faulty_dt_runaway_resumed
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/runaway_resumed.sh ${EDDY_EXE} ${SCENES}/dam_break_2d.json
                 ${ROBUST_OUT}/faulty_dt_runaway_resumed ${PROJECT_SOURCE_DIR}/tests/expect.sh
                 "eddy: error: at step 14 (t = 0.000249902 s): the solver's CFL limit fell to 4.88281e-08 s, under time.min_dt_fraction = 0.001 of this run's first step (5e-05 s)")
set_tests_properties(robust_plugin_faulty_dt_runaway_resumed PROPERTIES TIMEOUT 30
                     ENVIRONMENT "EDDY_PLUGIN_PATH=${ROBUST_PLUGINS}/faulty;${ROBUST_ENV_BASE}")
faulty_check(dt_runaway_unchecked 1 "too small to advance the clock from t = "
             --until 0.01 --set solvers.robust_faulty.fault=dt_runaway --set solvers.robust_faulty.at_step=3
             --set time.min_dt_fraction=0)
faulty_check(dt_tiny_until 1 "eddy: error: solver 'robust_faulty' at step 3: max_dt returned 1e-21 s (test), too small to advance the clock from t = 0.0001 s"
             --until 0.01 --set solvers.robust_faulty.fault=dt_tiny --set solvers.robust_faulty.at_step=3)
# A NaN position (velocities finite) stops the run at its step, also when out-of-domain particles are
# removed (the grid build of the next step would have dropped it without a word).
# The message names the solver: a comparison's runs differ by it alone. The whole line is checked.
set(EXPLODED_LINE "eddy: error: simulation exploded at step 3 (t = 0.00015 s) with solver 'robust_faulty': particle id 7 has a non-finite position; the step began calm (largest speed 0.000981 sim units/s, 9.8e-06 smoothing radii per step), so look first for a division by zero or an unset value in the solver's step (docs/plugin-guide.md, \"Error reporting\"); else lower the time step, stiffness, gravity or viscosity")
foreach(policy error remove)
  add_test(NAME robust_plugin_faulty_position_nan_${policy}
           COMMAND sh -c "out=$(\"$@\" 2>&1); status=$?; printf '%s\\n' \"$out\"; [ $status -eq 1 ] && printf '%s\\n' \"$out\" | grep -Fxq -- \"$0\""
                   "${EXPLODED_LINE}" ${EDDY_EXE} ${FAULTY_RUN} --out ${ROBUST_OUT}/faulty_position_nan_${policy} --steps 5
                   --set solvers.robust_faulty.fault=position_nan --set solvers.robust_faulty.at_step=3
                   --set domain.out_of_domain=${policy})
  set_tests_properties(robust_plugin_faulty_position_nan_${policy} PROPERTIES TIMEOUT 30
                       ENVIRONMENT "EDDY_PLUGIN_PATH=${ROBUST_PLUGINS}/faulty;${ROBUST_ENV_BASE}")
endforeach()
# An error code with an empty message reads as the callback, the status's name and text.
faulty_check(step_error_empty 1 "eddy: error: solver 'robust_faulty' at step 2 (t = 5e-05 s): step() returned EDDY_ERR_UNSUPPORTED (unsupported) without a message"
             --steps 5 --set solvers.robust_faulty.fault=step_error_empty --set solvers.robust_faulty.at_step=2)
faulty_check(max_dt_error_empty 1 "eddy: error: solver 'robust_faulty' at step 1 (t = 0 s): max_dt() returned EDDY_ERR_DEVICE (device error) without a message"
             --steps 5 --set solvers.robust_faulty.fault=max_dt_error_empty)
faulty_check(create_error_empty 1 "eddy: error: solver 'robust_faulty': create() returned EDDY_ERR_INVALID_ARGUMENT (invalid argument) without a message"
             --steps 5 --set solvers.robust_faulty.fault=create_error_empty)
# A create() that returns success without setting *out: the next callback got whatever the variable held
# and eddy died of SIGSEGV (status 139) without a word.
faulty_check(create_no_out 1 "eddy: error: solver 'robust_faulty': create() returned success without setting *out (set it to the solver's state, or to NULL for a solver without state)"
             --steps 5 --set solvers.robust_faulty.fault=create_no_out)
# The same slip in a writer's, a probe's or a grid's create(): the next callback got the variable's
# garbage (the grid's sort() a bogus state). Each run goes into a folder that holds an earlier run,
# which must come through the refusal byte for byte. KEEPS_RUN EDDY SCENE DIR STATUS MATCH TEXT ARGS...:
# the earlier run (20 steps, every kind built in), then the run with ARGS, which must exit STATUS with
# TEXT as a whole line of its output (MATCH "line") or in one (MATCH "part"); DIR must then be as the
# earlier run left it.
set(KEEPS_RUN [=[
eddy=$0 scene=$1 dir=$2 want=$3 match=$4 text=$5; shift 5
rm -rf "$dir" "$dir.kept"
"$eddy" run "$scene" --steps 20 --quiet --no-picture --out "$dir" && cp -r "$dir" "$dir.kept" || exit 1
out=$("$eddy" run "$scene" --steps 30 --quiet --no-picture --out "$dir" "$@" 2>&1); status=$?
printf '%s\n' "$out"
[ "$status" = "$want" ] || { echo "exit status $status, expected $want" >&2; exit 1; }
if [ "$match" = line ]; then opt=-Fxq; else opt=-Fq; fi
printf '%s\n' "$out" | grep $opt -- "$text" || { echo "the output does not hold ($match): $text" >&2; exit 1; }
diff -r "$dir.kept" "$dir" || { echo "the earlier run in $dir changed" >&2; exit 1; }
echo "the earlier run in $dir is unchanged"]=])
# kind_create_no_out(<kind> <match> <text> <args...>): the create_no_out fault of the `kinds` plugin's <kind>.
function(kind_create_no_out kind match text)
  add_test(NAME robust_plugin_${kind}_create_no_out
           COMMAND sh -c "${KEEPS_RUN}" ${EDDY_EXE} ${SCENES}/dam_break_2d.json ${ROBUST_OUT}/${kind}_create_no_out
                   1 ${match} "${text}" ${ARGN})
  set_tests_properties(robust_plugin_${kind}_create_no_out PROPERTIES TIMEOUT 60
                       ENVIRONMENT "EDDY_PLUGIN_PATH=${ROBUST_PLUGINS}/kinds;${ROBUST_ENV_BASE}")
endfunction()
set(NO_OUT "create() returned success without setting *out")
kind_create_no_out(grid line "eddy: error: ${SCENES}/dam_break_2d.json: grid 'robust_kinds_grid': ${NO_OUT} (set it to the grid's state, or to NULL for a grid without state)"
                   --grid robust_kinds_grid --set grids.robust_kinds_grid.fault=create_no_out)
# A grid plugin whose sort doubles a particle (and loses another) is refused at its first build, naming
# the grid; the run went on with exit status 0 until the hash or the resume found two ids (grid trial).
add_test(NAME robust_plugin_grid_sort_refused
         COMMAND ${CMAKE_COMMAND} -E env EDDY_PLUGIN_PATH=${ROBUST_PLUGINS}/kinds
                 sh ${PROJECT_SOURCE_DIR}/tests/expect.sh 1
                 "grid build: the grid backend's sort puts particle 0 twice, at sorted positions 0 and 1 (grid.h: perm holds each particle once); the grid is 'robust_kinds_grid' (${ROBUST_PLUGINS}/kinds/"
                 ${EDDY_EXE} run ${SCENES}/dam_break_2d.json --grid robust_kinds_grid
                 --set grids.robust_kinds_grid.fault=dup_perm --steps 2 --quiet --no-picture
                 --out ${ROBUST_OUT}/grid_dup_perm)
set_tests_properties(robust_plugin_grid_sort_refused PROPERTIES TIMEOUT 60 ENVIRONMENT "${ROBUST_ENV_BASE}")
# eddy validate --grid holds a grid plugin to the cases: the faulty sort fails the claimed checks, named.
add_test(NAME robust_plugin_grid_validate
         COMMAND ${CMAKE_COMMAND} -E env EDDY_PLUGIN_PATH=${ROBUST_PLUGINS}/kinds
                 sh ${PROJECT_SOURCE_DIR}/tests/expect.sh 1
                 "eddy: validate: shear_wave with tait (coarse): amplitude failed to run: grid build: the grid backend's sort puts particle 0 twice"
                 ${EDDY_EXE} validate --solver tait --case shear_wave --resolution coarse --grid robust_kinds_grid
                 --set grids.robust_kinds_grid.fault=dup_perm --quiet --out ${ROBUST_OUT}/grid_validate)
set_tests_properties(robust_plugin_grid_validate PROPERTIES TIMEOUT 120 ENVIRONMENT "${ROBUST_ENV_BASE}")
kind_create_no_out(probe line "eddy: error: probe 'no_out': ${NO_OUT} (set it to the probe's state, or to NULL for a probe without state)"
                   --set "probes[1]={\"name\": \"no_out\", \"kind\": \"robust_kinds_probe\", \"fault\": \"create_no_out\"}")
# A probe without state (create() sets *out to NULL, as the ABI allows) measures like any other: the
# host took the NULL for "not open" and refused every run with it ("probe 'stateless' is not open").
add_test(NAME robust_plugin_probe_without_state
         COMMAND sh -c [=[
"$0" run "$1" --steps 3 --quiet --no-picture --out "$2" --set "$3" || exit 1
head -1 "$2/probes.csv" | grep -qx 'time,step,front,stateless' || { echo "probes.csv lacks the probe's column" >&2; exit 1; }
[ "$(cut -d, -f4 "$2/probes.csv" | sed 1d | sort -u)" = 0 ] || { echo "the probe's values are not its 0" >&2; exit 1; }]=]
                 ${EDDY_EXE} ${SCENES}/dam_break_2d.json ${ROBUST_OUT}/probe_without_state
                 "probes[1]={\"name\": \"stateless\", \"kind\": \"robust_kinds_probe\"}")
set_tests_properties(robust_plugin_probe_without_state PROPERTIES TIMEOUT 60
                     ENVIRONMENT "EDDY_PLUGIN_PATH=${ROBUST_PLUGINS}/kinds;${ROBUST_ENV_BASE}")
# A writer's create() is called before an earlier run in the folder is cleared (run.c): its refusal
# leaves that run whole, diagnostics.csv and frames.pvd included.
set(WRITER_NO_OUT "eddy: error: writer 'robust_kinds_writer': ${NO_OUT} (set it to the writer's state, or to NULL for a writer without state)")
set(WRITER_NO_OUT_ARGS --format vtk,robust_kinds_writer --set output.writers.robust_kinds_writer.fault=create_no_out)
kind_create_no_out(writer line "${WRITER_NO_OUT}" ${WRITER_NO_OUT_ARGS})
# The hash is printed for a run that succeeded only (a failed step, a NaN).
foreach(fault step_error_empty position_nan)
  add_test(NAME robust_plugin_faulty_no_hash_${fault}
           COMMAND sh -c "out=$(\"$0\" run \"$1\" --solver robust_faulty --set solvers.robust_faulty.fault=${fault} --set solvers.robust_faulty.at_step=2 --steps 4 --hash --quiet --no-picture --out \"$2\" 2>&1); status=$?; printf '%s\\n' \"$out\"; [ $status -eq 1 ] && ! printf '%s' \"$out\" | grep -q state-hash"
                   ${EDDY_EXE} ${SCENES}/dam_break_2d.json ${ROBUST_OUT}/faulty_no_hash_${fault})
  set_tests_properties(robust_plugin_faulty_no_hash_${fault} PROPERTIES TIMEOUT 30
                       ENVIRONMENT "EDDY_PLUGIN_PATH=${ROBUST_PLUGINS}/faulty;${ROBUST_ENV_BASE}")
endforeach()
# and is printed for one that did (the fixture without a fault).
faulty_check(hash_when_fine 0 "state-hash: " --steps 3 --hash)

# --- 3. signals while loading ---------------------------------------------------------------------
# A solver whose create() sleeps an hour (slow_create, sleep_s) stands for any slow load (nothing is
# written before the session is open); the signal goes once eddy's main() has installed its handlers
# (signal_while_loading.sh WHEN "handlers"), so it lands in the load whatever the machine's speed.
# SIGTERM / SIGINT / SIGHUP / SIGXCPU must end it, with 128 + the signal (143 / 130 / 129 / 152) and the
# message, and no output folder; a load that ignored the signal would sleep on until the TIMEOUT fails
# the test. (SIGHUP and SIGXCPU killed it without the message.)
foreach(sig TERM INT HUP XCPU)
  if(sig STREQUAL TERM)
    set(signum 15)
  elseif(sig STREQUAL INT)
    set(signum 2)
  elseif(sig STREQUAL HUP)
    set(signum 1)
  else()
    set(signum 24)
  endif()
  math(EXPR status "128 + ${signum}")
  add_test(NAME robust_plugin_signal_${sig}_while_loading
           COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/signal_while_loading.sh ${EDDY_EXE} ${sig} ${status}
                   "eddy: interrupted by signal ${signum} (SIG${sig}) while loading; nothing was written"
                   ${ROBUST_OUT}/signal_${sig} handlers
                   run ${SCENES}/dam_break_2d.json --solver robust_faulty --set solvers.robust_faulty.fault=slow_create
                   --set solvers.robust_faulty.sleep_s=3600 --quiet --out ${ROBUST_OUT}/signal_${sig})
  set_tests_properties(robust_plugin_signal_${sig}_while_loading PROPERTIES TIMEOUT 30
                       ENVIRONMENT "EDDY_PLUGIN_PATH=${ROBUST_PLUGINS}/faulty;${ROBUST_ENV_BASE}")
endforeach()
# bench has no stepping loop of its own that polls: a signal while it steps ends it too (130). bench
# writes nothing to show it has begun stepping: WHEN "opened" signals it again, later, each time the
# signal came while it was still loading. 10^9 steps: it cannot end first.
add_test(NAME robust_plugin_signal_during_bench
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/signal_while_loading.sh ${EDDY_EXE} TERM 130
                 "eddy: interrupted by signal 15 (SIGTERM) at step" ${ROBUST_OUT}/no_such_folder opened
                 bench ${SCENES}/dam_break_2d.json --particles 20000 --steps 1000000 --repeats 1000)
set_tests_properties(robust_plugin_signal_during_bench PROPERTIES TIMEOUT 30 ENVIRONMENT "${ROBUST_ENV_BASE}")
# Every message names a signal by number and name: a CPU limit's warning during the steps said "signal
# 24" where the same signal while loading said "signal 24 (SIGXCPU)" (adversarial trial).
add_test(NAME robust_plugin_signal_XCPU_during_bench
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/signal_while_loading.sh ${EDDY_EXE} XCPU 130
                 "eddy: interrupted by signal 24 (SIGXCPU) at step" ${ROBUST_OUT}/no_such_folder opened
                 bench ${SCENES}/dam_break_2d.json --particles 20000 --steps 1000000 --repeats 1000)
set_tests_properties(robust_plugin_signal_XCPU_during_bench PROPERTIES TIMEOUT 30 ENVIRONMENT "${ROBUST_ENV_BASE}")
# A run stopped by a signal says where it stopped, not "done:" (which it once printed before the
# interrupt line). The signal goes once the run has written its first frame (its session is open, so
# the signal asks the loop to stop); --until 1e6: it cannot end first.
add_test(NAME robust_signal_run_says_stopped
         COMMAND sh -c "rm -rf \"$0\" && exec sh \"$@\"" ${ROBUST_OUT}/signal_run
                 ${CMAKE_CURRENT_SOURCE_DIR}/signal_while_loading.sh ${EDDY_EXE} INT 130
                 "\nstopped: t = " ${ROBUST_OUT}/no_such_folder file:${ROBUST_OUT}/signal_run/frames/frame_00000.vtp
                 run ${SCENES}/dam_break_2d.json --until 1e6 --no-picture --out ${ROBUST_OUT}/signal_run)
set_tests_properties(robust_signal_run_says_stopped PROPERTIES TIMEOUT 30 ENVIRONMENT "${ROBUST_ENV_BASE}")

# --- 4. sanitized plugins from a host without the runtime -----------------------------------------
# Built with -fsanitize at compile time only (as clang links a shared object: the runtime comes from
# the executable), the plugin's dlopen fails on an undefined __asan_ / __ubsan_ symbol; the refusal
# says how to load it. A sanitized host loads it, so there is nothing to test then.
include(CheckCCompilerFlag)
# Compile-only checks: the fixture links no runtime, so a toolchain without libasan still builds it.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
check_c_compiler_flag(-fsanitize=address EDDY_CC_COMPILES_ASAN)
check_c_compiler_flag(-fsanitize=undefined EDDY_CC_COMPILES_UBSAN)
unset(CMAKE_TRY_COMPILE_TARGET_TYPE)
if(NOT EDDY_SANITIZE)
  foreach(kind asan ubsan)
    if(kind STREQUAL asan)
      set(flag -fsanitize=address)
      set(have ${EDDY_CC_COMPILES_ASAN})
      set(hint "built with AddressSanitizer but this eddy is not: run eddy with LD_PRELOAD=$(gcc -print-file-name=libasan.so) (or clang's libclang_rt.asan), or build eddy with -DEDDY_SANITIZE=ON")
    else()
      set(flag -fsanitize=undefined)
      set(have ${EDDY_CC_COMPILES_UBSAN})
      set(hint "built with UndefinedBehaviorSanitizer but this eddy is not: run eddy with LD_PRELOAD=$(gcc -print-file-name=libubsan.so) (or clang's libclang_rt.ubsan_standalone), or build eddy with -DEDDY_SANITIZE=ON")
    endif()
    if(have)
      robust_plugin(sanitized_${kind} ${kind} COMPONENT_ID="robust_${kind}" PLUGIN_NAME="sanitized_${kind}")
      target_compile_options(robustplugin_sanitized_${kind} PRIVATE ${flag} -fno-sanitize-recover=all)
      plugin_check(sanitized_${kind}_hint 1 "${hint}" ${ROBUST_PLUGINS}/${kind} list)
    endif()
  endforeach()

  # Linked with its runtime (gcc with -fsanitize at the link, as the plugin guide's flags do), the plugin
  # lists libasan as needed; dlopen'ing it aborted the whole process ("ASan runtime does not come first"),
  # so one such file in a plugin folder ended every command. It is refused unopened; `eddy list` goes
  # on (exit 0, the other plugins listed), and so does a run with another solver.
  include(CheckCSourceCompiles)
  set(CMAKE_REQUIRED_FLAGS -fsanitize=address)
  set(CMAKE_REQUIRED_LINK_OPTIONS -fsanitize=address)
  check_c_source_compiles("int main(void) { return 0; }" EDDY_CC_LINKS_ASAN)
  unset(CMAKE_REQUIRED_FLAGS)
  unset(CMAKE_REQUIRED_LINK_OPTIONS)
  if(EDDY_CC_LINKS_ASAN)
    robust_plugin(asan_linked asan_linked COMPONENT_ID="robust_asan_linked" PLUGIN_NAME="asan_linked")
    target_compile_options(robustplugin_asan_linked PRIVATE -fsanitize=address)
    target_link_options(robustplugin_asan_linked PRIVATE -fsanitize=address)
    plugin_check(asan_linked_refused 1 "/eddy_asan_linked.so: cannot load: it needs libasan.so"
                 ${ROBUST_PLUGINS}/asan_linked list)
    plugin_check(asan_linked_hint 1 ", which must be in the process from its start; the plugin was built with AddressSanitizer but this eddy is not: run eddy with LD_PRELOAD=$(gcc -print-file-name=libasan.so)"
                 ${ROBUST_PLUGINS}/asan_linked list)
    plugin_check(asan_linked_others_run 0 "state-hash: "
                 ${ROBUST_PLUGINS}/asan_linked run ${SCENES}/dam_break_2d.json --steps 2 --hash --no-picture
                 --out ${ROBUST_OUT}/asan_linked_others_run)
  endif()
endif()

# --- 5. a plugin file cut short -------------------------------------------------------------------
# An interrupted copy or install leaves a file whose headers describe more than it holds: dlopen faulted
# (SIGBUS) mapping its segments, ending `eddy list` and every run. The program headers are read first
# and the file is refused; the other plugins load. Cut inside the first segment, and inside the
# program header table.
foreach(cut 2000 100)
  add_test(NAME robust_plugin_cut_${cut}
           COMMAND sh -c "rm -rf \"$0\" && mkdir -p \"$0\" && head -c $2 \"$1\" > \"$0/eddy_cut.so\" && shift 3 && exec \"$@\""
                   ${ROBUST_OUT}/cut_${cut} $<TARGET_FILE:robustplugin_robust_faulty> ${cut}
                   ${EXPECT} 1 "eddy_cut.so: cannot load: the file is cut short (its segments need " ${EDDY_EXE} list)
  set_tests_properties(robust_plugin_cut_${cut} PROPERTIES TIMEOUT 30
                       ENVIRONMENT "EDDY_PLUGIN_PATH=${ROBUST_OUT}/cut_${cut};${ROBUST_ENV_BASE}")
endforeach()

# --- 6. EDDY_PLUGIN_PATH entries that can give no plugin -------------------------------------------
# A mistyped folder, a plugin file given instead of its folder, or a folder of .so files not named
# eddy_*.so left only "unknown solver" behind; each is now listed with the refusals, and a run that
# cannot find its solver points there.
plugin_check(path_missing_folder 1 "  ${ROBUST_OUT}/no_such_folder: EDDY_PLUGIN_PATH names a folder that cannot be read: No such file or directory"
             ${ROBUST_OUT}/no_such_folder list)
plugin_check(path_is_a_file 1 "  ${ROBUST_PLUGINS}/faulty/eddy_robust_faulty.so: EDDY_PLUGIN_PATH lists folders, and this is a file: give its folder '${ROBUST_PLUGINS}/faulty'\n  ${ROBUST_OUT}/no_such_folder: "
             "${ROBUST_PLUGINS}/faulty/eddy_robust_faulty.so:${ROBUST_OUT}/no_such_folder" list)
add_test(NAME robust_plugin_path_misnamed_file
         COMMAND sh -c "rm -rf \"$0\" && mkdir -p \"$0\" && cp \"$1\" \"$0/faulty.so\" && shift 2 && exec \"$@\""
                 ${ROBUST_OUT}/misnamed $<TARGET_FILE:robustplugin_robust_faulty>
                 ${EXPECT} 1 "unknown solver 'robust_faulty' (available: " ${EDDY_EXE} run ${SCENES}/dam_break_2d.json
                 --solver robust_faulty --out ${ROBUST_OUT}/misnamed_run)
set_tests_properties(robust_plugin_path_misnamed_file PROPERTIES TIMEOUT 30
                     ENVIRONMENT "EDDY_PLUGIN_PATH=${ROBUST_OUT}/misnamed;${ROBUST_ENV_BASE}")
add_test(NAME robust_plugin_path_misnamed_listed
         COMMAND sh -c "rm -rf \"$0\" && mkdir -p \"$0\" && cp \"$1\" \"$0/faulty.so\" && shift 2 && exec \"$@\""
                 ${ROBUST_OUT}/misnamed_list $<TARGET_FILE:robustplugin_robust_faulty>
                 ${EXPECT} 1 "  ${ROBUST_OUT}/misnamed_list/faulty.so: not tried: plugin files are named eddy_<name>.so (rename it eddy_faulty.so)"
                 ${EDDY_EXE} list)
set_tests_properties(robust_plugin_path_misnamed_listed PROPERTIES TIMEOUT 30
                     ENVIRONMENT "EDDY_PLUGIN_PATH=${ROBUST_OUT}/misnamed_list;${ROBUST_ENV_BASE}")

# --- 7. a count larger than its array --------------------------------------------------------------
# component_count = 2 over {&component, NULL}: the refusal says which count to look at.
eddy_add_plugin(robustplugin_guide_count SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/guide_count_plugin.c
                OUTPUT_NAME eddy_guide_count OUTPUT_DIR ${ROBUST_PLUGINS}/guide_count NO_INSTALL)
add_dependencies(eddy_cli robustplugin_guide_count)
plugin_check(component_count_hint 1 "/eddy_guide_count.so: component 1 is NULL (is component_count larger than the array?)"
             ${ROBUST_PLUGINS}/guide_count list)

# --- 8. a solver registered under a mistyped interface id ------------------------------------------
# "eddy.solver.3" makes a component of a kind of its own: `--solver` then said only "unknown solver".
robust_plugin(wrong_interface wrong_interface COMPONENT_ID="robust_wrong_kind" PLUGIN_NAME="wrong_interface"
              INTERFACE_ID="eddy.solver.3")
plugin_check(wrong_interface_hint 1 "unknown solver 'robust_wrong_kind' (available: "
             ${ROBUST_PLUGINS}/wrong_interface run ${SCENES}/dam_break_2d.json --solver robust_wrong_kind --quiet
             --out ${ROBUST_OUT}/wrong_interface)
plugin_check(wrong_interface_named 1 "; 'robust_wrong_kind' is a component of interface 'eddy.solver.3', not 'eddy.solver.2')"
             ${ROBUST_PLUGINS}/wrong_interface run ${SCENES}/dam_break_2d.json --solver robust_wrong_kind --quiet
             --out ${ROBUST_OUT}/wrong_interface)
# --- 9. a component without a description ----------------------------------------------------------
# The ABI does not require one (2.x plugins without it load, and keep loading): describe's line ended in
# a dash with nothing after it; it says so, and `eddy list` warns (exit 0: nothing was refused).
robust_plugin(no_description no_description COMPONENT_ID="robust_undescribed" PLUGIN_NAME="no_description"
              NO_DESCRIPTION)
get_filename_component(REAL_NO_DESCRIPTION ${ROBUST_PLUGINS}/no_description REALPATH)
plugin_check(no_description_describe 0 "robust_undescribed 0.0.1 (solver, eddy.solver.2) — (no description)\nfile: "
             ${ROBUST_PLUGINS}/no_description describe robust_undescribed)
plugin_check(no_description_list 0 "eddy: warning: solver 'robust_undescribed' of ${REAL_NO_DESCRIPTION}/eddy_no_description.so has no description; give its component a one-line `description`, which `eddy describe` shows"
             ${ROBUST_PLUGINS}/no_description list)

# describe points at the refusals as run does (a refused plugin's component is unknown to it).
plugin_check(describe_points_at_refusals 1 "unknown component 'robust_asan' (available: "
             ${ROBUST_OUT}/no_such_folder describe robust_asan)
plugin_check(describe_points_at_refusals_hint 1 "; some plugins were refused, see `eddy list`)"
             ${ROBUST_OUT}/no_such_folder describe robust_asan)
# A plugin's description, a parameter's doc and unit holding escape sequences: `eddy describe` shows each
# control character as a space, as the log does (it wrote them to the terminal, which obeyed).
robust_plugin(escaped_text escaped_text COMPONENT_ID="robust_escaped" PLUGIN_NAME="escaped_text" ESCAPED_TEXT)
add_test(NAME robust_plugin_escaped_text_describe
         COMMAND sh ${PROJECT_SOURCE_DIR}/tests/validate/expect_clean.sh 0 "robust_escaped 0.0.1 (solver, eddy.solver.2) — clears [2Jthe screen"
                 ${EDDY_EXE} describe robust_escaped)
set_tests_properties(robust_plugin_escaped_text_describe PROPERTIES TIMEOUT 30
                     ENVIRONMENT "EDDY_PLUGIN_PATH=${ROBUST_PLUGINS}/escaped_text;${ROBUST_ENV_BASE}")
# eddy_world_integrate_velocity with an id that is no 3-component field steps with gravity alone (the ABI
# keeps that): said once per process, where it was silent.
add_test(NAME robust_plugin_faulty_bad_accel_field_warned_once
         COMMAND sh -c "out=$(\"$@\" 2>&1); status=$?; printf '%s\\n' \"$out\"; [ $status -eq 0 ] && [ \"$(printf '%s\\n' \"$out\" | grep -cF -- \"$0\")\" -eq 1 ]"
                 "eddy: warning: eddy_world_integrate_velocity: field id 12345 is not a particle field of 3 components, so the velocity update applies gravity alone; pass the id eddy_particles_add_field returned for the acceleration (-1 for gravity alone)"
                 ${EDDY_EXE} ${FAULTY_RUN} --out ${ROBUST_OUT}/faulty_bad_accel_field --steps 5
                 --set solvers.robust_faulty.fault=bad_accel_field)
set_tests_properties(robust_plugin_faulty_bad_accel_field_warned_once PROPERTIES TIMEOUT 30
                     ENVIRONMENT "EDDY_PLUGIN_PATH=${ROBUST_PLUGINS}/faulty;${ROBUST_ENV_BASE}")
# ... and a plugin's log line (its component too) and the error it fails with, through the host's log and
# the ending error: each control character a space.
add_test(NAME robust_plugin_escaped_text_log
         COMMAND sh ${PROJECT_SOURCE_DIR}/tests/validate/expect_clean.sh 0 "eddy: comp ]0;t : a log line  [2Jhere"
                 ${EDDY_EXE} run ${SCENES}/dam_break_2d.json --solver robust_escaped --quiet --no-picture --steps 1
                 --out ${ROBUST_OUT}/escaped_log)
add_test(NAME robust_plugin_escaped_text_error
         COMMAND sh ${PROJECT_SOURCE_DIR}/tests/validate/expect_clean.sh 1 "eddy: error: solver 'robust_escaped': an error  [2Jhere, of 4000 bytes"
                 ${EDDY_EXE} run ${SCENES}/dam_break_2d.json --solver robust_escaped --quiet --no-picture
                 --set solvers.robust_escaped.fault=step_error_empty
                 --steps 1 --out ${ROBUST_OUT}/escaped_error)
set_tests_properties(robust_plugin_escaped_text_log robust_plugin_escaped_text_error PROPERTIES TIMEOUT 30
                     ENVIRONMENT "EDDY_PLUGIN_PATH=${ROBUST_PLUGINS}/escaped_text;${ROBUST_ENV_BASE}")
