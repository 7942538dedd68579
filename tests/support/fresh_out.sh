#!/bin/sh
# fresh_out.sh DIR CMD...: runs CMD with the folder DIR removed first. For a test whose run fails for
# another reason than its physics (a plugin's error, a bad time step) into DIR: eddy keeps such a folder
# and refuses a new run there (README, "Restarting"), so without this the test gave another answer when
# ctest ran again in the same build folder.
dir=$1
shift
rm -rf "$dir" || exit 1
exec "$@"
