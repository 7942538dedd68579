#!/bin/sh
# signal_while_loading.sh EXE SIG STATUS TEXT NO_DIR WHEN ARGS...: starts EXE ARGS..., sends SIG once
# WHEN holds, waits for EXE to end (no deadline of its own: the test's CTest TIMEOUT is the guard
# against a process the signal does not end) and fails unless it exited with STATUS, its output
# contains TEXT, and the folder NO_DIR was not created (nothing was written). No verdict depends on how
# fast the machine is; give EXE work that cannot end before the signal (a load that sleeps an hour, a
# run to --until 1e6). WHEN:
#   handlers     EXE (exec'd) catches SIGINT, SIGTERM and SIG (/proc/PID/status SigCgt): main() has
#                installed its handlers, so the signal lands in the load and not before main().
#   file:PATH    PATH exists: what a run writes once its session is open (signals are deferred then).
#   opened       EXE writes nothing to show its session is open (bench): SIG after 1 s, and if EXE
#                ended saying "while loading" (exit 128 + signal) the signal was early: start again,
#                waiting twice as long. Any other outcome is the verdict.
exe=$1; sig=$2; want_status=$3; want_text=$4; no_dir=$5; when=$6; shift 6
case "$sig" in
    INT) signum=2 ;; TERM) signum=15 ;; HUP) signum=1 ;; XCPU) signum=24 ;;
    *) echo "signal_while_loading.sh: SIG must be INT, TERM, HUP or XCPU"; exit 2 ;;
esac
case "$when" in handlers | file:?* | opened) ;; *) echo "signal_while_loading.sh: unknown WHEN '$when'"; exit 2 ;; esac
exe_path=$(command -v "$exe") && exe_path=$(readlink -f "$exe_path") || { echo "signal_while_loading.sh: no $exe"; exit 2; }
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# alive PID: whether PID still runs (an ended child stays a zombie until `wait`, and kill -0 finds it).
alive() {
    [ -r "/proc/$1/status" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null
}
# ready PID: whether WHEN holds for the process PID.
ready() {
    case "$when" in
    handlers)
        [ "$(readlink "/proc/$1/exe" 2>/dev/null)" = "$exe_path" ] || return 1 # not yet exec'd
        caught=$(sed -n 's/^SigCgt:[[:space:]]*//p' "/proc/$1/status" 2>/dev/null)
        [ -n "$caught" ] || return 1
        # signals 1-32: SIGINT is bit 1, SIGTERM bit 14, and the one sent bit signum - 1
        low=$(printf '%s' "$caught" | tail -c 8)
        mask=$((0x4002 | (1 << (signum - 1))))
        [ $((0x$low & mask)) -eq $mask ] ;;
    file:*) [ -e "${when#file:}" ] ;;
    esac
}

pause=1
while :; do
    rm -rf "$no_dir"
    "$exe" "$@" >"$log" 2>&1 &
    pid=$!
    if [ "$when" = opened ]; then
        sleep "$pause"
    else
        until ready "$pid"; do
            alive "$pid" || break
            sleep 0.05
        done
    fi
    alive "$pid" || { wait "$pid"; echo "signal_while_loading.sh: ended (exit $?) before the signal"; cat "$log"; exit 1; }
    kill -"$sig" "$pid"
    wait "$pid"; status=$?
    out=$(cat "$log")
    if [ "$when" = opened ] && [ "$status" -eq $((128 + signum)) ]; then
        case "$out" in
        *"while loading; nothing was written"*)
            echo "signal_while_loading.sh: SIG$sig came while loading (after ${pause} s); again, waiting longer"
            pause=$((pause * 2)); continue ;;
        esac
    fi
    break
done
printf '%s\n' "$out"
[ "$status" -eq "$want_status" ] || { echo "signal_while_loading.sh: exit status $status, expected $want_status"; exit 1; }
case "$out" in *"$want_text"*) ;; *) echo "signal_while_loading.sh: output does not contain: $want_text"; exit 1 ;; esac
[ ! -e "$no_dir" ] || { echo "signal_while_loading.sh: $no_dir was created"; exit 1; }
