#!/bin/sh
# signal_while_loading.sh EXE SIG STATUS TEXT NO_DIR ARGS...: starts EXE ARGS..., sends SIG after
# $SIGNAL_DELAY seconds (default 1), and fails unless EXE then ends within 2 s with exit STATUS, its
# output contains TEXT, and the folder NO_DIR was not created (nothing was written).
exe=$1; sig=$2; want_status=$3; want_text=$4; no_dir=$5; shift 5
log=$(mktemp); rm -rf "$no_dir"
"$exe" "$@" >"$log" 2>&1 &
pid=$!
sleep "${SIGNAL_DELAY:-1}"
kill -0 "$pid" 2>/dev/null || { echo "signal_while_loading.sh: ended before the signal"; cat "$log"; rm -f "$log"; exit 1; }
kill -"$sig" "$pid"
n=0
while kill -0 "$pid" 2>/dev/null; do
    n=$((n + 1))
    if [ $n -gt 20 ]; then
        echo "signal_while_loading.sh: still running 2 s after SIG$sig"; kill -KILL "$pid"; wait "$pid"
        cat "$log"; rm -f "$log"; exit 1
    fi
    sleep 0.1
done
wait "$pid"; status=$?
cat "$log"; out=$(cat "$log"); rm -f "$log"
[ "$status" -eq "$want_status" ] || { echo "signal_while_loading.sh: exit status $status, expected $want_status"; exit 1; }
case "$out" in *"$want_text"*) ;; *) echo "signal_while_loading.sh: output does not contain: $want_text"; exit 1 ;; esac
[ ! -e "$no_dir" ] || { echo "signal_while_loading.sh: $no_dir was created"; exit 1; }
