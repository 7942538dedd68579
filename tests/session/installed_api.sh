#!/bin/sh
# installed_api.sh CMAKE PREFIX WORK SOURCE_DIR CC GENERATOR TOOLCHAIN [SANITIZE_FLAGS]
# A program of its own (tests/session/installed/coupler.c) built against the installed and moved eddy
# at PREFIX (the sdk_installed fixture's) with find_package(eddy) and eddy::session only (run on 1
# thread) and with pkg-config eddy_session (2 threads); the header compiles as C++17. On both threads, its state hash equals the installed `eddy run --hash` at the same step count, its
# checkpoint is continued by `eddy resume` to the same hash, a velocity it writes between steps changes
# the run exactly as that state's checkpoint resumed by `eddy resume` does, as does a gravity it turns
# (the checkpoint keeps it), and the refusals it meets
# (a negative step count, a checkpoint of a NaN over a good one) are the documented messages, the good
# checkpoint left in place. TOOLCHAIN: an initial cache (cmake -C) of the outer build's linker flags
# and prefix path (PREFIX first), which the program is configured with; the programs built with cc
# take its CMAKE_EXE_LINKER_FLAGS too.
set -u
cmake=$1; prefix=$2; work=$3; src=$4; cc=$5; generator=$6; toolchain=$7; san=${8:-}
# (a sanitized eddy, EDDY_SANITIZE: its installed libraries need the program built with the same flags)
eddy=$prefix/bin/eddy
fail() { echo "installed_api: FAIL: $*"; exit 1; }
rm -rf "$work" && mkdir -p "$work" || exit 1
for f in lib/libeddy_session.so include/eddy_host/session.h; do
    [ -e "$prefix/$f" ] || fail "not installed: $f"
done
"$cmake" -C "$toolchain" -S "$src/tests/session/installed" -B "$work/build" -G "$generator" -DCMAKE_C_COMPILER="$cc" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS="$san" > "$work/configure.log" 2>&1 \
    || { cat "$work/configure.log"; fail "configure the program"; }
ldflags=$(sed -n 's/^CMAKE_EXE_LINKER_FLAGS:STRING=//p' "$work/build/CMakeCache.txt")
"$cmake" --build "$work/build" > "$work/build.log" 2>&1 || { cat "$work/build.log"; fail "build the program"; }
grep -rqF "$src/host" "$work/build/CMakeFiles" && fail "the program was compiled against the source tree"
# The same program with plain cc and pkg-config (eddy_session.pc), and the header as C++17.
pc=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs eddy_session) || fail "pkg-config eddy_session"
"$cc" -std=c11 -Wall -Wextra -Werror $san "$src/tests/session/installed/coupler.c" $pc -lm \
    $ldflags -Wl,-rpath,"$prefix/lib" -o "$work/coupler_pc" || fail "build the program with pkg-config ($pc)"
if command -v c++ > /dev/null; then
    printf '#include <eddy_host/session.h>\nint main() { eddy_session_options o = eddy_session_default_options(); return o.threads; }\n' > "$work/cxx.cpp"
    c++ -std=c++17 -Wall -Wextra -Werror $san "$work/cxx.cpp" $pc $ldflags -Wl,-rpath,"$prefix/lib" -o "$work/cxx" && "$work/cxx" || fail "the header as C++17"
fi
scene=$prefix/share/eddy/scenes/dam_break_2d.json
steps=60
expected=$("$eddy" run "$scene" --steps $steps --hash --quiet --out "$work/cli" | sed -n 's/^state-hash: //p')
[ -n "$expected" ] || fail "eddy run gave no hash"
for threads in 1 2; do
    out=$work/run$threads
    program=$work/build/coupler
    [ $threads = 2 ] && program=$work/coupler_pc
    "$program" "$scene" $steps "$out" $threads > "$out.txt" 2>&1 || { cat "$out.txt"; fail "coupler on $threads threads"; }
    cp "$out/half/checkpoint.eddy" "$out/as_written.eddy" || fail "keep the program's checkpoint"
    cat "$out.txt"
    grep -qxF "hash: $expected" "$out.txt" || fail "$threads threads: the session's hash is not eddy run's ($expected)"
    grep -qxF "negative: eddy_session_step: -1 steps, expected a count >= 0" "$out.txt" \
        || fail "$threads threads: the negative step count's message"
    grep -qF "nan: cannot write a checkpoint of this state at step $steps (t = " "$out.txt" \
        || fail "$threads threads: the NaN checkpoint's message"
    grep -qF "which no resume would take: particle " "$out.txt" && grep -qF "velocity.y is nan, expected a finite number; the folder's previous checkpoint, if any, is kept" "$out.txt" \
        || fail "$threads threads: the NaN checkpoint's message names the value"
    resumed=$("$eddy" resume "$out/half" --steps $steps --hash --quiet | sed -n 's/^state-hash: //p')
    [ "$resumed" = "$expected" ] || fail "$threads threads: eddy resume of the session's checkpoint gave '$resumed', not $expected"
    kicked=$(sed -n 's/^kicked: //p' "$out.txt")
    [ -n "$kicked" ] && [ "$kicked" != "$expected" ] || fail "$threads threads: the kick changed nothing"
    via_cli=$("$eddy" resume "$out/kicked" --steps $steps --hash --quiet | sed -n 's/^state-hash: //p')
    [ "$via_cli" = "$kicked" ] || fail "$threads threads: the kicked state resumed by eddy gave '$via_cli', the session $kicked"
    tilted=$(sed -n 's/^tilted: //p' "$out.txt")
    [ -n "$tilted" ] && [ "$tilted" != "$expected" ] || fail "$threads threads: turning gravity changed nothing"
    via_cli=$("$eddy" resume "$out/tilted" --steps $steps --hash --quiet | sed -n 's/^state-hash: //p')
    [ "$via_cli" = "$tilted" ] || fail "$threads threads: the checkpoint of the turned gravity resumed by eddy gave '$via_cli', the session $tilted"
done
# A checkpoint a program wrote (no outputs) in a folder that holds another run's table: eddy resume
# refuses rather than start the table again over it, and the table is kept.
mkdir -p "$work/other" && cp "$work/run1/as_written.eddy" "$work/other/checkpoint.eddy" || fail "copy a checkpoint"
printf 't,rows of another run\n' > "$work/other/diagnostics.csv"
"$eddy" resume "$work/other" --steps $steps > "$work/other.txt" 2>&1 && fail "eddy resume overwrote another run's table"
grep -qF "eddy: error: the checkpoint in '$work/other' was written by a program (eddy_session_checkpoint) that wrote no outputs there, but the folder holds another run's diagnostics.csv" "$work/other.txt" \
    || { cat "$work/other.txt"; fail "the refusal of a folder with another run's table"; }
[ "$(cat "$work/other/diagnostics.csv")" = "t,rows of another run" ] || fail "the other run's table was changed"
echo "installed_api: ok"
