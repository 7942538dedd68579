# signal_at_file.sh (sourced): signal_at_file SIGNAL FILE CMD... starts CMD in the background, waits
# (up to 60 s) until FILE exists (a frame the run wrote: the run is stepping, past its loading), sends
# SIGNAL to it and waits for it; $status is its exit status. The caller defines fail().
signal_at_file() {
    sig=$1; file=$2; shift 2
    "$@" &
    pid=$!
    i=0
    while [ ! -f "$file" ]; do
        i=$((i + 1)); [ $i -lt 600 ] || { kill -9 $pid; fail "no $file after 60 s"; }
        sleep 0.1
    done
    kill -"$sig" $pid; wait $pid 2>/dev/null; status=$?
}
