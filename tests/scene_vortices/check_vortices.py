#!/usr/bin/env python3
"""check_vortices.py EDDY SCENE OUT [--pair-speed]: the scene's `vortices` on the seeded particles
(docs/scenes.md, "Initial vortices"), read back from the CSV frame at t = 0 of `eddy run SCENE --steps 0`.

The expected values are computed here from the scene's own numbers, not from eddy's: every vortex's
formula (2D: omega = G / (pi a^2) exp(-r^2 / a^2) along z; 3D thin ring: the same of the distance to the
ring's circle, along n x r / |r|), in simulation units (lengths times world.simulation_scale), at each
particle's position, times the cell factor s^d / V (s the fill spacing, V = m / rho0 with m the particle
mass run.json reports; the particle carries its lattice cell's circulation). Then:
  - every particle's vorticity matches, and so do the peak and a sample near r = a singled out;
  - the circulation: sum omega V over the particles nearest each 2D vortex is its G, and a ring's
    sum omega_theta V / (2 pi rho) (its circulation through a meridian half-plane) is its G: analytic
    values, met to the lattice quadrature of a Gaussian resolved by 2 spacings or more a core and cut
    3.7 or more cores out (both errors below 1e-6), plus single-precision rounding: tolerance 2e-5;
  - --pair-speed (two 2D vortices +G and -G at distance d): what the solver makes of them, the velocity
    at t = 0 averaged over each vortex's vorticity, is G / (2 pi d) along e_z x (x- - x+) (point
    vortices; a vortex's own velocity averages to zero over its vorticity, the Gaussian cores change
    the other's by exp(-d^2 / (2 a^2 + 2 sigma^2)), below 1e-20 here): tolerance 1e-4. The vorticity
    the formula alone puts on each particle, without the cell factor, is 1.5% too strong.
"""
import csv
import json
import math
import os
import subprocess
import sys


def fail(msg):
    print("check_vortices.py: " + msg)
    sys.exit(1)


def main():
    eddy, scene_path, out = sys.argv[1:4]
    scene = json.load(open(scene_path))
    r = subprocess.run([eddy, "run", scene_path, "--steps", "0", "--format", "csv", "--out", out, "--quiet",
                        "--no-picture"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    print(r.stdout, end="")
    if r.returncode != 0:
        fail("eddy run exited with %d" % r.returncode)
    run = json.load(open(os.path.join(out, "run.json")))
    mat = run["commands"][0]["materials"][0]
    scale = scene["world"].get("simulation_scale", 1.0)
    d = scene.get("dimensions", 3)
    rho0 = scene["materials"][0]["rest_density"]
    V = mat["particle_mass"] / rho0
    s = scene["materials"][0]["particle_spacing"] * scale
    factor = s ** d / V
    print("cell s^%d = %.6g, V = m / rho0 = %.6g: factor %.6f" % (d, s ** d, V, factor))

    rows = list(csv.DictReader(open(os.path.join(out, "frames", "frame_00000.csv"))))
    if not rows:
        fail("no particles in the frame")
    # The frame's positions are world units: back to simulation units.
    xs = [[float(row[k]) * scale for k in ("x", "y", "z")] for row in rows]
    ws = [[float(row["vorticity_" + k]) for k in ("x", "y", "z")] for row in rows]

    vortices = []
    for v in scene["vortices"]:
        c = [float(x) * scale for x in v["center"]] + [0.0] * (3 - len(v["center"]))
        a = v["core_radius"] * scale
        G = v["circulation"]
        if v["kind"] == "gaussian":
            vortices.append(("gaussian", c, G, a, None, None))
        else:
            n = v["axis"]
            ln = math.sqrt(sum(q * q for q in n))
            vortices.append(("ring", c, G, a, [q / ln for q in n], v["radius"] * scale))

    def ring_frame(x, c, n):
        dx = [x[i] - c[i] for i in range(3)]
        z = sum(dx[i] * n[i] for i in range(3))
        rv = [dx[i] - z * n[i] for i in range(3)]
        rho = math.sqrt(sum(q * q for q in rv))
        et = [n[1] * rv[2] - n[2] * rv[1], n[2] * rv[0] - n[0] * rv[2], n[0] * rv[1] - n[1] * rv[0]]
        return z, rho, [q / rho for q in et] if rho > 0 else [0.0, 0.0, 0.0]

    def expected(x):
        w = [0.0, 0.0, 0.0]
        for kind, c, G, a, n, R in vortices:
            if kind == "gaussian":
                r2 = (x[0] - c[0]) ** 2 + (x[1] - c[1]) ** 2
                w[2] += G / (math.pi * a * a) * math.exp(-r2 / (a * a))
            else:
                z, rho, et = ring_frame(x, c, n)
                om = G / (math.pi * a * a) * math.exp(-((rho - R) ** 2 + z * z) / (a * a))
                for i in range(3):
                    w[i] += om * et[i]
        return [q * factor for q in w]

    exp_all = [expected(x) for x in xs]
    peak = max(math.sqrt(sum(q * q for q in e)) for e in exp_all)
    worst = max(max(abs(ws[i][k] - exp_all[i][k]) for k in range(3)) for i in range(len(xs)))
    print("%d particles; largest |omega - expected| = %.3g (peak %.6g): %.3g of the peak"
          % (len(xs), worst, peak, worst / peak))
    if not worst <= 2e-6 * peak:
        fail("a particle's vorticity differs from the formula by %.3g of the peak" % (worst / peak))

    # The peak particle and a radial sample near r = a of the first vortex, singled out.
    kind, c, G, a, n, R = vortices[0]

    def dist(x):
        if kind == "gaussian":
            return math.hypot(x[0] - c[0], x[1] - c[1])
        z, rho, _ = ring_frame(x, c, n)
        return math.hypot(rho - R, z)

    ip = max(range(len(xs)), key=lambda i: math.sqrt(sum(q * q for q in ws[i])))
    ia = min(range(len(xs)), key=lambda i: abs(dist(xs[i]) - a))
    for name, i in (("peak", ip), ("sample near r = a", ia)):
        got = math.sqrt(sum(q * q for q in ws[i]))
        want = abs(G) / (math.pi * a * a) * math.exp(-dist(xs[i]) ** 2 / (a * a)) * factor
        print("%s: r = %.6g, |omega| = %.7g, G / (pi a^2) exp(-r^2 / a^2) s^d / V = %.7g"
              % (name, dist(xs[i]), got, want))
        if not abs(got - want) <= 2e-6 * want:
            fail("%s: |omega| = %.9g, expected %.9g" % (name, got, want))

    # Circulations.
    for j, (kind, c, G, a, n, R) in enumerate(vortices):
        if kind == "gaussian":
            # The particles nearer this vortex's centre than any other's.
            def mine(x):
                d2 = [(x[0] - o[1][0]) ** 2 + (x[1] - o[1][1]) ** 2 for o in vortices]
                return min(range(len(d2)), key=lambda k: d2[k]) == j
            got = sum(ws[i][2] * V for i in range(len(xs)) if mine(xs[i]))
        else:
            got = 0.0
            for i in range(len(xs)):
                z, rho, et = ring_frame(xs[i], c, n)
                if rho > 0:
                    got += sum(ws[i][k] * et[k] for k in range(3)) * V / (2 * math.pi * rho)
        print("vortices[%d] (%s): circulation %.9g, G = %.9g (relative difference %.2g)"
              % (j, kind, got, G, abs(got - G) / abs(G)))
        if not abs(got - G) <= 2e-5 * abs(G):
            fail("vortices[%d]: circulation %.9g, expected G = %.9g" % (j, got, G))
    if "--pair-speed" in sys.argv[4:]:
        (k0, c0, G0, a0, _, _), (k1, c1, G1, a1, _, _) = vortices
        if k0 != "gaussian" or k1 != "gaussian" or G0 != -G1:
            fail("--pair-speed: expected two 2D vortices of opposite circulation")
        dx, dy = c1[0] - c0[0], c1[1] - c0[1]
        d = math.hypot(dx, dy)
        # The direction point vortices take: e_z x (x- - x+) with x+ the centre of the vortex G > 0.
        e = (-dy / d, dx / d) if G0 > 0 else (dy / d, -dx / d)
        U = abs(G0) / (2 * math.pi * d)
        # The frame's velocities are world units per second too.
        vs = [[float(row[k]) * scale for k in ("vx", "vy")] for row in rows]
        for sign in (1, -1):
            idx = [i for i in range(len(xs)) if sign * ws[i][2] > 0]
            sw = sum(ws[i][2] for i in idx)
            u = [sum(ws[i][2] * vs[i][k] for i in idx) / sw for k in range(2)]
            along = u[0] * e[0] + u[1] * e[1]
            print("vorticity of sign %+d moves at %.9g along the pair's direction (%.3g across), G / (2 pi d) = %.9g"
                  % (sign, along, u[0] * e[1] - u[1] * e[0], U))
            if not abs(along - U) <= 1e-4 * U or not abs(u[0] * e[1] - u[1] * e[0]) <= 1e-4 * U:
                fail("the vortex of sign %+d moves at (%.9g, %.9g), expected %.9g along (%g, %g)"
                     % (sign, u[0], u[1], U, e[0], e[1]))
    print("check_vortices.py: ok")


if __name__ == "__main__":
    main()
