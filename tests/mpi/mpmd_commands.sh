#!/bin/sh
# mpmd_commands.sh EDDY MPIRUN SCENE OUT: processes given other work are refused by every command before
# its first collective, once, by name (host/cli/main.c, same_launch): other commands (run and bench, run
# and --version; 2 processes and 1 on 3), compare with other --solvers, bench with other --steps, and an
# environment variable read by each process (EDDY_DECOMP_FILL, EDDY_OUTPUT_OVERLAP) set on one process
# only. Each once hung in MPI, or died in it without eddy's message. Processes whose --threads and
# --quiet differ, or that spell one EDDY_OUTPUT_OVERLAP setting differently, still run; so does a
# command every process was given (--version). Exit 77 without mpirun or MPI.
eddy=$1; mpirun=$2; scene=$3; out=$4
fail() { echo "mpmd_commands.sh: $*" >&2; exit 1; }
command -v "$mpirun" >/dev/null 2>&1 || { echo "skipped: no mpirun ('$mpirun')"; exit 77; }
"$eddy" --version | grep -q '^processes: MPI' || { echo "skipped: eddy was built without MPI"; exit 77; }
# Each launch is killed after this long: a hang fails the case instead of the whole test's TIMEOUT.
limit=60
unset EDDY_DECOMP_FILL EDDY_OUTPUT_OVERLAP
rm -rf "$out"
mkdir -p "$out"
# A word of a command line as the refusal says it: quoted unless plain.
word() { case $1 in *[!A-Za-z0-9_./,=:+@%-]*|'') printf "'%s'" "$1" ;; *) printf '%s' "$1" ;; esac; }
s=$(word "$scene")
o=$(word "$out")
tail_cmd="; every process must be given the same command and options (--threads and --quiet may differ)"
tail_env="; every process must be given the same"
# refused NAME TEXT MPIRUN-ARG...: the launch ends within $limit s, non-zero, and says TEXT (a whole line)
# exactly once.
refused() {
    name=$1; text=$2; shift 2
    timeout -s KILL "$limit" "$mpirun" --oversubscribe "$@" >"$out/$name.txt" 2>&1
    rc=$?
    cat "$out/$name.txt"
    [ "$rc" -ne 137 ] || fail "$name: the launch hung (killed after $limit s)"
    [ "$rc" -ne 0 ] || fail "$name: exit status 0; expected a refusal"
    n=$(grep -cxF -- "$text" "$out/$name.txt")
    [ "$n" -eq 1 ] || fail "$name: says '$text' $n times, expected once"
    echo "mpmd_commands.sh: $name refused (status $rc)"
}
# runs NAME MPIRUN-ARG...: the launch ends within $limit s with status 0.
runs() {
    name=$1; shift
    timeout -s KILL "$limit" "$mpirun" --oversubscribe "$@" >"$out/$name.txt" 2>&1
    rc=$?
    cat "$out/$name.txt"
    [ "$rc" -eq 0 ] || fail "$name: exit status $rc; expected the launch to run"
    echo "mpmd_commands.sh: $name runs"
}

# Other commands.
refused commands \
    "eddy: error: process 1 of 2 was given another command line than process 0: bench $s --steps 3 --repeats 1 (process 0: run $s --steps 20 --no-picture --out $o/commands)$tail_cmd" \
    -np 1 "$eddy" run "$scene" --steps 20 --quiet --no-picture --out "$out/commands" : \
    -np 1 "$eddy" bench "$scene" --steps 3 --repeats 1
[ ! -e "$out/commands" ] || fail "commands: the refused run wrote $out/commands"
refused version \
    "eddy: error: process 1 of 2 was given another command line than process 0: --version (process 0: run $s --steps 20 --no-picture --out $o/version)$tail_cmd" \
    -np 1 "$eddy" run "$scene" --steps 20 --no-picture --out "$out/version" : -np 1 "$eddy" --version
refused commands_np3 \
    "eddy: error: process 2 of 3 was given another command line than process 0: compare $s --solvers sph_mueller --steps 20 --out $o/commands_np3 (process 0: run $s --steps 20 --no-picture --out $o/commands_np3)$tail_cmd" \
    -np 2 "$eddy" run "$scene" --steps 20 --no-picture --out "$out/commands_np3" : \
    -np 1 "$eddy" compare "$scene" --solvers sph_mueller --steps 20 --quiet --out "$out/commands_np3"
# compare with other --solvers.
refused compare_solvers \
    "eddy: error: process 1 of 2 was given another command line than process 0: compare $s --solvers sph_mueller --steps 20 --out $o/compare (process 0: compare $s --solvers sph_mueller,tait --steps 20 --out $o/compare)$tail_cmd" \
    -np 1 "$eddy" compare "$scene" --solvers sph_mueller,tait --steps 20 --quiet --out "$out/compare" : \
    -np 1 "$eddy" compare "$scene" --solvers sph_mueller --steps 20 --quiet --out "$out/compare"
[ ! -e "$out/compare" ] || fail "compare_solvers: the refused comparison wrote $out/compare"
# bench with other --steps.
refused bench_steps \
    "eddy: error: process 1 of 2 was given another command line than process 0: bench $s --steps 6 --repeats 2 (process 0: bench $s --steps 5 --repeats 2)$tail_cmd" \
    -np 1 "$eddy" bench "$scene" --steps 5 --repeats 2 : -np 1 "$eddy" bench "$scene" --steps 6 --repeats 2
# Environment variables each process reads for itself.
set -- run "$scene" --steps 40 --quiet --no-picture --set time.output_interval=0.0005
refused fill \
    "eddy: error: environment variable EDDY_DECOMP_FILL differs between processes (process 0: unset, process 1: 'whole')$tail_env" \
    -np 1 "$eddy" "$@" --out "$out/fill" : -np 1 env EDDY_DECOMP_FILL=whole "$eddy" "$@" --out "$out/fill"
[ ! -e "$out/fill" ] || fail "fill: the refused run wrote $out/fill"
refused overlap \
    "eddy: error: environment variable EDDY_OUTPUT_OVERLAP differs between processes (process 0: unset, process 1: 'off')$tail_env" \
    -np 1 "$eddy" "$@" --out "$out/overlap" : -np 1 env EDDY_OUTPUT_OVERLAP=off "$eddy" "$@" --out "$out/overlap"

# What may differ: --threads and --quiet, and a spelling of the same setting (unset and 'on').
runs threads_quiet -np 1 "$eddy" run "$scene" --steps 5 --quiet --threads 1 --no-picture --out "$out/threads" : \
    -np 1 env EDDY_OUTPUT_OVERLAP=on "$eddy" run "$scene" --steps 5 --threads 2 --no-picture --out "$out/threads"
[ -e "$out/threads/checkpoint.manifest" ] || fail "threads_quiet: no checkpoint written"
runs bench_threads -np 1 "$eddy" bench "$scene" --particles 1000 --steps 2 --repeats 1 --threads 2 : \
    -np 1 "$eddy" bench "$scene" --particles 1000 --steps 2 --repeats 1
# A command every process was given alike runs as before.
runs version_alike -np 2 "$eddy" --version
# (printed once, by rank 0, as one process prints it: tests/mpi/speak_once.sh)
[ "$(grep -c '^processes: MPI' "$out/version_alike.txt")" -eq 1 ] || fail "version_alike: not printed once"
echo "mpmd_commands.sh: other command lines and environments refused once; --threads and --quiet may differ"
