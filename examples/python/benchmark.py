#!/usr/bin/env python3
"""Figures of docs/python.md: the cost of stepping from Python, and the time to a front curve.

1. Overhead per step at about 10k particles (scenes/dam_break_2d.json refilled with particles=N, as
   `eddy bench --particles N` does): `eddy bench`'s median step time, Python's run(steps=S) (the
   command's stepping loop, in C) and a Python loop of step(1), interleaved in rounds; medians.
2. The 2D dam break's surge front into a NumPy array: Simulation(...).run() of
   scenes/tait_dam_break_2d.json to its time.end, then rec.probes["front"], against `eddy run` of the
   same scene writing its frames (what a script reading the command's output would need first).

    PYTHONPATH=<build>/python python3 examples/python/benchmark.py --eddy <build>/bin/eddy
"""
import argparse
import os
import statistics
import subprocess
import tempfile
import time

import eddy

HERE = os.path.dirname(os.path.abspath(__file__))
SCENES = os.path.join(HERE, "..", "..", "scenes")


def wall(cmd):
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--eddy", required=True, help="the eddy command of the same build")
    ap.add_argument("--particles", type=int, default=10000)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=5)
    a = ap.parse_args()
    scene = os.path.join(SCENES, "dam_break_2d.json")
    out = tempfile.mkdtemp(prefix="eddy-bench-")
    py_sets = {"time.output_interval": 0.3}   # no frame lands inside the measured steps
    bench_ms, run_ms, loop_ms = [], [], []
    n = None
    for r in range(a.rounds):
        # A: the command's own measure, `eddy bench` (median ms per step of the same refill)
        p = subprocess.run([a.eddy, "bench", scene, "--particles", str(a.particles), "--steps", str(a.steps),
                            "--repeats", "1", "--set", "time.output_interval=0.3"],
                           check=True, capture_output=True, text=True)
        line = [l for l in p.stdout.splitlines() if l.startswith("bench: ")][0]
        bench_ms.append(float(dict(kv.split("=") for kv in line.split()[1:])["step_ms"]))
        # B: Python, the command's stepping loop in C (run), then one step per call from Python
        sim = eddy.Simulation(scene, set=py_sets, formats=[], particles=a.particles)
        n = sim.count
        sim.step(10)                      # the warm-up eddy bench takes too
        t0 = time.perf_counter()
        sim.run(steps=10 + a.steps, record=False)
        run_ms.append(1e3 * (time.perf_counter() - t0) / a.steps)
        sim = eddy.Simulation(scene, set=py_sets, formats=[], particles=a.particles)
        sim.step(10)
        t0 = time.perf_counter()
        for _ in range(a.steps):
            sim.step(1)
        loop_ms.append(1e3 * (time.perf_counter() - t0) / a.steps)
    med = statistics.median
    print(f"particles: {n}, steps per round: {a.steps}, rounds: {a.rounds}")
    print(f"eddy bench (solver step): median {med(bench_ms):.4f} ms/step  {sorted(bench_ms)}")
    print(f"python run(steps=S):      median {med(run_ms):.4f} ms/step  {sorted(run_ms)}")
    print(f"python step(1) loop:      median {med(loop_ms):.4f} ms/step  {sorted(loop_ms)}")
    print(f"step(1) loop against run(): {100 * (med(loop_ms) / med(run_ms) - 1):+.2f} % per step")
    print(f"step(1) loop against eddy bench: {100 * (med(loop_ms) / med(bench_ms) - 1):+.2f} % per step")

    # 2. the front curve
    tscene = os.path.join(SCENES, "tait_dam_break_2d.json")
    py, cl = [], []
    for r in range(max(1, a.rounds // 2)):
        t0 = time.perf_counter()
        sim = eddy.Simulation(tscene, formats=[])
        front = sim.run().probes["front"]
        py.append(time.perf_counter() - t0)
        cl.append(wall([a.eddy, "run", tscene, "--quiet", "--out", out]))
    print(f"front curve into NumPy (tait_dam_break_2d, {len(front)} frames, {sim.steps} steps): "
          f"median {statistics.median(py):.2f} s; `eddy run` of the scene (vtk frames): "
          f"median {statistics.median(cl):.2f} s")


if __name__ == "__main__":
    main()
