#!/usr/bin/env python3
"""The energy figures of `eddy compare`, against free fall worked out here, not read from the code.

check_energy.py DIR
    DIR: `eddy compare tests/compare/free_fall_2d.json --solvers pbf,sph_mueller,tait
    --set solvers.tait.sound_speed=1`: particles three rest spacings apart (no neighbour within the
    smoothing radius, so gravity is the only force) falling for 0.1 s in a domain without walls.

Semi-implicit (symplectic) Euler, v' = v + g dt then x' = x + v' dt, changes a particle's E_k + E_p
(E_p = -m g . x) in one step by
    1/2 m (|v'|^2 - |v|^2) - m g . (v' dt) = 1/2 m (v' - v) . (v' + v) - m dt g . v'
                                            = 1/2 m dt g . (v' + v) - m dt g . v'
                                            = -1/2 m dt g . (v' - v) = -1/2 m |g|^2 dt^2,
whatever the velocity: the total falls by 1/2 M |g|^2 dt_k^2 at step k. Over N steps summing to t,
with steps no longer than the scene's dt (a solver's limit only shortens them),
    t^2 / N <= sum dt_k^2 <= dt t          (Cauchy-Schwarz; dt_k <= dt)
so  -1/2 M |g|^2 dt t <= E(t) - E(0) <= -1/2 M |g|^2 t^2 / N, equal bounds when every step is dt.
Checked per solver in summary.csv (total_energy_change), with 1% for the single-precision positions;
as every step loses energy, E(t) < E(0) at every sample after the first, so the largest rise above the
start (total_energy_rise_max and its relative form) is exactly 0, however much the total fell;
total_energy_change_relative against E(0) above the floor recomputed from the first frame's particles
(the domain's bottom, y = -0.2: no container); the units in summary.md's header (a 2D scene: per unit
depth), momentum drift n/a under gravity, and the total energy plot drawn, the momentum drift's not.
"""
import csv
import os
import struct
import sys

G = struct.unpack("f", struct.pack("f", 9.81))[0]      # the world stores gravity in single precision
MASS = struct.unpack("f", struct.pack("f", 0.00625))[0]
DT, FLOOR = 0.001, -0.2

failures = []


def check(cond, what):
    print(("ok      " if cond else "FAILED  ") + what)
    if not cond:
        failures.append(what)


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def main(d):
    rows = read_csv(os.path.join(d, "summary.csv"))
    check([r["solver"] for r in rows] == ["pbf", "sph_mueller", "tait"], "one row per solver")
    for r in rows:
        s = r["solver"]
        check(r["status"] == "ok", "%s ok" % s)
        frame0 = read_csv(os.path.join(d, s, "frames", "frame_00000.csv"))
        n = len(frame0)
        m_total = n * MASS
        t, steps = float(r["end_time"]), int(r["steps"])
        de = float(r.get("total_energy_change", "nan"))
        lo, hi = -0.5 * m_total * G * G * DT * t, -0.5 * m_total * G * G * t * t / steps
        check(abs(t - 0.1) < 1e-9 and n > 100, "%s: %d particles fell to t = %.9g in %d steps" % (s, n, t, steps))
        check(lo * 1.01 <= de <= hi * 0.99,
              "%s: total energy change %.9g J/m within the free-fall bounds [%.9g, %.9g]" % (s, de, lo, hi))
        above = sum(MASS * (0.5 * (float(p["vx"]) ** 2 + float(p["vy"]) ** 2) + G * (float(p["y"]) - FLOOR))
                    for p in frame0)
        check(r.get("total_energy_rise_max") == "0" and r.get("total_energy_rise_max_relative") == "0",
              "%s: largest energy rise %s (%s of E(0) above the floor): exactly 0, the energy only fell"
              % (s, r.get("total_energy_rise_max"), r.get("total_energy_rise_max_relative")))
        rel = float(r.get("total_energy_change_relative", "nan"))
        check(abs(rel - de / above) <= 1e-6 * abs(de / above),
              "%s: relative change %.9g = change / E(0) above the floor (%.9g J/m) = %.9g" % (s, rel, above,
                                                                                          de / above))
    with open(os.path.join(d, "summary.md")) as f:
        md = f.read()
    check("| kinetic energy end (J/m) | total energy change (J/m) | largest energy rise (J/m) | momentum drift (kg/s) |"
          in md,
          "summary.md's header gives the units per unit depth")
    check(md.count(" n/a (gravity) |") == 3, "momentum drift n/a (gravity) for each solver")
    check(os.path.exists(os.path.join(d, "plots", "total_energy.png")), "plots/total_energy.png drawn")
    check(not os.path.exists(os.path.join(d, "plots", "momentum_drift.png")), "no momentum drift plot under gravity")


if __name__ == "__main__":
    main(sys.argv[1])
    if failures:
        print("%d check(s) failed" % len(failures))
        sys.exit(1)
