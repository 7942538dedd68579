#!/bin/sh
# cli_hints_env_escapes.sh EDDY SCENE OUT: environment variables reach eddy's messages as written (an unknown
# EDDY_LOG, an EDDY_PLUGIN_PATH entry, the path an unknown solver's error names), and a terminal obeys an
# escape sequence in them; the messages show each control character as a space, as they show a file's
# text, and `eddy list` its refusals so. ESC ] 0 ; ... BEL would retitle the window, ESC [ 2 J clear the screen.
eddy=$1; scene=$2; out=$3
fail() { echo "cli_hints_env_escapes.sh: $*" >&2; exit 1; }
esc=$(printf '\033'); bel=$(printf '\007'); csi=$(printf '\302\233') # (U+009B, C1: ESC [ in one)
check() { # STATUS TEXT... (the output in $said)
    [ "$status" -eq "$1" ] || fail "exit status $status, expected $1"
    shift
    for text in "$@"; do
        case $said in *"$text"*) ;; *) fail "missing: $text" ;; esac
    done
    if [ "$(printf '%s' "$said" | LC_ALL=C tr -d '\001-\010\013-\037\177')" != "$said" ]; then
        printf '%s' "$said" | LC_ALL=C tr -dc '\001-\010\013-\037\177' | od -c >&2
        fail "the output holds a control character (shown by od -c above)"
    fi
}
said=$(EDDY_LOG="de${esc}]0;title${bel}b${csi}ug" EDDY_PLUGIN_PATH="/no${esc}[2Jwhere" "$eddy" list 2>&1)
status=$?
printf '%s\n' "$said"
check 1 "got 'de ]0;title b ug'; ignored" \
        "eddy: warning: /no [2Jwhere: EDDY_PLUGIN_PATH names a folder that cannot be read" \
        "refused plugins:
  /no [2Jwhere: EDDY_PLUGIN_PATH names a folder that cannot be read"
# A folder that exists and holds no plugin: the unknown solver's error names the variable's value.
rm -rf "$out" && mkdir -p "$out/plugins${esc}[2J" || fail "cannot make $out"
said=$(EDDY_PLUGIN_PATH="$out/plugins${esc}[2J" "$eddy" run "$scene" --solver wcmon --steps 1 --no-picture \
       --out "$out/run" 2>&1)
status=$?
printf '%s\n' "$said"
check 1 "unknown solver 'wcmon'" "EDDY_PLUGIN_PATH (it is '$out/plugins [2J')"
[ ! -e "$out/run" ] || fail "the failed run wrote $out/run"
exit 0
