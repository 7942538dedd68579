#!/bin/sh
# same_as_without.sh EDDY HERE OUT: a collider the fluid can never meet changes nothing. Water rests on
# the floor of a tank (pool_2d.json, pool_3d.json); a box under the floor, its top face on the floor or
# within a smoothing radius under it, or a ball touching the floor from below, lies behind the floor
# (docs/scenes.md, colliders[]), so every solver's run with it must end in the state of the run without
# it, bit for bit (the state hash). Such boxes were mirrored as walls of their own: their reflection
# composed with the floor's laid the fluid over itself, and pbf exploded, sph_mueller and tait made
# energy.
E=$1 H=$2 O=$3
fail() { echo "same_as_without.sh: $*" >&2; exit 1; }
rm -rf "$O" && mkdir -p "$O" || exit 1
state() { # state NAME SCENE SOLVER [--set ...]: the state hash of the run, or the failure
    name=$1 scene=$2 solver=$3
    shift 3
    out=$("$E" run "$H/$scene" --solver "$solver" --hash --quiet --no-picture --out "$O/$name" "$@" 2>&1) ||
        { echo "same_as_without.sh: $name: the run failed: $out"; return 1; }
    case $out in *"the scheme made energy"*) echo "same_as_without.sh: $name: warned that it made energy: $out"; return 1 ;; esac
    hash=$(printf '%s\n' "$out" | sed -n 's/^state-hash: //p')
    [ -n "$hash" ] || { echo "same_as_without.sh: $name: no state hash in: $out"; return 1; }
    echo "$hash"
}
bad=0
# tait_virtual: tait with Theng & Zhao's virtual wall particles, which it places per collider itself.
for variant in pbf sph_mueller tait tait_virtual; do
    solver=${variant%_virtual}
    extra=
    [ "$variant" = tait_virtual ] && extra='solvers.tait.boundary="virtual"'
    for dims in 2 3; do
        scene=pool_${dims}d.json
        if [ "$dims" = 2 ]; then
            set -- 'under_wide:{"type":"box","min":[-0.05,-0.2],"max":[0.25,0.0]}' \
                'under_narrow:{"type":"box","min":[0.05,-0.2],"max":[0.15,0.0]}' \
                'under_reach:{"type":"box","min":[-0.05,-0.2],"max":[0.25,-0.005]}' \
                'ball:{"type":"sphere","center":[0.1,-0.05],"radius":0.05}'
        else
            set -- 'under_wide:{"type":"box","min":[-0.05,-0.2,-0.05],"max":[0.15,0.0,0.15]}' \
                'under_narrow:{"type":"box","min":[0.03,-0.2,0.03],"max":[0.07,0.0,0.07]}' \
                'under_reach:{"type":"box","min":[-0.05,-0.2,-0.05],"max":[0.15,-0.01,0.15]}' \
                'ball:{"type":"sphere","center":[0.05,-0.05,0.05],"radius":0.05}'
        fi
        without=$(state "${variant}_${dims}d" "$scene" "$solver" ${extra:+--set "$extra"}) || { echo "$without" >&2; exit 1; }
        for case in "$@"; do
            name=${variant}_${dims}d_${case%%:*} collider=${case#*:}
            if ! with=$(state "$name" "$scene" "$solver" --set "colliders=[$collider]" ${extra:+--set "$extra"}); then
                echo "$with" >&2
                bad=$((bad + 1))
            elif [ "$with" != "$without" ]; then
                echo "same_as_without.sh: $name: the state hash with $collider is $with, without it $without: the collider under the floor changed the run" >&2
                bad=$((bad + 1))
            else
                echo "$name: $with, as without the collider"
            fi
        done
    done
done
[ "$bad" = 0 ] || fail "$bad of 32 runs with a collider under the floor differ from the run without it"
