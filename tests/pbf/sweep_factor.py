#!/usr/bin/env python3
"""sweep_factor.py SPACINGS DIMS RELAXATION: the linearized PBF Jacobi sweep on the rest lattice,
computed apart from the plugin (plugins/pbf/pbf.c, sweep_spectrum) from the kernels' closed forms: a
density mode C_i = c exp(i q.x_i) is multiplied by f(q) = 1 - P(q).S(q) / ((1 + relaxation) D0), with
P = sum_j sin(q.x_j) grad W_poly6(x_j), S the same with W_spiky and D0 = sum_j |grad W_spiky(x_j)|^2,
over the offsets x_j of a square (cubic) lattice of unit spacing within h = SPACINGS and a grid of q in
[0, pi]^DIMS (41 points a side in 2D, 13 in 3D). Prints the worst f as the plugin's warning words it
("1.02", "1.21 with its sign flipped") and the relaxation that brings an overshoot within 1.015."""
import itertools
import math
import sys

h, dims, relax = float(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
n = int(math.ceil(h)) + 1
offsets = [o for o in itertools.product(range(-n, n + 1), repeat=dims) if 0 < math.dist(o, [0] * dims) < h]
# |grad W| / r of each kernel (the constants of the 2D or 3D poly6 and spiky kernels)
if dims == 2:
    cp, cs = 24 / (math.pi * h ** 8), 30 / (math.pi * h ** 5)
else:
    cp, cs = 945 / (32 * math.pi * h ** 9), 45 / (math.pi * h ** 6)
gp = [cp * (h * h - sum(c * c for c in o)) ** 2 for o in offsets]
gs = [cs * (h - math.dist(o, [0] * dims)) ** 2 / math.dist(o, [0] * dims) for o in offsets]
d0 = sum((g * math.dist(o, [0] * dims)) ** 2 for g, o in zip(gs, offsets))
nq = 41 if dims == 2 else 13
mus = []
for q in itertools.product([math.pi * k / (nq - 1) for k in range(nq)], repeat=dims):
    if not any(q):
        continue
    p, s = [0.0] * dims, [0.0] * dims
    for o, a, b in zip(offsets, gp, gs):
        sn = math.sin(sum(x * y for x, y in zip(q, o)))
        for c in range(dims):
            p[c] += a * sn * o[c]
            s[c] += b * sn * o[c]
    mus.append(sum(x * y for x, y in zip(p, s)) / d0)
lo, hi = 1 - max(mus) / (1 + relax), 1 - min(mus) / (1 + relax)
f = lo if abs(lo) > abs(hi) else hi
print("%.3g%s" % (abs(f), " with its sign flipped" if f < 0 else ""))
print("%.2g" % (math.ceil((max(mus) / 2.015 - 1) * 100) / 100))
