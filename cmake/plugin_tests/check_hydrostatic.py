#!/usr/bin/env python3
"""check_hydrostatic.py OUT_DIR DEPTH RHO0 G T_FROM [TOL]

Checks a 2D tank of fluid at rest (scenes/hydrostatic_tank.json) against hydrostatics: the pressure at
depth d is rho0 g d. A weakly compressible fluid started from rest keeps ringing acoustically for a
while, so the pressure is averaged over every CSV frame from T_FROM on, in three horizontal bands away
from the side walls (bottom, middle, upper), each compared with rho0 g (DEPTH - y) at the band's mean
height. Fails when any band is off by more than TOL (default 0.05) of the bottom pressure.

The frames must be CSV (--format csv) and frequent enough to average the ringing out: an output
interval near the acoustic period 4 H / c (0.05 s for c = 24 m/s in a 0.3 m tank) samples it at one
phase, so use about 0.01 s. hydrostatic_check.cmake runs it (the <id>_hydrostatic test of
eddy_add_plugin_tests, EddyPluginTests.cmake); eddy's own suite runs it on the installed template.
"""
import csv
import glob
import os
import sys


def main(out, depth, rho0, g, t_from, tol=0.05):
    frames = sorted(glob.glob(os.path.join(out, "frames", "frame_*.csv")))
    times = [float(r["time"]) for r in csv.DictReader(open(os.path.join(out, "diagnostics.csv")))]
    if len(frames) != len(times):
        print("check_hydrostatic: %d frames but %d diagnostics rows" % (len(frames), len(times)))
        return 1
    bands = [(0.0, 0.1 * depth), (0.4 * depth, 0.5 * depth), (0.7 * depth, 0.8 * depth)]
    sums = [[0.0, 0.0, 0] for _ in bands]
    used = 0
    for path, t in zip(frames, times):
        if t < t_from - 1e-9:
            continue
        used += 1
        rows = list(csv.DictReader(open(path)))
        xs = [float(r["x"]) for r in rows]
        x0, x1 = min(xs), max(xs)
        for b, (lo, hi) in enumerate(bands):
            for r, x in zip(rows, xs):
                y = float(r["y"])
                if lo <= y < hi and x0 + 0.2 * (x1 - x0) < x < x1 - 0.2 * (x1 - x0):
                    sums[b][0] += float(r["pressure"])
                    sums[b][1] += y
                    sums[b][2] += 1
    if used < 5:
        print("check_hydrostatic: only %d frames after t = %g" % (used, t_from))
        return 1
    scale = rho0 * g * depth
    bad = 0
    for (lo, hi), (ps, ys, n) in zip(bands, sums):
        if n == 0:
            # The fluid left the band (a solver that blew up or collapsed): no pressure to compare.
            print("band y in [%.3f, %.3f): no particles away from the walls FAIL" % (lo, hi))
            bad += 1
            continue
        p, y = ps / n, ys / n
        want = rho0 * g * (depth - y)
        ok = abs(p - want) <= tol * scale
        bad += not ok
        print("band y in [%.3f, %.3f): mean pressure %.1f Pa, rho0 g (H - y) = %.1f Pa, off by %.1f%% of rho0 g H %s"
              % (lo, hi, p, want, 100 * (p - want) / scale, "ok" if ok else "FAIL"))
    print("check_hydrostatic: %d frames from t = %g s" % (used, t_from))
    return 1 if bad else 0


if __name__ == "__main__":
    a = sys.argv[1:]
    if len(a) not in (5, 6):
        print(__doc__)
        sys.exit(2)
    sys.exit(main(a[0], *map(float, a[1:])))
