# Command-line tests: exit status and exact messages of `eddy` for good and bad input.
set(EDDY_EXE $<TARGET_FILE:eddy_cli>)
set(EXPECT sh ${CMAKE_CURRENT_SOURCE_DIR}/expect.sh)
set(SCENES ${PROJECT_SOURCE_DIR}/scenes)
set(DATA ${CMAKE_CURRENT_SOURCE_DIR}/data)
set(CLI_OUT ${PROJECT_BINARY_DIR}/cli_out)

function(cli_test name status text)
  add_test(NAME cli_${name} COMMAND ${EXPECT} ${status} "${text}" ${EDDY_EXE} ${ARGN})
endfunction()

cli_test(list_shows_sph_mueller 0 "sph_mueller      solver  2.0.0" list)
# `eddy list` groups by interface; the host's writers and probes are components like a plugin's.
cli_test(list_groups_solvers 0 "\n\nsolvers (eddy.solver.2):\n" list)
cli_test(list_shows_writers 0 "writers (eddy.writer.2):\nvtk              writer  2.0.0     (built-in)\ncsv              writer" list)
cli_test(list_shows_probes 0 "probes (eddy.probe.2):\nfront            probe   2.0.0     (built-in)" list)
cli_test(describe_sph_mueller 0 "negative_pressure    real  0" describe sph_mueller)
# A solver's per-material table; a probe's typed parameters (enum choices, vector, required, derived).
cli_test(describe_material_table 0 "material parameters (in each \"materials\" entry, or --set materials[i].NAME=VALUE):\n\nname                 type  default    range                    unit     doc\nviscosity            real  0.1        [0, inf)                 Pa s" describe sph_mueller)
cli_test(describe_probe_enum 0 "axis                 enum   required   x|y|z|-x|-y|-z" describe height)
cli_test(describe_probe_vector 0 "at                   vector required   1-3 x (-inf, inf)        m" describe height)
cli_test(describe_probe_derived 0 "width                real   derived    (0, inf)                 m" describe height)
cli_test(describe_writer 0 "vtk 2.0.0 (writer, eddy.writer.2)" describe vtk)
cli_test(describe_grid 0 "cpu 2.0.0 (grid, eddy.grid.2)" describe cpu)
cli_test(describe_unknown 1 "unknown component 'nope'" describe nope)
# An id of thousands of characters was echoed whole, pushing the list of ids off the screen.
string(REPEAT "x" 5000 cli_long_id)
string(REPEAT "x" 40 cli_long_id_shown)
cli_test(describe_unknown_long 1 "unknown component '${cli_long_id_shown}...' (5000 characters) (available: "
         describe ${cli_long_id})
# Every flag a component declares is named (state-complete was left out).
cli_test(describe_flags 0 "flags: concurrent-instances decomposable state-complete\n" describe tait)
cli_test(unknown_command 2 "unknown command 'frobnicate'" frobnicate)
# `eddy CMD --help` (or -h) prints that command's part of the usage, wherever the option stands, and
# exits 0 (it once read --help as an option missing its value, or as a component id).
cli_test(run_help 0 "usage: eddy run SCENE [--solver ID]" run --help)
cli_test(run_help_after_scene 0 "usage: eddy run SCENE [--solver ID]" run ${SCENES}/dam_break_2d.json -h)
cli_test(resume_help 0 "usage: eddy resume DIR [--steps N | --until T]" resume --help)
cli_test(bench_help 0 "usage: eddy bench SCENE [--solver ID]" bench --help)
cli_test(bench_help_from 0 "usage: eddy bench --from DIR" bench --help)
cli_test(describe_help 0 "usage: eddy describe ID\n      The parameters of a component" describe --help)
cli_test(validate_help 0 "usage: eddy validate [--solver ID]..." validate --help)
cli_test(compare_help 0 "usage: eddy compare SCENE --solvers ID,ID,..." compare --help)
cli_test(list_help 0 "usage: eddy list\n      Every component found" list --help)
cli_test(run_help_after_flag 0 "usage: eddy run SCENE [--solver ID]" run ${SCENES}/dam_break_2d.json --quiet --help)
# ... but not as an option's value: --out -h names a folder.
cli_test(run_help_as_value 2 "eddy: option --steps needs a value, got the option '--help'"
         run ${SCENES}/dam_break_2d.json --out -h --steps --help)
# Scene values that passed the checks and then crashed, hung or wrote where they should not: thousands
# of OpenMP threads (a stack overflow at 100 000), a fill past 32 spacings per smoothing radius (minutes a
# step), an output interval so small that every step met a frame while time stood still, and a name that
# made the default folder out/.. the working folder.
cli_test(scene_threads_too_many 1 "eddy: error: --set 'world.threads=100000': world.threads: expected an integer in [0, 4096], got 100000"
         run ${SCENES}/dam_break_2d.json --set world.threads=100000 --out ${CLI_OUT}/threads)
cli_test(scene_fill_too_fine 1 "eddy: error: --set 'fluids[0].spacing_factor=0.01': fluids[0].spacing_factor: expected at least 0.0625, a fill spacing of world.smoothing_radius / 32 = 0.00015625 (at most 32 spacings per smoothing radius), got 0.01 (spacing 2.5e-05)"
         run ${SCENES}/dam_break_2d.json --set fluids[0].spacing_factor=0.01 --out ${CLI_OUT}/fill)
# The scale of time.min_dt_fraction is the first step taken, not time.dt: a scene that leaves the step to
# the solver (time.dt = 5 s, pbf's CFL limit +inf at rest, steps of 3.75 ms landing on frames) was stopped
# at step 6 for a limit of 4.3 ms "under 0.001 of this run's first step (5 s)".
cli_test(min_dt_fraction_scale_is_a_step_taken 0 "done: t = 0.05 s"
         run ${SCENES}/pbf_dam_break_2d.json --set time.dt=5 --until 0.05 --no-picture --out ${CLI_OUT}/min_dt_scale)
cli_test(scene_min_dt_fraction_one 1 "eddy: error: --set 'time.min_dt_fraction=1': time.min_dt_fraction: expected a number in [0, 1), got 1"
         run ${SCENES}/dam_break_2d.json --steps 1 --set time.min_dt_fraction=1 --out ${CLI_OUT}/min_dt_fraction)
cli_test(scene_output_interval_tiny 1 "eddy: error: --set 'time.output_interval=1e-300': time.output_interval: expected at least time.end / 1e+06 = 3e-07 s (at most 1e+06 frames), got 1e-300"
         run ${SCENES}/dam_break_2d.json --set time.output_interval=1e-300 --out ${CLI_OUT}/interval)
cli_test(scene_name_dot_dot 1 "eddy: error: --set 'name=\"..\"': name: expected a non-empty string of at most 63 characters without '/', '\\' or control characters, and not \".\" or \"..\", got \"..\""
         run ${SCENES}/dam_break_2d.json --set name=\"..\" --steps 1)
# The scene audit. A fill that cannot fit in memory is refused before it starts (4e8 particles on 23 GB
# filled for minutes until the kernel killed the run; here the memory comes from EDDY_MEMORY_BYTES, so
# that the refusal does not depend on the machine: 10 240 000 particles of 128 bytes in 1 GB); a
# collider reaching into a fluid block (particles inside the solid) is refused; a Latin-1 byte is not
# UTF-8 (it became a folder name).
cli_test(scene_fill_beyond_memory 1 "dam_break_2d.json: fluids: expected at most 7812500 particles (128 bytes a particle at the least) in the 1.0 GB of memory EDDY_MEMORY_BYTES gives, got 10240000, which need at least 1.3 GB: use fewer or smaller fluid blocks, or a larger particle_spacing"
         run ${SCENES}/dam_break_2d.json --set container.max=[8,8] --set fluids[0].box.max=[8,8] --out ${CLI_OUT}/memory)
cli_test(scene_memory_bytes_bad 1 "eddy: error: environment variable EDDY_MEMORY_BYTES: expected a number of bytes > 0 (the memory a run may count on), got '1 GB'"
         run ${SCENES}/dam_break_2d.json --out ${CLI_OUT}/memory_bad)
set_tests_properties(cli_scene_fill_beyond_memory PROPERTIES ENVIRONMENT "EDDY_MEMORY_BYTES=1e9")
# Below a GB the figures are in MB ("0.0 GB of memory ... need at least 0.0 GB", adversarial trial).
cli_test(scene_fill_beyond_small_memory 1 "dam_break_2d.json: fluids: expected at most 2343 particles (128 bytes a particle at the least) in the 0.3 MB of memory EDDY_MEMORY_BYTES gives, got 3200, which need at least 0.4 MB"
         run ${SCENES}/dam_break_2d.json --steps 1 --out ${CLI_OUT}/small_memory)
set_tests_properties(cli_scene_fill_beyond_small_memory PROPERTIES ENVIRONMENT "EDDY_MEMORY_BYTES=3e5")
set_tests_properties(cli_scene_memory_bytes_bad PROPERTIES ENVIRONMENT "EDDY_MEMORY_BYTES=1 GB")
cli_test(scene_collider_in_fluid 1 "eddy: error: --set 'colliders=[{\"type\": \"sphere\", \"center\": [0.1, 0.1], \"radius\": 0.05}]': colliders[0]: expected a solid clear of the fluid blocks, got one that would have to move 0.05 to clear fluids[0], more than half its particle spacing of 0.0025: particles would start inside the solid"
         run ${SCENES}/dam_break_2d.json --set "colliders=[{\"type\": \"sphere\", \"center\": [0.1, 0.1], \"radius\": 0.05}]" --out ${CLI_OUT}/collider)
cli_test(scene_not_utf8 1 "not_utf8.json:2:15: malformed JSON: expected UTF-8 text, got the byte 0xE9"
         run ${DATA}/not_utf8.json --out ${CLI_OUT}/utf8)
cli_test(render_width_too_small 2 "--render-width expects a width in pixels (16 to 16384), got '1'"
         run ${SCENES}/dam_break_2d.json --render-width 1)
cli_test(threads_too_many 2 "--threads expects an integer in [1, 4096], got '5000'"
         run ${SCENES}/dam_break_2d.json --threads 5000)

# An option's value is never another option: "--solvers --quiet" once compared a solver named --quiet.
cli_test(value_is_an_option 2 "eddy: option --solvers needs a value, got the option '--quiet'"
         compare ${SCENES}/dam_break_2d.json --solvers --quiet)
cli_test(run_value_is_an_option 2 "eddy: option --out needs a value, got the option '--hash'"
         run ${SCENES}/dam_break_2d.json --out --hash)
# A misspelled flag is an unknown option, whatever follows it, in every command ("--qiuet" was once
# "option --qiuet needs a value").
cli_test(run_misspelled_flag 2 "eddy: unknown option '--qiuet' for run" run ${SCENES}/dam_break_2d.json --qiuet)
cli_test(resume_misspelled_flag 2 "eddy: unknown option '--hsah' for resume" resume ${CLI_OUT}/none --hsah)
cli_test(compare_misspelled_flag 2 "eddy: unknown option '--hash' for compare"
         compare ${SCENES}/dam_break_2d.json --hash --solvers tait)
cli_test(validate_misspelled_flag 2 "eddy: unknown option '--lst' for validate" validate --lst)
cli_test(validate_grid_not_an_id 2 "eddy: --grid expects a component id (1 to 63 characters of [a-z0-9_]), got 'Nope'"
         validate --grid Nope --case shear_wave)
# A lone '-' is a file name for every command that reads a scene (bench once took it for an option).
cli_test(run_dash_is_a_file 1 "eddy: error: cannot read '-': No such file or directory" run -)
cli_test(bench_dash_is_a_file 1 "eddy: error: cannot read '-': No such file or directory" bench -)
cli_test(bench_misspelled_flag 2 "eddy: unknown option '--quite' for bench" bench ${SCENES}/dam_break_2d.json --quite)

# --list lists everything: a selection beside it would be ignored, so it is refused.
cli_test(validate_list_refuses_solver 2 "eddy: --list shows every case and solver and takes only --cases DIR and --quiet, not --solver"
         validate --list --solver nonexist)
# A folder without cases/ (a copied build, a wrong --cases) names the way to point at the right one.
cli_test(validate_cases_missing 1 "eddy: error: cannot read the validation cases in '/nonexistent/cases': No such file or directory (give the folder holding cases/ with --cases DIR or EDDY_VALIDATION_DIR)"
         validate --list --cases /nonexistent)
# Bench's counts have an upper bound, and the message gives it (it once said ">= 1" to 2000000).
cli_test(bench_steps_too_many 2 "eddy: --steps expects an integer in [1, 1000000], got '2000000'"
         bench ${SCENES}/dam_break_2d.json --steps 2000000)
cli_test(bench_repeats_zero 2 "eddy: --repeats expects an integer in [1, 1000], got '0'"
         bench ${SCENES}/dam_break_2d.json --repeats 0)
cli_test(compare_until_negative 2 "eddy: --until expects a time >= 0 in seconds, got '-1'"
         compare ${SCENES}/dam_break_2d.json --solvers tait --until -1)
cli_test(run_without_scene 2 "run needs a scene file" run)
cli_test(steps_and_until 2 "give --steps or --until, not both" run ${SCENES}/dam_break_2d.json --steps 1 --until 1)
cli_test(bad_steps 2 "--steps expects an integer in [0, 9007199254740992], got 'many'" run ${SCENES}/dam_break_2d.json --steps many)
# --format takes writer ids: any the registry has, else the ones there are.
cli_test(bad_format 2 "--format expects writer ids separated by commas (available: csv, vtk), got 'xml'" run ${SCENES}/dam_break_2d.json --format xml)
cli_test(bad_format_syntax 2 "--format expects writer ids separated by commas, each once, e.g. vtk,csv, got 'VTK': 'VTK' is not a writer id (lower-case letters, digits, _)" run ${SCENES}/dam_break_2d.json --format VTK)
cli_test(format_twice 2 "--format expects writer ids separated by commas, each once, e.g. vtk,csv, got 'vtk,csv,vtk': 'vtk' is given twice" run ${SCENES}/dam_break_2d.json --format vtk,csv,vtk)
cli_test(format_empty_entry 2 "--format expects writer ids separated by commas, each once, e.g. vtk,csv, got 'vtk,,csv': an empty entry" run ${SCENES}/dam_break_2d.json --format vtk,,csv)
cli_test(format_id_too_long 2 "got 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa': 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...' is longer than 63 characters"
         run ${SCENES}/dam_break_2d.json --format aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa)
# A long list is shown cut short, so that the reason still fits the message.
string(REPEAT "vtk," 200 _long_format)
cli_test(format_long_list_says_why 2 "vtk,vtk,...': 'vtk' is given twice" run ${SCENES}/dam_break_2d.json --format ${_long_format}csv)
cli_test(format_list_too_long 2 "vtk,...': the list is longer than 1023 characters" run ${SCENES}/dam_break_2d.json --format ${_long_format}${_long_format}csv)
cli_test(format_too_many 2 "got 'a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q': at most 16 writers" run ${SCENES}/dam_break_2d.json --format a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q)
cli_test(unknown_writer_in_scene 1 "eddy: error: --set 'output.format=[\"vtk\",\"xml\"]': output.format[1]: expected \"vtk\" or \"csv\", got \"xml\"" run ${SCENES}/dam_break_2d.json --set output.format=[\"vtk\",\"xml\"] --out ${CLI_OUT}/x)
cli_test(missing_scene_file 1 "cannot read 'no/such/scene.json'" run no/such/scene.json)
cli_test(malformed_scene 1 "malformed.json:4:3: malformed JSON" run ${DATA}/malformed.json)
# Inputs that never end were read forever (and a run under `timeout` ignored its SIGTERM there): a
# device as the scene, as a probe's reference table, as the checkpoint; a pipe that never ends.
cli_test(scene_is_a_device 1 "/dev/zero:1:1: malformed JSON: a NUL byte in the text" run /dev/zero)
add_test(NAME cli_scene_pipe_without_end
         COMMAND sh -c "yes ' ' | exec \"$@\"" sh ${EXPECT} 1
                 "'/dev/stdin' is larger than 256 MiB, the most a scene file may be" ${EDDY_EXE} run /dev/stdin)
cli_test(probe_reference_is_a_device 1
         "probe_reference_device.json:6:83: probes[0].reference.file: '/dev/zero' is not a regular file (a CSV table is expected)"
         run ${DATA}/probe_reference_device.json --out ${CLI_OUT}/probe_device --quiet --no-picture)
add_test(NAME cli_checkpoint_is_a_device
         COMMAND sh -c "mkdir -p \"$0\" && ln -sf /dev/zero \"$0/checkpoint.eddy\" && exec \"$@\""
                 ${CLI_OUT}/checkpoint_device ${EXPECT} 1 "checkpoint.eddy' is not a regular file, so not an eddy checkpoint"
                 ${EDDY_EXE} resume ${CLI_OUT}/checkpoint_device)
set_tests_properties(cli_scene_is_a_device cli_scene_pipe_without_end cli_probe_reference_is_a_device
                     cli_checkpoint_is_a_device PROPERTIES TIMEOUT 30)
# An id the file names is pointed at, as every other scene error; one from --solver is not the file's.
cli_test(unknown_solver 1 "eddy: error: ${DATA}/unknown_solver.json:2:13: solver: unknown solver 'sph_nonexistent' (available: " run ${DATA}/unknown_solver.json --out ${CLI_OUT}/x)
cli_test(unknown_solver_override 1 "unknown solver 'pbf_typo'" run ${SCENES}/dam_break_2d.json --solver pbf_typo --out ${CLI_OUT}/x)
# With no plugin refused, the message says where plugins are searched and what EDDY_PLUGIN_PATH holds:
# an outside author with the variable unset, or naming a folder without the .so (the source folder
# instead of the build's), saw only the list of solvers found.
# eddy's own plugin folders as the hint names them, searched: the build tree's (a real path) and the
# configured prefix's when there is one.
get_filename_component(OWN_PLUGIN_DIRS ${EDDY_PLUGIN_OUTPUT_DIR} REALPATH)
if(IS_DIRECTORY ${CMAKE_INSTALL_PREFIX}/lib/eddy/plugins)
  get_filename_component(_prefix_plugins ${CMAKE_INSTALL_PREFIX}/lib/eddy/plugins REALPATH)
  if(NOT _prefix_plugins STREQUAL OWN_PLUGIN_DIRS)
    string(APPEND OWN_PLUGIN_DIRS ", ${_prefix_plugins}")
  endif()
endif()
cli_test(unknown_solver_names_plugin_path 1 "tait, vpm_hybrid; a plugin's components are found in the folders of EDDY_PLUGIN_PATH (it is not set) and in eddy's own plugin folder (searched: ${OWN_PLUGIN_DIRS}): add the folder that holds eddy_wcmon.so (`eddy list` shows the plugins found))"
         run ${SCENES}/dam_break_2d.json --solver wcmon --out ${CLI_OUT}/x)
cli_test(unknown_solver_shows_plugin_path 1 "(it is '${CMAKE_CURRENT_SOURCE_DIR}/cli_scenes') and in eddy's own plugin folder (searched: ${OWN_PLUGIN_DIRS}): add the folder that holds eddy_wcmon.so"
         run ${SCENES}/dam_break_2d.json --solver wcmon --out ${CLI_OUT}/x)
# The ids are sorted, not in the order found: the ABI 2.3 test plugin's solver, in EDDY_PLUGIN_PATH and
# so found first, stands between tait and vpm_hybrid (bad_format above has the exact list of the
# host's own writers).
cli_test(unknown_solver_ids_sorted 1 "(available: pbf, sph_mueller, " run ${SCENES}/dam_break_2d.json --solver wcmon --out ${CLI_OUT}/x)
cli_test(unknown_solver_ids_sorted_tail 1 "tait, v2_3_solver, vpm_hybrid; a plugin's components are found in the folders of EDDY_PLUGIN_PATH (it is '${PROJECT_BINARY_DIR}/test_plugins_v2_3')"
         run ${SCENES}/dam_break_2d.json --solver wcmon --out ${CLI_OUT}/x)
set_tests_properties(cli_unknown_solver_ids_sorted cli_unknown_solver_ids_sorted_tail PROPERTIES
                     ENVIRONMENT "EDDY_PLUGIN_PATH=${PROJECT_BINARY_DIR}/test_plugins_v2_3")
set_tests_properties(cli_unknown_solver_names_plugin_path PROPERTIES ENVIRONMENT "EDDY_PLUGIN_PATH=")
set_tests_properties(cli_unknown_solver_shows_plugin_path PROPERTIES ENVIRONMENT "EDDY_PLUGIN_PATH=${CMAKE_CURRENT_SOURCE_DIR}/cli_scenes")
cli_test(unknown_grid 1 "unknown grid 'gpu' (available: cpu" run ${SCENES}/dam_break_2d.json --grid gpu --out ${CLI_OUT}/x)
cli_test(unknown_scene_key 1 "eddy: error: --set 'timee.dt=1': timee: unknown key" run ${SCENES}/dam_break_2d.json --set timee.dt=1 --out ${CLI_OUT}/x)
# A --set that is not PATH=VALUE is a bad command line (2) for every command that takes one, before any
# scene is read; a well-formed path the scene lacks stays the scene's error (1, above).
cli_test(set_without_value 2 "eddy: --set 'world.threads': expected PATH=VALUE, got no '='\nrun 'eddy help' for usage"
         run ${SCENES}/dam_break_2d.json --set world.threads --out ${CLI_OUT}/x)
cli_test(set_bad_path_compare 2 "eddy: --set 'time..end=1': expected a key path like a.b[2].c, got 'time..end'"
         compare ${SCENES}/dam_break_2d.json --solvers sph_mueller,tait --set time..end=1 --out ${CLI_OUT}/x)
cli_test(set_empty_path_validate 2 "eddy: --set '=1': expected PATH=VALUE, got an empty path" validate --case hydrostatic_tank --set =1)
cli_test(set_without_value_bench 2 "eddy: --set 'time.end': expected PATH=VALUE, got no '='" bench ${SCENES}/dam_break_2d.json --set time.end)
cli_test(bad_solver_param 1 "solvers.sph_mueller.cfl: 5 is out of range [0.01, 1]" run ${SCENES}/dam_break_2d.json --set solvers.sph_mueller.cfl=5 --out ${CLI_OUT}/x)
cli_test(unknown_solver_param 1 "solvers.sph_mueller.stiffness: unknown key" run ${SCENES}/dam_break_2d.json --set solvers.sph_mueller.stiffness=5 --out ${CLI_OUT}/x)
# A run to a number of steps shows the time alone ("t = 5e-05 / 5e-05 s" said it had arrived).
cli_test(progress_by_steps_shows_time 0 "progress:  50%  t = 5e-05 s  step 1"
         run ${SCENES}/dam_break_2d.json --steps 2 --no-picture --out ${CLI_OUT}/progress_steps)
# --until at an output time that k * interval rounds just below (11 * 0.0075 < 0.0825): the run ends on
# that frame. It once took a 1e-17 s sliver step more, in which pbf (v = dx / dt) reached 1e11 m/s and
# still exited 0, writing frame 11 twice.
cli_test(until_output_time_no_sliver_step 0 "done: t = 0.0825 s after 1650 steps"
         run ${SCENES}/dam_break_2d.json --solver pbf --until 0.0825 --no-picture --format csv --out ${CLI_OUT}/sliver)
# Such a run is finished: a second run into its folder replaces it (the folder check once took its clock,
# 3e-17 s short of 0.0825, for a run stopped before its end and refused). The second run must run the
# whole scene again and end as one run does: dam_break_2d's dt 5e-05 s to --until 0.0825 s is
# N = 0.0825 / 5e-05 = 1650 steps, and its end line (host/drive/progress.c, eddy_progress_end: "done: t =
# %.6g s after %llu steps in ...", not printed with --quiet) says so; at output_interval 0.0075 s its
# series holds frames 0..K, K = 0.0825 / 0.0075 = 11, each exactly once (none left of the first run,
# none written twice).
add_test(NAME cli_until_output_time_run_again
  COMMAND sh -c "rm -rf \"$1\" && \"$0\" run \"$2\" --until 0.0825 --no-picture --format vtk,csv --quiet --out \"$1\" && \
      sh \"$3\" 0 \"done: t = 0.0825 s after 1650 steps in \" \
        \"$0\" run \"$2\" --until 0.0825 --no-picture --format vtk,csv --out \"$1\" && \
      sh \"$4\" \"$1/frames.pvd\" 11"
    ${EDDY_EXE} ${CLI_OUT}/sliver_again ${SCENES}/dam_break_2d.json ${CMAKE_CURRENT_SOURCE_DIR}/expect.sh
    ${CMAKE_CURRENT_SOURCE_DIR}/support/series_frames.sh)
# --set overrides that cannot change the run are valid (a scene carries every method's settings) but
# were ignored without a word: a plugin's resume test set another solver's material key and tested
# nothing. Each is warned of; what the run reads is not, nor anything under --quiet.
cli_test(set_other_solver_warned 0 "warning: --set 'solvers.tait.cfl=0.1' has no effect on this run: the run's solver is 'sph_mueller'"
         run ${SCENES}/dam_break_2d.json --set solvers.tait.cfl=0.1 --steps 1 --no-picture --out ${CLI_OUT}/set_other)
cli_test(set_material_key_not_read_warned 0 "warning: --set 'materials[0].stiffness=5' has no effect on this run: solver 'pbf' does not read it"
         run ${SCENES}/dam_break_2d.json --solver pbf --set materials[0].stiffness=5 --steps 1 --no-picture --out ${CLI_OUT}/set_material)
cli_test(set_other_solver_warned_by_bench 0 "warning: --set 'solvers.pbf.iterations=2' has no effect on this run: the run's solver is 'sph_mueller'"
         bench ${SCENES}/dam_break_2d.json --set solvers.pbf.iterations=2 --particles 500 --steps 1 --repeats 1)
add_test(NAME cli_set_read_not_warned
  COMMAND sh -c "out=$(\"$0\" run \"$1\" --solver tait --set solvers.tait.cfl=0.2 --set materials[0].stiffness=5 --set time.end=0.001 --steps 1 --no-picture --out \"$2\" 2>&1) || exit 1; \
      printf '%s\\n' \"$out\"; ! printf '%s' \"$out\" | grep -q warning && \
      q=$(\"$0\" run \"$1\" --set solvers.tait.cfl=0.2 --steps 1 --quiet --no-picture --out \"$2\" 2>&1) && [ -z \"$q\" ]"
    ${EDDY_EXE} ${SCENES}/dam_break_2d.json ${CLI_OUT}/set_read)
cli_test(set_compared_solvers_warned 0 "warning: --set 'solvers.pbf.iterations=3' has no effect on this run: no compared solver reads it"
         compare ${SCENES}/dam_break_2d.json --solvers sph_mueller,tait --set solvers.pbf.iterations=3 --steps 1 --out ${CLI_OUT}/set_compare)
add_test(NAME cli_set_compared_solver_not_warned
  COMMAND sh -c "out=$(\"$0\" compare \"$1\" --solvers sph_mueller,tait --set solvers.tait.gamma=7 --steps 1 --out \"$2\" 2>&1) || exit 1; ! printf '%s' \"$out\" | grep -q warning"
    ${EDDY_EXE} ${SCENES}/dam_break_2d.json ${CLI_OUT}/set_compare_read)
# A scene on a picosecond scale: dt 1e-13 s to an end of 1e-12 s is 10 steps and 3 frames (0, 5e-13, 1e-12).
# The end-of-run check took any time within 1e-12 s of the end as reached, so this run ended at t = 0
# after 0 steps with status 0.
cli_test(picosecond_scene_runs_to_its_end 0 "done: t = 1e-12 s after 10 steps"
         run ${SCENES}/dam_break_2d.json --set time.dt=1e-13 --set time.end=1e-12 --set time.output_interval=5e-13
         --no-picture --format csv --out ${CLI_OUT}/picosecond)
# A time step so small that the end is out of reach (3e299 steps): refused before the output folder is
# made. It ran on, showing an ETA of ever.
add_test(NAME cli_dt_too_small_for_end
  COMMAND sh -c "rm -rf \"$1\" && sh \"$2\" 1 \"eddy: error: time.dt = 1e-300 s would take 3e+299 steps to reach t = 0.3 s from t = 0 s, more than the 2^53 a run can count; raise time.dt or end the run sooner\" \
      \"$0\" run \"$3\" --set time.dt=1e-300 --no-picture --out \"$1\" && test ! -e \"$1\""
    ${EDDY_EXE} ${CLI_OUT}/dt_tiny ${CMAKE_CURRENT_SOURCE_DIR}/expect.sh ${SCENES}/dam_break_2d.json)
# ... and with --until; a run by steps with that dt is not refused.
cli_test(dt_too_small_for_until 1 "time.dt = 1e-20 s would take 1e+19 steps to reach t = 0.1 s"
         run ${SCENES}/dam_break_2d.json --set time.dt=1e-20 --until 0.1 --no-picture --out ${CLI_OUT}/dt_tiny_until)
cli_test(dt_tiny_by_steps_runs 0 "done: t = 3e-20 s after 3 steps"
         run ${SCENES}/dam_break_2d.json --set time.dt=1e-20 --steps 3 --no-picture --out ${CLI_OUT}/dt_tiny_steps)
# Finite velocities whose squared speed overflows a float: named as such, not as a solver's bad max_dt,
# and in the scene, before the output folder is touched (tests/robust/refusal_keeps_run.sh; the check at
# the first step, for a resumed state, is checkpoint_invalid_velocity_overflows).
cli_test(speed_overflows_float 1 "eddy: error: --set 'fluids[0].velocity=[1e20,0]': fluids[0].velocity: expected a speed below 1.8446743525e19 (sim units/s; its square must fit single precision, or no time step is stable), got 1e+20"
         run ${SCENES}/dam_break_2d.json --steps 2 --set fluids[0].velocity=[1e20,0] --out ${CLI_OUT}/speed)
# Below that, from about 1e18 sim units/s (or a gravity or stiffness as extreme), the accelerations' squares
# overflow: the force limit is 0, and the message names the state, not the solver's max_dt ("solver
# 'sph_mueller' at step 1 (t = 0 s): max_dt returned 0; it must be finite and > 0", EDDY_ERR_PLUGIN). A max_dt of 0
# that the state does not explain is still the solver's: robust_plugin_faulty_dt_zero_force.
set(ACCEL_OVERFLOW "eddy: error: at step 1 (t = 0 s): the largest particle acceleration overflows single precision (1.8446743525e19 sim units/s^2 or more), so the force limit of solver")
cli_test(accel_overflows_float 1 "${ACCEL_OVERFLOW} 'sph_mueller' is 0 and no time step is stable; check the state the run starts from: its velocities (a scene's below 1.8446743525e19 sim units/s pass when it is read, as do a checkpoint's and values written into the particles) and the scene's gravity and stiffness"
         run ${SCENES}/dam_break_2d.json --steps 2 --set fluids[0].velocity=[1e18,0] --quiet --no-picture --out ${CLI_OUT}/accel)
cli_test(accel_overflows_float_tait 1 "${ACCEL_OVERFLOW} 'tait' is 0"
         run ${SCENES}/tait_dam_break_2d.json --steps 2 --set fluids[0].velocity=[1.7e19,0] --quiet --no-picture --out ${CLI_OUT}/accel_tait)
# (A gravity whose square overflows a float is refused when the scene is read: cli_dt_gravity_overflows_float.)
# EDDY_LOG=debug says which limit sets the step when it changes: once for a run whose CFL limit sets
# every step (it said nothing; tuning a solver's settings was trial and error). The flips of a limit
# that applies for some steps only: robust_plugin_dt_window_said. Under 2 processes: mpi_dt_limit_debug_said_once.
add_test(NAME cli_dt_limit_said_once_debug
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/dt_said.sh
                 "eddy: dt: step 1 (t = 0 s): dt 0.0001 s, set by the solver's CFL limit (the scene's time.dt is 0.001 s)"
                 ${EDDY_EXE} run ${SCENES}/dam_break_2d.json --set time.dt=0.001 --steps 40 --quiet --no-picture
                 --format csv --out ${CLI_OUT}/dt_said)
add_test(NAME cli_dt_limit_not_said_without_limit
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/dt_said.sh ""
                 ${EDDY_EXE} run ${SCENES}/dam_break_2d.json --steps 20 --quiet --no-picture --format csv
                 --out ${CLI_OUT}/dt_not_said)
# EDDY_LOG: only "debug" means something; any other value (a typo) was ignored without a word. Said once
# per process, also with --quiet (more output was asked for); empty is unset.
set(EDDY_LOG_WARNING "eddy: warning: environment variable EDDY_LOG: expected 'debug' (show the debug messages of eddy and its plugins) or unset, got 'Debug'; ignored")
cli_test(eddy_log_unknown_warned 0 "${EDDY_LOG_WARNING}"
         run ${SCENES}/dam_break_2d.json --steps 2 --quiet --no-picture --format csv --out ${CLI_OUT}/eddy_log_typo)
cli_test(eddy_log_unknown_warned_list 0 "got 'verbose'; ignored" list)
set_tests_properties(cli_eddy_log_unknown_warned PROPERTIES ENVIRONMENT "EDDY_LOG=Debug")
set_tests_properties(cli_eddy_log_unknown_warned_list PROPERTIES ENVIRONMENT "EDDY_LOG=verbose")
# Once, though the time step limit (--set time.dt=0.001) would ask for a debug line at every change.
add_test(NAME cli_eddy_log_unknown_warned_once
         COMMAND sh -c "out=$(\"$@\" 2>&1); s=$?; printf '%s\\n' \"$out\"; n=$(printf '%s\\n' \"$out\" | grep -c 'environment variable EDDY_LOG'); echo \"warnings: $n\"; [ $s -eq 0 ] && [ $n -eq 1 ]"
                 sh ${EDDY_EXE} compare ${SCENES}/dam_break_2d.json --solvers sph_mueller,tait --set time.dt=0.001
                 --steps 3 --quiet --out ${CLI_OUT}/eddy_log_once)
set_tests_properties(cli_eddy_log_unknown_warned_once PROPERTIES ENVIRONMENT "EDDY_LOG=info")
add_test(NAME cli_eddy_log_empty_is_unset
         COMMAND sh -c "out=$(\"$@\" 2>&1); s=$?; printf '%s\\n' \"$out\"; [ $s -eq 0 ] && ! printf '%s\\n' \"$out\" | grep -q EDDY_LOG"
                 sh ${EDDY_EXE} run ${SCENES}/dam_break_2d.json --steps 2 --quiet --no-picture --format csv
                 --out ${CLI_OUT}/eddy_log_empty)
set_tests_properties(cli_eddy_log_empty_is_unset PROPERTIES ENVIRONMENT "EDDY_LOG=")
# A mass so large that a particle's own kernel weight exceeds rest density: no spacing gives it, and
# the message says so (it named a fallback "rest spacing" below h, contradicting itself). In 2D,
# W_poly6(0) = 4 / (pi h^2) = 50929.6 for h = 0.005, so the largest mass is 1000 / 50929.6 = 0.0196350.
cli_test(mass_above_self_density 1 "materials[0].particle_mass: expected a mass of at most rest_density / W_poly6(0) = 0.019635 (for world.smoothing_radius = 0.005), got 0.02"
         run ${DATA}/mass_too_large.json --steps 1 --out ${CLI_OUT}/x)
cli_test(negative_viscosity 1 "eddy: error: --set 'materials[0].viscosity=-1': materials[0].viscosity: expected a number >= 0, got -1" run ${SCENES}/dam_break_2d.json --set materials[0].viscosity=-1 --out ${CLI_OUT}/x)
cli_test(unwritable_output 1 "cannot create output folder" run ${SCENES}/dam_break_2d.json --steps 1 --out ${SCENES}/dam_break_2d.json/out)
# The explosion guard: a solver whose velocities turn NaN at step 30 must stop the run with the step,
# the time and the hint, exit 1, and keep the frames already written. The step began calm (falling 29
# steps of 5e-5 s: 9.81 * 29 * 5e-5 = 0.0142 m/s, 1.4e-4 smoothing radii of 0.005 m per step), so the
# hint points at the solver's step first; from a step that moved particles 0.2 smoothing radii (20 m/s)
# it is the plain hint of an instability.
add_test(NAME cli_explosion_is_reported COMMAND ${EXPECT} 1 "simulation exploded at step 30 (t = 0.0015 s) with solver 'exploding_solver': a particle velocity is NaN (particle id 0); the step began calm (largest speed 0.0142 sim units/s, 0.00014 smoothing radii per step), so look first for a division by zero or an unset value in the solver's step (docs/plugin-guide.md, \"Error reporting\"); else lower the time step, stiffness, gravity or viscosity"
  ${EDDY_EXE} run ${SCENES}/dam_break_2d.json --solver exploding_solver --set time.output_interval=0.0005 --out ${CLI_OUT}/explode --quiet)
set_tests_properties(cli_explosion_is_reported PROPERTIES ENVIRONMENT "EDDY_PLUGIN_PATH=${PROJECT_BINARY_DIR}/test_plugins" FIXTURES_SETUP exploded)
add_test(NAME cli_explosion_after_fast_steps_hints_instability COMMAND ${EXPECT} 1 "simulation exploded at step 30 (t = 0.0015 s) with solver 'exploding_solver': a particle velocity is NaN (particle id 0); hint: lower the time step, stiffness, gravity or viscosity"
  ${EDDY_EXE} run ${SCENES}/dam_break_2d.json --solver exploding_solver --set "fluids[0].velocity=[20,0]" --no-picture
  --out ${CLI_OUT}/explode_fast --quiet)
set_tests_properties(cli_explosion_after_fast_steps_hints_instability PROPERTIES
                     ENVIRONMENT "EDDY_PLUGIN_PATH=${PROJECT_BINARY_DIR}/test_plugins")
add_test(NAME cli_explosion_keeps_frames COMMAND sh -c "test -f ${CLI_OUT}/explode/frames/frame_00002.vtp && grep -q frame_00002.vtp ${CLI_OUT}/explode/frames.pvd")
set_tests_properties(cli_explosion_keeps_frames PROPERTIES FIXTURES_REQUIRED exploded)
# The broken test plugins are listed as refused, the real ones still load, and the exit status says
# that something was refused.
add_test(NAME cli_list_refusals COMMAND ${EXPECT} 1 "ABI major version mismatch: plugin 3.0, host 2.3" ${EDDY_EXE} list)
set_tests_properties(cli_list_refusals PROPERTIES ENVIRONMENT "EDDY_PLUGIN_PATH=${PROJECT_BINARY_DIR}/test_plugins")
add_test(NAME cli_list_refusals_keep_good COMMAND ${EXPECT} 1 "sph_mueller      solver" ${EDDY_EXE} list)
set_tests_properties(cli_list_refusals_keep_good PROPERTIES ENVIRONMENT "EDDY_PLUGIN_PATH=${PROJECT_BINARY_DIR}/test_plugins")
add_test(NAME cli_list_refusals_exit_status COMMAND ${EXPECT} 1 "plugin refusals (see \"refused plugins\" above)" ${EDDY_EXE} list)
set_tests_properties(cli_list_refusals_exit_status PROPERTIES ENVIRONMENT "EDDY_PLUGIN_PATH=${PROJECT_BINARY_DIR}/test_plugins")
# A short real run writes frames, the series, diagnostics, a picture and prints a hash: the hash of 2
# threads is the one of --threads 1 (runs are bit-identical for any thread count), and frame 0 holds the
# scene's fill, dam_break_2d's water box [0, 0.1] x [0, 0.2] m at spacing 0.0025 m: 40 x 80 = 3200
# particles, in the VTK frame (tests/check_vtp.py, an independent reader) and in the CSV frame (3200 rows,
# ids 0..3199 once each, every position inside the box, z = 0).
add_test(NAME cli_run_writes_outputs
  COMMAND sh -c "rm -rf \"$1\" \"$1_t1\" && \
      h2=$(\"$0\" run \"$2\" --steps 20 --format vtk,csv --hash --quiet --threads 2 --out \"$1\" | sed -n 's/^state-hash: //p') && \
      h1=$(\"$0\" run \"$2\" --steps 20 --format csv --hash --quiet --no-picture --threads 1 --out \"$1_t1\" | sed -n 's/^state-hash: //p') && \
      echo \"2 threads: $h2\" && echo \"1 thread:  $h1\" && [ -n \"$h2\" ] && [ \"$h2\" = \"$h1\" ]"
    ${EDDY_EXE} ${CLI_OUT}/short ${SCENES}/dam_break_2d.json)
set_tests_properties(cli_run_writes_outputs PROPERTIES FIXTURES_SETUP short_run)
add_test(NAME cli_run_writes_every_format
  COMMAND sh -c "test -s \"$0/frames/frame_00000.vtp\" && test -s \"$0/frames/frame_00000.csv\" && test -s \"$0/frames.pvd\" && \
      test -s \"$0/diagnostics.csv\" && test -s \"$0/picture.png\" && \
      sh \"$1\" 0 \"frame_00000.vtp: 3200 points\" python3 \"$2\" \"$0/frames.pvd\" && \
      awk -F, 'NR == 1 { ok = $1 == \"id\" && $2 == \"x\" && $3 == \"y\" && $4 == \"z\"; next } \
               { n++; if (seen[$1]++ || $1 < 0 || $1 >= 3200 || !($2 > 0 && $2 < 0.1 && $3 > 0 && $3 < 0.2 && $4 == 0)) bad++ } \
               END { printf \"frame 0 (csv): %d particles, %d outside the box or repeated\\n\", n, bad; exit !(ok && n == 3200 && !bad) }' \
          \"$0/frames/frame_00000.csv\""
    ${CLI_OUT}/short ${CMAKE_CURRENT_SOURCE_DIR}/expect.sh ${CMAKE_CURRENT_SOURCE_DIR}/check_vtp.py)
set_tests_properties(cli_run_writes_every_format PROPERTIES FIXTURES_REQUIRED short_run)
# The host's version and the plugin ABI it loads.
cli_test(version 0 "eddy ${PROJECT_VERSION} (plugin ABI 2.3)" --version)
# An independent reader (Python's xml and base64) checks the .vtp files test_output wrote.
add_test(NAME output_vtp_reader COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_vtp.py --expect ${PROJECT_BINARY_DIR}/test_output/vtp/expected.json ${PROJECT_BINARY_DIR}/test_output/vtp/frames.pvd)
set_tests_properties(output PROPERTIES FIXTURES_SETUP output_frames)
set_tests_properties(output_vtp_reader PROPERTIES FIXTURES_REQUIRED output_frames)
# The same reader on frames whose ids exceed 2^32: a UInt64 id array (test_output's test_vtp_64bit_ids).
add_test(NAME output_vtp_reader_64bit_ids COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/check_vtp.py --expect ${PROJECT_BINARY_DIR}/test_output/vtp64/expected.json ${PROJECT_BINARY_DIR}/test_output/vtp64/frames.pvd)
set_tests_properties(output_vtp_reader_64bit_ids PROPERTIES FIXTURES_REQUIRED output_frames)
# The probes of dam_break_2d (front and height at the left wall) in DIR/probes.csv: at t = 0 the
# column is the block [0, a] x [0, 2a] with a = 0.1 m, so the front reads a and the height 2a.
add_test(NAME cli_run_writes_probes COMMAND ${EDDY_EXE} run ${SCENES}/dam_break_2d.json --steps 0 --quiet --no-picture --out ${CLI_OUT}/probes)
set_tests_properties(cli_run_writes_probes PROPERTIES FIXTURES_SETUP probes_csv)
add_test(NAME cli_probes_at_t0 COMMAND sh -c "awk -F, 'NR == 1 && $0 != \"time,step,front,height_left_wall\" { exit 1 } NR == 2 { f = $3 - 0.1; h = $4 - 0.2; if (f < 0) f = -f; if (h < 0) h = -h; if (f > 1e-6 || h > 1e-6) exit 1; ok = 1 } END { exit !ok }' ${CLI_OUT}/probes/probes.csv && cat ${CLI_OUT}/probes/probes.csv")
set_tests_properties(cli_probes_at_t0 PROPERTIES FIXTURES_REQUIRED probes_csv)
# --render: a PNG per output frame (tests/render checks what is in them); a bad --camera is named.
add_test(NAME cli_render_writes_frames COMMAND sh -c "rm -rf \"$1\" && \"$0\" run \"$2\" --steps 160 --render --quiet --no-picture --out \"$1\" && test -s \"$1/render/frame_00000.png\" && test -s \"$1/render/frame_00002.png\""
         ${EDDY_EXE} ${CLI_OUT}/render ${SCENES}/dam_break_2d.json)
# Of the wrong form: a bad command line (2); not fitting the scene (2 numbers in 3D): an error of the run (1).
cli_test(render_bad_camera 2 "eddy: --camera 'eye=1': eye: expected 2 or 3 numbers separated by commas, got \"1\"" run ${SCENES}/dam_break_2d.json --render --camera eye=1 --out ${CLI_OUT}/x)
cli_test(render_camera_not_3d 1 "eddy: error: --camera 'eye=1,2': eye: expected 3 numbers separated by commas, got \"1,2\"" run ${SCENES}/dam_break_3d.json --render --camera eye=1,2 --out ${CLI_OUT}/x)
cli_test(render_bad_range 2 "eddy: --render-range 'abc': expected MIN,MAX with MIN < MAX, or frame" run ${SCENES}/dam_break_2d.json --render-range abc --out ${CLI_OUT}/x)
cli_test(render_bad_width 2 "--render-width expects a width in pixels (16 to 16384), got 'wide'" run ${SCENES}/dam_break_2d.json --render-width wide)
# A field name too long for the renderer is refused as such (it was cut to 63 characters and then
# refused as an unknown field of another name).
string(REPEAT "a" 80 LONG_FIELD)
# Its form is the command line's (2), as an empty name is; whether the solver has it, the run's (1).
cli_test(render_field_too_long 2 "eddy: --render-field expects a field name of 1 to 63 characters, got 80 characters" run ${SCENES}/dam_break_2d.json --steps 1 --render --render-field ${LONG_FIELD} --out ${CLI_OUT}/x)
add_test(NAME cli_render_field_empty COMMAND ${EXPECT} 2 "eddy: --render-field expects a field name of 1 to 63 characters, got ''"
         ${EDDY_EXE} run ${SCENES}/dam_break_2d.json --steps 1 --render --render-field "" --out ${CLI_OUT}/x)
cli_test(render_not_for_resume 2 "option --render is not for resume" resume ${CLI_OUT}/render --render)

# eddy validate checks its --out folder before any case runs (it used to find a file in the way only
# after every run, and then print the report's path as if written).
cli_test(validate_out_is_a_file 1 "eddy: error: --out: cannot create output folder '${PROJECT_SOURCE_DIR}/README.md': '${PROJECT_SOURCE_DIR}/README.md' is not a directory"
         validate --solver tait --case dam_break_2d --resolution coarse --out ${PROJECT_SOURCE_DIR}/README.md)

# OpenMP threads spin briefly unless the user chose a policy (main.c: libgomp reads its environment
# before main, so eddy starts again with GOMP_SPINCOUNT=1000). libgomp's own report of what it read
# (OMP_DISPLAY_ENV=verbose) shows that spin count, and the user's choice wins.
if(CMAKE_C_COMPILER_ID STREQUAL "GNU")
  add_test(NAME cli_openmp_spins_briefly_by_default
           COMMAND ${EXPECT} 0 "GOMP_SPINCOUNT = '1000'"
                   env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT OMP_DISPLAY_ENV=verbose ${EDDY_EXE} --version)
  add_test(NAME cli_openmp_wait_policy_of_the_user
           COMMAND ${EXPECT} 0 "GOMP_SPINCOUNT = '30000000000'"
                   env OMP_WAIT_POLICY=active OMP_DISPLAY_ENV=verbose ${EDDY_EXE} --version)
endif()

# The command-line audit (README, "The eddy command"). Each of these once ran, or failed as an error of the
# run (1) naming something else, or wrote an output folder.
#
# cli_test_leaves(NAME STATUS TEXT DIR ARGS...): as cli_test, and DIR (removed first) must not exist after.
function(cli_test_leaves name status text dir)
  add_test(NAME cli_${name}
    COMMAND sh -c "d=$0; rm -rf \"$d\" && sh \"$@\" && if [ -e \"$d\" ]; then echo \"cli: '$d' was written\" >&2; exit 1; fi"
            ${dir} ${CMAKE_CURRENT_SOURCE_DIR}/expect.sh ${status} "${text}" ${EDDY_EXE} ${ARGN})
endfunction()
set(CLI_SCENES ${CMAKE_CURRENT_SOURCE_DIR}/cli_scenes)
# A scene's own solver, grid, output.dir and output.format are checked although --solver, --grid, --out
# or --format replaces them on this run: run without those options the scene fails on the value, so it
# is said now, as a run without them says it. An empty output.dir ran with --out, status 0.
cli_test_leaves(out_reports_bad_scene_dir 1 "eddy: error: ${CLI_SCENES}/bad_output_dir.json:7:45: output.dir: expected a non-empty string of at most 4095 characters, got \"\""
         ${CLI_OUT}/bad_scene_dir run ${CLI_SCENES}/bad_output_dir.json --steps 1 --out ${CLI_OUT}/bad_scene_dir)
cli_test_leaves(solver_reports_bad_scene_solver 1 "eddy: error: ${CLI_SCENES}/bad_solver.json:7:12: solver: expected a component id (1 to 63 characters of [a-z0-9_]), got \"Sph Mueller\""
         ${CLI_OUT}/bad_scene_solver run ${CLI_SCENES}/bad_solver.json --solver tait --steps 1 --out ${CLI_OUT}/bad_scene_solver)
cli_test_leaves(grid_reports_bad_scene_grid 1 "eddy: error: ${CLI_SCENES}/bad_grid.json:7:35: grid: expected a component id (1 to 63 characters of [a-z0-9_]), got \"CPU\""
         ${CLI_OUT}/bad_scene_grid run ${CLI_SCENES}/bad_grid.json --grid cpu --steps 1 --out ${CLI_OUT}/bad_scene_grid)
cli_test_leaves(format_reports_bad_scene_format 1 "eddy: error: ${CLI_SCENES}/bad_format.json:7:56: output.format[1]: expected a writer id (1 to 63 characters of [a-z0-9_]), got \"VTK\""
         ${CLI_OUT}/bad_scene_format run ${CLI_SCENES}/bad_format.json --format csv --steps 1 --out ${CLI_OUT}/bad_scene_format)
# An output that is no object: the --out put into it was blamed ("--set 'output.dir=...': output: ...").
cli_test_leaves(out_reports_scene_output_not_object 1 "eddy: error: ${CLI_SCENES}/output_not_object.json:7:37: output: expected an object {dir, format, writers, overlap}, got an empty array"
         ${CLI_OUT}/output_not_object run ${CLI_SCENES}/output_not_object.json --steps 1 --out ${CLI_OUT}/output_not_object)
cli_test_leaves(set_reports_bad_scene_dir 1 "bad_output_dir.json:7:45: output.dir: expected a non-empty string"
         ${CLI_OUT}/bad_scene_dir_set run ${CLI_SCENES}/bad_output_dir.json --set "output.dir=\"${CLI_OUT}/bad_scene_dir_set\"" --steps 1)

# A first-time user's scene mistakes (a lecturer's student lab), each said with what to fix. A 2D scene
# without "dimensions" is 3D by default: its [x, y] was only "expected an array of 3 numbers". A trailing
# comma was "malformed JSON near ''" (cJSON stops past the '}', on the next line), at the column after
# the '}' or on the line below: now at the comma. A spacing just below h ran silently and exploded later
# with a hint about dt and stiffness: warned once when the world is built, also by compare, which builds
# one a solver. A block far past the container's lid named "the domain [-0.005, 0.305]", which the scene
# never wrote; only a scene without a container has the domain as its bound.
cli_test(scene_2d_without_dimensions 1 "lab_2d_without_dimensions.json:6:25: world.gravity: expected an array of 3 numbers, got an array of 2 elements (the scene is 3D: \"dimensions\" is not set, and 3 is its default; add \"dimensions\": 2 for a 2D scene)"
         run ${CLI_SCENES}/lab_2d_without_dimensions.json --steps 1 --out ${CLI_OUT}/lab)
cli_test(scene_trailing_comma 1 "lab_trailing_comma.json:10:41: malformed JSON: a comma before '}' (JSON allows no trailing comma), near '\"stiffness\": 400, }'"
         run ${CLI_SCENES}/lab_trailing_comma.json --steps 1 --out ${CLI_OUT}/lab)
cli_test(scene_comma_own_line 1 "lab_comma_own_line.json:11:3: malformed JSON: a comma before '}' (JSON allows no trailing comma), near '{ \"format\": [] } , }'"
         run ${CLI_SCENES}/lab_comma_own_line.json --steps 1 --out ${CLI_OUT}/lab)
cli_test(scene_spacing_near_radius 0 "eddy: warning: --set 'materials[0].particle_spacing=0.0099': materials[0].particle_spacing: 0.0099 is close to world.smoothing_radius = 0.01 (h / spacing = 1.01, below the 1.2 to 4 with which SPH resolves a fluid, docs/scenes.md): the density sum sees the neighbours at the kernel's edge and the run may explode; use a spacing of at most h / 1.2 = 0.00833"
         run ${SCENES}/dam_break_2d.json --set world.smoothing_radius=0.01 --set materials[0].particle_spacing=0.0099 --steps 1 --no-picture --out ${CLI_OUT}/spacing_near_radius)
add_test(NAME cli_scene_spacing_near_radius_once
         COMMAND ${EXPECT} 0 "said 1 time(s)" sh -c "n=$(\"$0\" \"$@\" 2>&1 | grep -c 'is close to world.smoothing_radius'); echo \"said $n time(s)\""
                 ${EDDY_EXE} compare ${SCENES}/dam_break_2d.json --solvers sph_mueller,tait --threads 1 --set materials[0].particle_spacing=0.0045
                 --steps 1 --out ${CLI_OUT}/spacing_near_radius_once)
# A run that explodes with the spacing that close to h is told so in the explosion's hint (the usual knobs,
# time step, stiffness, gravity, viscosity, do not reach it): a teaching trial's block on the floor.
cli_test(run_exploded_names_resolution 1
  "hint: lower the time step, stiffness, gravity or viscosity; material 'water' has h / spacing = 1.01, below the 1.2 to 4 with which SPH resolves a fluid: use a smaller particle_spacing"
  run ${CMAKE_CURRENT_SOURCE_DIR}/cli_scenes/lab_dam_coarse_ratio.json --threads 1 --no-picture --quiet
      --out ${CLI_OUT}/lab_dam_coarse_ratio)
cli_test(scene_block_far_past_container 1 "eddy: error: --set 'fluids[0].box.max=[0.1,0.4]': fluids[0].box: expected a block inside the container's walls, got one that reaches 0.1 past its wall at y = 0.3 (container.max), more than half its particle spacing of 0.0025: particles would start outside the container"
         run ${SCENES}/dam_break_2d.json --set fluids[0].box.max=[0.1,0.4] --steps 1 --out ${CLI_OUT}/x)
cli_test(scene_block_past_domain_without_container 1 "eddy: error: --set 'fluids[0].box.max=[0.1,0.4]': fluids[0].box: expected a block inside the domain [0, 0.3] on axis y, got [0, 0.4]"
         run ${CLI_SCENES}/lab_domain_only.json --set fluids[0].box.max=[0.1,0.4] --steps 1 --out ${CLI_OUT}/x)

# An option that takes a value is given once (--set, and validate's --solver and --case, add up): the
# second replaced the first without a word.
cli_test_leaves(run_out_twice 2 "eddy: option --out is given twice ('${CLI_OUT}/twice_a', then '${CLI_OUT}/twice_b')\nrun 'eddy help' for usage"
         ${CLI_OUT}/twice_b run ${SCENES}/dam_break_2d.json --steps 1 --out ${CLI_OUT}/twice_a --out ${CLI_OUT}/twice_b)
cli_test(run_steps_twice 2 "eddy: option --steps is given twice ('1', then '2')" run ${SCENES}/dam_break_2d.json --steps 1 --steps 2 --out ${CLI_OUT}/x)
cli_test(resume_threads_twice 2 "eddy: option --threads is given twice ('1', then '2')" resume ${CLI_OUT}/none --threads 1 --threads 2)
cli_test_leaves(compare_solvers_twice 2 "eddy: option --solvers is given twice ('tait', then 'pbf')"
         ${CLI_OUT}/solvers_twice compare ${SCENES}/dam_break_2d.json --solvers tait --solvers pbf --steps 1 --out ${CLI_OUT}/solvers_twice)
cli_test(bench_particles_twice 2 "eddy: option --particles is given twice ('300', then '400')"
         bench ${SCENES}/dam_break_2d.json --particles 300 --particles 400 --steps 1 --repeats 1)
cli_test(validate_resolution_twice 2 "eddy: option --resolution is given twice ('coarse', then 'fine')"
         validate --case nosuch --resolution coarse --resolution fine)

# A folder or component id of the wrong form is a bad command line (2), said as the option's; it was an
# error of the run (1) that named the scene file's key ("dam_break_2d.json: output.dir: ..."), or
# compare wrote a report of the failure, or validate read '/cases'.
# (add_test itself where a value is empty: a function's ARGN drops it)
add_test(NAME cli_run_out_empty COMMAND ${EXPECT} 2 "eddy: --out expects a folder, got ''\nrun 'eddy help' for usage"
         ${EDDY_EXE} run ${SCENES}/dam_break_2d.json --steps 1 --out "")
cli_test(run_solver_bad_form 2 "eddy: --solver expects a component id (1 to 63 characters of [a-z0-9_]), got 'Tait'"
         run ${SCENES}/dam_break_2d.json --solver Tait --steps 1 --out ${CLI_OUT}/x)
add_test(NAME cli_bench_grid_empty COMMAND ${EXPECT} 2 "eddy: --grid expects a component id (1 to 63 characters of [a-z0-9_]), got ''"
         ${EDDY_EXE} bench ${SCENES}/dam_break_2d.json --grid "" --particles 300 --steps 1 --repeats 1)
add_test(NAME cli_compare_grid_empty
  COMMAND sh -c "rm -rf \"$0\" && sh \"$@\" && test ! -e \"$0\"" ${CLI_OUT}/grid_empty
          ${CMAKE_CURRENT_SOURCE_DIR}/expect.sh 2 "eddy: --grid expects a component id (1 to 63 characters of [a-z0-9_]), got ''"
          ${EDDY_EXE} compare ${SCENES}/dam_break_2d.json --solvers tait --grid "" --steps 1 --out ${CLI_OUT}/grid_empty)
add_test(NAME cli_compare_out_empty COMMAND ${EXPECT} 2 "eddy: --out expects a folder, got ''"
         ${EDDY_EXE} compare ${SCENES}/dam_break_2d.json --solvers tait --steps 1 --out "")
add_test(NAME cli_validate_cases_empty COMMAND ${EXPECT} 2 "eddy: --cases expects a folder, got ''" ${EDDY_EXE} validate --list --cases "")
add_test(NAME cli_bench_from_empty COMMAND ${EXPECT} 2 "eddy: --from expects a folder, got ''" ${EDDY_EXE} bench --from "")

# A number with white space before it, as after it, is not a number (" 5" ran 5 steps).
# Above 2^53 a checkpoint's end_steps (a JSON number) is not the count: 2^63 - 1 was written as 2^63,
# which the resume then refused.
cli_test(steps_beyond_2_53 2 "eddy: --steps expects an integer in [0, 9007199254740992], got '9007199254740993'" run ${SCENES}/dam_break_2d.json --steps 9007199254740993 --out ${CLI_OUT}/x)
cli_test(steps_leading_space 2 "eddy: --steps expects an integer in [0, 9007199254740992], got ' 5'" run ${SCENES}/dam_break_2d.json --steps " 5" --out ${CLI_OUT}/x)
cli_test(until_leading_space 2 "eddy: --until expects a time >= 0 in seconds, got ' 0.1'" compare ${SCENES}/dam_break_2d.json --solvers tait --until " 0.1")
# A single-dash word is an unknown option, not a scene file ("cannot read '-x'").
cli_test(run_single_dash 2 "eddy: unknown option '-x' for run" run -x)
cli_test(compare_single_dash 2 "eddy: unknown option '-q' for compare" compare ${SCENES}/dam_break_2d.json --solvers tait -q)

# The render options choose what --render draws: without --render or --movie they changed nothing,
# without a word (--render-field bogus ran with status 0).
cli_test_leaves(render_field_without_render 2 "eddy: --render-field chooses what --render draws: give --render or --movie with it"
         ${CLI_OUT}/render_alone run ${SCENES}/dam_break_2d.json --render-field bogus --steps 1 --out ${CLI_OUT}/render_alone)
cli_test(camera_without_render 2 "eddy: --camera chooses what --render draws: give --render or --movie with it"
         run ${SCENES}/dam_break_2d.json --camera view=-z --steps 1 --out ${CLI_OUT}/x)

# describe takes a component id, not an option (it looked '--quiet' up as a component: status 1).
cli_test(describe_option 2 "eddy: unknown option '--quiet' for describe" describe tait --quiet)
# `eddy help CMD` is `eddy CMD --help` (it printed every command), an unknown CMD is refused (it printed
# the usage with status 0), and --version takes no arguments.
cli_test(help_command 0 "usage: eddy compare SCENE --solvers ID,ID,..." help compare)
cli_test(help_unknown_command 2 "eddy: unknown command 'rnu'" help rnu)
cli_test(version_extra_argument 2 "eddy: --version takes no arguments, got 'run'" --version run)
# `eddy describe` of what cannot be a component id (the registry takes only [a-z0-9_]) is a bad command
# line; it was "unknown component ''" with the hint to add the folder that holds eddy_.so.
cli_test(describe_not_an_id 2 "eddy: describe expects a component id (characters of [a-z0-9_], as `eddy list` shows them), got 'Tait'" describe Tait)
add_test(NAME cli_describe_empty_id COMMAND ${EXPECT} 2 "eddy: describe expects a component id (characters of [a-z0-9_], as `eddy list` shows them), got ''"
         ${EDDY_EXE} describe "")
# A result printed on stdout that could not be written (a full disk) is an error: bench's figures,
# --hash and describe's table were lost while eddy exited 0.
if(EXISTS /dev/full)
  add_test(NAME cli_describe_stdout_full COMMAND ${EXPECT} 1 "eddy: error: cannot write to standard output"
           sh -c "\"$0\" describe tait > /dev/full" ${EDDY_EXE})
  add_test(NAME cli_bench_stdout_full COMMAND ${EXPECT} 1 "eddy: error: cannot write to standard output"
           sh -c "\"$0\" bench \"$1\" --steps 2 --repeats 1 --quiet > /dev/full" ${EDDY_EXE} ${SCENES}/dam_break_2d.json)
  add_test(NAME cli_run_hash_stdout_full COMMAND ${EXPECT} 1 "eddy: error: cannot write to standard output"
           sh -c "\"$0\" run \"$1\" --steps 2 --hash --quiet --no-picture --out \"$2\" > /dev/full"
           ${EDDY_EXE} ${SCENES}/dam_break_2d.json ${CLI_OUT}/hash_stdout_full)
  set_tests_properties(cli_bench_stdout_full cli_run_hash_stdout_full PROPERTIES ENVIRONMENT "OMP_WAIT_POLICY=PASSIVE")
endif()
# A standard descriptor closed when eddy starts was the number of the next file it opened, which then
# received its log lines (stderr closed; stdin, stdout and stderr closed): main() holds it with /dev/null.
add_test(NAME cli_closed_std_fds
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli_fds/closed_std_fds.sh ${EDDY_EXE} ${SCENES}/dam_break_2d.json
                 ${CLI_OUT}/closed_std_fds ${PROJECT_BINARY_DIR}/test_plugins)
set_tests_properties(cli_closed_std_fds PROPERTIES TIMEOUT 60
                     ENVIRONMENT "OMP_WAIT_POLICY=PASSIVE;EDDY_TEST_CKEDIT=$<TARGET_FILE:ckedit>")
# A value an override put in is the override's, not the file's: a solver's, a material's, probes',
# render's, checkpoint's and output's values from --set named the scene file, which never held them
# ("dam_break_2d.json: solvers.sph_mueller.shifting: expected true or false, got \"yes\"").
cli_test(set_solver_value_named 1 "eddy: error: --set 'solvers.sph_mueller.shifting=yes': solvers.sph_mueller.shifting: expected true or false, got \"yes\""
         run ${SCENES}/dam_break_2d.json --set solvers.sph_mueller.shifting=yes --out ${CLI_OUT}/x)
cli_test(set_material_value_named 1 "eddy: error: --set 'materials[0].stiffness=-5': materials[0].stiffness: expected a number >= 0, got -5"
         run ${SCENES}/dam_break_2d.json --set materials[0].stiffness=-5 --out ${CLI_OUT}/x)
cli_test(set_probe_value_named 1 "eddy: error: --set 'probes=[{\"kind\": \"nope\"}]': probes[0].kind: expected \"front\", \"height\", \"pressure\", \"density\", \"force\" or \"moment\", got \"nope\""
         run ${SCENES}/dam_break_2d.json --set "probes=[{\"kind\": \"nope\"}]" --out ${CLI_OUT}/x)
# ... and so is a probe's own refusal of what a --set put in (it named the scene file, where the probe
# never was: a force-probe trial).
cli_test(set_probe_refusal_names_the_override 1 "eddy: error: --set 'probes=[{\"kind\": \"force\", \"axis\": \"x\"}]': probes[0]: expected the surface the force acts on"
         run ${SCENES}/dam_break_2d.json --set "probes=[{\"kind\": \"force\", \"axis\": \"x\"}]" --out ${CLI_OUT}/x)
cli_test(set_render_value_named 1 "eddy: error: --set 'render.camera=5': render.camera: expected an object or a string in the --camera syntax, got 5"
         run ${SCENES}/dam_break_2d.json --set render.camera=5 --out ${CLI_OUT}/x)
cli_test(set_checkpoint_value_named 1 "eddy: error: --set 'checkpoint.every=-1': checkpoint.every: expected a number >= 0, got -1"
         run ${SCENES}/dam_break_2d.json --set checkpoint.every=-1 --out ${CLI_OUT}/x)
cli_test(set_output_value_named 1 "eddy: error: --set 'output.overlap=yes': output.overlap: expected true or false, got \"yes\""
         run ${SCENES}/dam_break_2d.json --set output.overlap=yes --out ${CLI_OUT}/x)
cli_test(set_compared_value_named 1 "eddy: error: --set 'solvers.tait.gamma=yes': solvers.tait.gamma: expected a number in [1, 10], got \"yes\""
         compare ${SCENES}/dam_break_2d.json --solvers tait,pbf --steps 2 --set solvers.tait.gamma=yes --out ${CLI_OUT}/x)
# In 2D a direction's z was dropped: a z-up gravity ran with no gravity (status 0); a 3D scene made 2D
# ran as a slice of itself.
cli_test(set_gravity_z_in_2d 1 "eddy: error: --set 'world.gravity=[0,0,-9.81]': world.gravity: a 2D scene has no z (the x-y plane, y up), got z = -9.81; give [x, y]"
         run ${SCENES}/dam_break_2d.json --until 0.01 --set world.gravity=[0,0,-9.81] --out ${CLI_OUT}/x)
cli_test(set_periodic_z_in_2d 1 "eddy: error: --set 'domain.periodic=[true,false,true]': domain.periodic: a 2D scene has no z (the x-y plane, y up), got z = true; give [x, y]"
         run ${SCENES}/dam_break_2d.json --until 0.01 --set "domain.periodic=[true,false,true]" --out ${CLI_OUT}/x)
cli_test(set_3d_scene_to_2d 1 ": container.max: a 2D scene has no z (the x-y plane, y up), got z = 0.3; give [x, y] (the scene is 2D by --set 'dimensions=2', and a 3D scene is not read as a 2D one)"
         run ${SCENES}/dam_break_3d.json --set dimensions=2 --out ${CLI_OUT}/x)

# domain.out_of_domain "remove": the run says how many particles it deleted (a run that lost most of
# its fluid said it only in diagnostics.csv's particle column). Every one of the 10 x 10 block leaves.
cli_test(run_says_removed_particles 0
  "eddy: 100 particles left the domain and were removed (domain.out_of_domain \"remove\"); 0 remain"
  run ${CLI_SCENES}/escape_remove.json --out ${CLI_OUT}/escape_remove --no-picture)

# DIR/run.json: the command line, scene, parameters, materials and provenance of every command that
# wrote into a run folder, checked against the test's own inputs (tests/run_record).
add_test(NAME cli_run_record
         COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/run_record/check_run_record.py ${EDDY_EXE}
                 ${SCENES}/tait_dam_break_2d.json ${CLI_OUT}/run_record
                 ${CMAKE_BINARY_DIR}/generated/build_info/eddy_build_info.h
                 "${CMAKE_C_COMPILER_ID} ${CMAKE_C_COMPILER_VERSION}")

# A run that gains energy without exploding is told so at its end: the 2D dam break under sph_mueller
# without viscosity (docs/solvers/sph_mueller.md, "Energy": +215 J/m by t = 0.16 s against 19.3 J/m
# above the floor at the start) ran to "done" with status 0 and nothing said.
cli_test(run_warns_energy_rise 0
  "eddy: warning: the energy E_k + E_p rose by 2"
  run ${SCENES}/dam_break_2d.json --set "materials[0].viscosity=0" --until 0.16 --out ${CLI_OUT}/energy_rise
  --quiet --no-picture)
# ... and told when it first happens, not only at the end of what may be a long run (a teaching trial).
cli_test(run_warns_energy_rise_while_running 0
  "eddy: warning: the run is making energy (it goes on; its end says how far it rose in all): the energy E_k + E_p rose by"
  run ${SCENES}/dam_break_2d.json --set "materials[0].viscosity=0" --until 0.16 --out ${CLI_OUT}/energy_rise_running
  --quiet --no-picture)
add_test(NAME cli_compare_run_record
         COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/run_record/check_compare_record.py ${EDDY_EXE}
                 ${SCENES}/hydrostatic_tank.json ${CLI_OUT}/compare_run_record)
add_test(NAME cli_energy_rise_not_said_for_work_or_removal
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli_energy/no_false_rise.sh ${EDDY_EXE} ${SCENES}
                 ${CMAKE_CURRENT_SOURCE_DIR}/cli_energy ${CLI_OUT}/energy_rise_false)
set_tests_properties(cli_energy_rise_not_said_for_work_or_removal PROPERTIES TIMEOUT 120)
# A collider under the container's floor (its top face on the floor or within reach under it) is no
# wall: every solver's run with it ends in the state of the run without it.
add_test(NAME cli_collider_under_floor_changes_nothing
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/cli_hidden_colliders/same_as_without.sh ${EDDY_EXE}
                 ${CMAKE_CURRENT_SOURCE_DIR}/cli_hidden_colliders ${CLI_OUT}/hidden_colliders)
set_tests_properties(cli_collider_under_floor_changes_nothing PROPERTIES TIMEOUT 120)
