# An output folder written by one eddy run at a time (host/drive/folder_lock.h): a second run, resume,
# comparison or validation into a folder another holds is refused and leaves it byte for byte as it was.
# Each failed before the lock: the second command cleared the first one's files and wrote its own.
add_test(NAME robust_folder_in_use
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/folder_in_use.sh ${EDDY_EXE} ${SCENES}/dam_break_2d.json
                 ${ROBUST_OUT}/folder_in_use)
set_tests_properties(robust_folder_in_use PROPERTIES TIMEOUT 120 SKIP_RETURN_CODE 77)
add_test(NAME robust_folder_two_runs
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/folder_two_runs.sh ${EDDY_EXE} ${SCENES}/dam_break_2d.json
                 ${ROBUST_OUT}/folder_two_runs)
set_tests_properties(robust_folder_two_runs PROPERTIES TIMEOUT 300 SKIP_RETURN_CODE 77)
# A file system without flock (EDDY_TEST_FOLDER_LOCK=unsupported makes flock fail as there): the run
# goes on without the lock and says so once.
add_test(NAME robust_folder_lock_unsupported
         COMMAND ${EXPECT} 0 "eddy: notice: cannot lock the output folder '${ROBUST_OUT}/folder_unsupported' (flock: Operation not supported): another eddy run writing into it at the same time would not be stopped"
                 ${EDDY_EXE} run ${SCENES}/dam_break_2d.json --steps 2 --quiet --no-picture --out ${ROBUST_OUT}/folder_unsupported)
set_tests_properties(robust_folder_lock_unsupported PROPERTIES ENVIRONMENT "EDDY_TEST_FOLDER_LOCK=unsupported")
# The folder a run makes to lock it is removed again when the run is refused before writing into it
# (here for a --render-field the scene lacks, found once the world exists), as before the lock; the
# parents it made stay (removing them raced another process making its folder beside it).
add_test(NAME robust_folder_lock_leaves_no_folder
  COMMAND sh -c "rm -rf \"$0\" && sh \"$@\" && test ! -e \"$0/a/b\" && test -d \"$0/a\"" ${ROBUST_OUT}/folder_made
          ${PROJECT_SOURCE_DIR}/tests/expect.sh 1 "eddy: error: --render-field: unknown particle field \"bogus\""
          ${EDDY_EXE} run ${SCENES}/dam_break_2d.json --steps 2 --render --render-field bogus --out ${ROBUST_OUT}/folder_made/a/b)
