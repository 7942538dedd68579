#!/usr/bin/env python3
"""pressure_average.py EDDY SCENE DIR: pbf's reported pressure is the exponential average of its steps'
constraint pressures (plugins/pbf/pbf.c, docs/solvers/pbf.md "Pressure"): with pressure_average = T,
p(n) = q(n) + T/(T + dt) (p(n-1) - q(n)), q(n) the step's own, and p(1) = q(1) (the run's first step).
The same 3 steps run with T = 0 (the steps' own: pressure is output only, so the motion is the same) and
with T = 0.01 s; the averages are recomputed here from the first run's frames, particle by particle."""
import csv
import os
import subprocess
import sys

eddy, scene, out = sys.argv[1:4]
DT, T = 0.0005, 0.01


def frames(tau):
    d = os.path.join(out, "tau_%g" % tau)
    subprocess.run([eddy, "run", scene, "--steps", "3", "--set", "time.dt=%g" % DT, "--set",
                    "time.output_interval=%g" % DT, "--set", "solvers.pbf.pressure_average=%g" % tau, "--set",
                    'output.format=["csv"]', "--no-picture", "--quiet", "--out", d], check=True)
    result = []
    for k in range(1, 4):
        with open(os.path.join(d, "frames", "frame_%05d.csv" % k)) as f:
            result.append({r["id"]: (float(r["pressure"]), float(r["x"]), float(r["y"])) for r in csv.DictReader(f)})
    return result


raw, avg = frames(0.0), frames(T)
keep = T / (T + DT)
worst, compressed = 0.0, 0
for ident, (q1, x, y) in raw[0].items():
    q2, q3 = raw[1][ident][0], raw[2][ident][0]
    assert avg[2][ident][1:] == (raw[2][ident][1], raw[2][ident][2]), "the averaging moved particle %s" % ident
    p1 = q1
    p2 = q2 + keep * (p1 - q2)
    p3 = q3 + keep * (p2 - q3)
    for got, want in ((avg[0][ident][0], p1), (avg[1][ident][0], p2), (avg[2][ident][0], p3)):
        scale = max(abs(want), abs(q1), abs(q2), abs(q3), 1.0)
        worst = max(worst, abs(got - want) / scale)
    compressed += q3 != p3
print("pressure_average.py: %d particles, %d whose step pressure differs from its average; worst relative "
      "deviation from the recomputed average %.3g" % (len(raw[0]), compressed, worst))
if compressed == 0:
    sys.exit("pressure_average.py: no particle's pressure changed between steps: the check has nothing to see")
if worst > 1e-5:
    sys.exit("pressure_average.py: the reported pressure is not the exponential average of the steps' (%.3g)" % worst)
