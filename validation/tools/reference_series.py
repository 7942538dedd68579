#!/usr/bin/env python3
"""Writes the analytic reference tables of the validation cases (validation/data/), from the published
formulas, and checks them against the published values where a paper tabulates them.

- morris1997_profiles.csv: start-up plane Poiseuille and Couette flow, the series solutions of
  Morris, Fox & Zhu (1997), J. Comput. Phys. 136:214, section 4.1 (nu = 1e-6 m^2/s, L = 1e-3 m,
  F = 1e-4 m/s^2, V0 = 1.25e-5 m/s), u / u0 at z / L = 0.05 ... 0.95 and the times of the paper's
  figures 2 and 3. The 16 values of morris1997_poiseuille_couette.csv (the same series, tabulated
  independently) must agree to their 4 digits.
- shear_wave_decay.csv: a periodic shear wave u = U(t) sin(k y), v = 0, the exact solution of the
  Navier-Stokes equations U(t) / U0 = exp(-nu k^2 t) (pressure uniform), k = 2 pi / L, nu = 0.01.
- taylor_green_decay.csv: the velocity amplitude of the 2D Taylor-Green vortex (Taylor & Green 1937),
  U(t) / U0 = exp(-2 nu k^2 t), k = 2 pi / L, at Re = U0 L / nu = 100 (U0 = L = 1): 0.4540 at t = 1.

Run: python3 validation/tools/reference_series.py           (rewrites the tables; stdlib only)
     python3 validation/tools/reference_series.py --check   (writes nothing: fails when a table in
                                                              data/ differs from what the formulas give,
                                                              or the series misses a published value)
"""
import csv
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "data")
NU, L, F = 1e-6, 1e-3, 1e-4
U0 = F * L * L / (8 * NU)  # 1.25e-5 m/s, the steady centre-line speed
V0 = U0                    # Couette top plate


def poiseuille(z, t, terms=200):
    u = F / (2 * NU) * z * (L - z)
    for n in range(terms):
        m = 2 * n + 1
        u -= 4 * F * L * L / (NU * math.pi ** 3 * m ** 3) * math.sin(math.pi * z * m / L) * \
            math.exp(-m * m * math.pi ** 2 * NU * t / (L * L))
    return u / U0


def couette(z, t, terms=2000):
    u = V0 * z / L
    for n in range(1, terms):
        u += 2 * V0 / (n * math.pi) * (-1) ** n * math.sin(n * math.pi * z / L) * \
            math.exp(-n * n * math.pi ** 2 * NU * t / (L * L))
    return u / V0


def write(name, text, check):
    """Writes data/NAME, or with check compares it; returns 1 on a difference."""
    path = os.path.join(DATA, name)
    if not check:
        with open(path, "w") as f:
            f.write(text)
        return 0
    with open(path) as f:
        if f.read() != text:
            print("%s differs from what reference_series.py computes" % path)
            return 1
    return 0


def main():
    check = "--check" in sys.argv[1:]
    bad = 0
    with open(os.path.join(DATA, "morris1997_poiseuille_couette.csv")) as f:
        rows = [r for r in csv.reader(l for l in f if not l.startswith("#"))]
    for case, t, z, u in rows[1:]:
        if t == "inf":
            t = 1e9
        got = (poiseuille if case == "poiseuille" else couette)(float(z) * L, float(t))
        # (the published values have 4 decimals: 5e-5 of rounding; the worst seen is 4.4e-5)
        if abs(got - float(u)) > 1e-4:
            print("mismatch: %s t=%s z/L=%s: %.4f vs published %s" % (case, t, z, got, u))
            bad = 1
    times = [0.0225, 0.045, 0.1125]
    out = ["# Start-up plane Poiseuille and Couette flow: the series solutions of Morris, Fox & Zhu (1997),\n"
           "# J. Comput. Phys. 136:214, sec. 4.1, evaluated by validation/tools/reference_series.py.\n"
           "# nu = 1e-6 m^2/s, L = 1e-3 m; Poiseuille F = 1e-4 m/s^2, u0 = F L^2 / (8 nu) = 1.25e-5 m/s;\n"
           "# Couette V0 = 1.25e-5 m/s. u_over_scale = u / u0 (Poiseuille) or u / V0 (Couette).\n"
           "case,t_s,z_over_L,u_over_scale\n"]
    for case, fn in (("poiseuille", poiseuille), ("couette", couette)):
        for t in times:
            for k in range(1, 20):
                z = 0.05 * k
                out.append("%s,%.4f,%.2f,%.5f\n" % (case, t, z, fn(z * L, t)))
    bad |= write("morris1997_profiles.csv", "".join(out), check)
    nu_tg, k_tg = 0.01, 2 * math.pi
    out = ["# 2D Taylor-Green vortex (Taylor & Green 1937): u = -U(t) cos(kx) sin(ky), v = U(t) sin(kx) cos(ky),\n"
           "# U(t) / U0 = exp(-2 nu k^2 t), k = 2 pi / L, Re = U0 L / nu = 100 with U0 = L = 1 (nu = 0.01).\n"
           "# Evaluated by validation/tools/reference_series.py.\n"
           "t,amplitude\n"]
    out += ["%.1f,%.5f\n" % (0.1 * i, math.exp(-2 * nu_tg * k_tg * k_tg * 0.1 * i)) for i in range(11)]
    bad |= write("taylor_green_decay.csv", "".join(out), check)
    out = ["# Periodic shear wave u = U(t) sin(k y), v = 0: U(t) / U0 = exp(-nu k^2 t), k = 2 pi / L, L = 1,\n"
           "# nu = 0.01 (the viscous term alone: the convective term and the pressure gradient vanish).\n"
           "# Evaluated by validation/tools/reference_series.py.\n"
           "t,amplitude\n"]
    out += ["%.1f,%.5f\n" % (0.1 * i, math.exp(-nu_tg * k_tg * k_tg * 0.1 * i)) for i in range(11)]
    bad |= write("shear_wave_decay.csv", "".join(out), check)
    return bad


if __name__ == "__main__":
    sys.exit(main())
