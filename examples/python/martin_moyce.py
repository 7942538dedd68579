#!/usr/bin/env python3
"""The 2D dam break against Martin & Moyce (1952): surge front Z = x/a over T = t sqrt(2g/a).

Runs the repository's 2D dam-break scenes from Python and plots the "front" probe each scene
declares (the same measurement `eddy compare` plots and tests/compare checks: the largest x of the
fluid, host/observe/probes_builtin.c) against the probe's reference data, in the reference's units
(time_scale and value_scale from the scene). Martin, J. C. & Moyce, W. J. (1952), Phil. Trans. R.
Soc. A 244, 312-324, Table 2.

    PYTHONPATH=<build>/python python3 examples/python/martin_moyce.py [--until 0.3] [--out DIR]
"""
import argparse
import os
import time

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import eddy  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SCENES = os.path.join(HERE, "..", "..", "scenes")
RUNS = [("tait", "tait_dam_break_2d.json"), ("pbf", "pbf_dam_break_2d.json"),
        ("sph_mueller", "dam_break_2d.json")]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--until", type=float, default=None, help="end time, s (default: each scene's time.end)")
    ap.add_argument("--solvers", default="tait,pbf,sph_mueller", help="which of tait, pbf, sph_mueller")
    ap.add_argument("--out", default="out/python", help="folder of martin_moyce.png")
    a = ap.parse_args()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    ref = None
    for solver, scene in RUNS:
        if solver not in a.solvers.split(","):
            continue
        t0 = time.perf_counter()
        sim = eddy.Simulation(os.path.join(SCENES, scene), formats=[])
        probe = next(p for p in sim.probes if p.name == "front")
        rec = sim.run(until=a.until)
        ref = probe.reference
        T = rec.probes["time"] / ref.time_scale
        Z = (rec.probes["front"] - ref.value_offset) / ref.value_scale
        print(f"{solver:12s} {sim.count} particles, {sim.steps} steps, {len(T)} frames in "
              f"{time.perf_counter() - t0:.2f} s; front at T = {T[-1]:.2f}: Z = {Z[-1]:.3f}")
        ax.plot(T, Z, label=f"eddy {solver}")
    ax.plot(ref.x, ref.y, "ko", mfc="none", label=ref.label)
    ax.set_xlabel(ref.x_label)
    ax.set_ylabel(ref.y_label)
    ax.set_title("2D dam break: surge front")
    ax.grid(alpha=0.3)
    ax.legend()
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, "martin_moyce.png")
    fig.savefig(path, dpi=120, bbox_inches="tight")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
