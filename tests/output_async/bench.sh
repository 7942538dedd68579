#!/bin/sh
# bench.sh EDDY SCENE ROUNDS OUT [ARG...]: wall time of `eddy run SCENE ARG...` with frames written with
# overlap (EDDY_OUTPUT_OVERLAP=on), without (off), and with no frame file at all (output.format = []),
# in interleaved rounds (on, off, none, on, off, none, ...) on a shared machine; prints each time and the
# medians, and how much of the output's cost the overlap hides: (off - on) / (off - none).
# Not a test: figures for docs/performance.md.
eddy=$1; scene=$2; rounds=$3; out=$4; shift 4
rm -rf "$out"; mkdir -p "$out"
for r in $(seq 1 "$rounds"); do
    for mode in on off none; do
        if [ "$mode" = none ]; then set_fmt="--set output.format=[]"; ov=on; else set_fmt=""; ov=$mode; fi
        t0=$(date +%s.%N)
        # shellcheck disable=SC2086
        EDDY_OUTPUT_OVERLAP=$ov "$eddy" run "$scene" "$@" $set_fmt --quiet --no-picture --out "$out/run" ||
            { echo "bench.sh: the run ($mode) failed" >&2; exit 1; }
        t1=$(date +%s.%N)
        echo "$mode $(echo "$t1 - $t0" | bc)" | tee -a "$out/times.txt"
        rm -rf "$out/run"
    done
done
median() { grep "^$1 " "$out/times.txt" | cut -d' ' -f2 | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
on=$(median on); off=$(median off); none=$(median none)
echo "medians over $rounds rounds: overlap on ${on} s, off ${off} s, no frames ${none} s"
echo "$on $off $none" | awk '{ if ($2 > $3) printf "output cost without overlap %.2f s, with %.2f s: %.0f%% hidden; on/none = %.3f, off/none = %.3f\n", $2-$3, $1-$3, 100*($2-$1)/($2-$3), $1/$3, $2/$3 }'
