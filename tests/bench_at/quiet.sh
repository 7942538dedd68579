#!/bin/sh
# quiet.sh EDDY SCENE OUT: `eddy bench --quiet` hides the solvers' information lines on stderr (tait's
# derived sound speed) and prints the same figures on stdout; without it the line is there.
eddy=$1; scene=$2; out=$3
fail() { echo "quiet.sh: $*" >&2; exit 1; }
mkdir -p "$out" || fail "cannot create $out"
"$eddy" bench "$scene" --solver tait --steps 1 --repeats 1 >"$out/loud.out" 2>"$out/loud.err" || fail "bench failed: $(cat "$out/loud.err")"
"$eddy" bench "$scene" --solver tait --steps 1 --repeats 1 --quiet >"$out/quiet.out" 2>"$out/quiet.err" || fail "bench --quiet failed: $(cat "$out/quiet.err")"
grep -q '^eddy: tait: sound speed c0 = 10 sqrt(2 |g| H) = ' "$out/loud.err" || fail "without --quiet, no sound-speed line: $(cat "$out/loud.err")"
[ ! -s "$out/quiet.err" ] || fail "--quiet still printed on stderr: $(cat "$out/quiet.err")"
head -n 1 "$out/loud.out" | grep -q '^eddy bench: small_dam_break, solver tait, ' || fail "no figures without --quiet"
[ "$(head -n 1 "$out/quiet.out")" = "$(head -n 1 "$out/loud.out")" ] || fail "--quiet changed the figures' first line"
grep -q '^bench: scene=small_dam_break solver=tait ' "$out/quiet.out" || fail "--quiet lost the machine-readable line"
echo "quiet.sh: the sound-speed line without --quiet, nothing on stderr with it, the figures on stdout both times"
