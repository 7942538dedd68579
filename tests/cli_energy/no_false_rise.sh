#!/bin/sh
# no_false_rise.sh EDDY SCENES HERE OUT: the end-of-run energy warning ("the scheme made energy") is said
# for a run that made energy and for none whose energy rightly rose: a conveyor-belt floor (a static
# collider with a velocity does work on the water) and particles deleted below the origin by
# domain.out_of_domain "remove" (each takes a negative E_k + E_p along) were both warned of.
E=$1 S=$2 H=$3 O=$4
fail() { echo "no_false_rise.sh: $*" >&2; exit 1; }
warning="the scheme made energy"
rm -rf "$O" && mkdir -p "$O" || exit 1
out=$("$E" run "$S/dam_break_2d.json" --set "materials[0].viscosity=0" --until 0.16 --quiet --no-picture --out "$O/control" 2>&1) ||
    fail "the control run failed: $out"
case $out in *"$warning"*) echo "control (sph_mueller without viscosity): warned" ;; *) fail "the control run was not warned of: $out" ;; esac
out=$("$E" run "$S/hydrostatic_tank.json" --set 'colliders=[{"type": "plane", "point": [0, 0], "normal": [0, 1], "velocity": [2, 0]}]' \
      --set 'fluids[0].box.max=[0.5, 0.1]' --set time.end=0.6 --quiet --no-picture --out "$O/belt" 2>&1) || fail "the belt run failed: $out"
case $out in *"$warning"*) fail "a conveyor-belt floor was warned of: $out" ;; esac
echo "conveyor belt: not warned"
out=$("$E" run "$H/fall_remove.json" --no-picture --out "$O/fall" 2>&1) || fail "the falling run failed: $out"
case $out in *"$warning"*) fail "a fall out of the domain was warned of: $out" ;; esac
case $out in *"300 particles left the domain and were removed"*) ;; *) fail "the fall did not say its 300 removed particles: $out" ;; esac
echo "fall out of the domain: not warned"
