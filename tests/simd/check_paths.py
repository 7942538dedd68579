"""check_paths.py BASE_FRAMES PATH_FRAMES [SCENE]: the fields of a run on a wider vector-ISA path against the
baseline's (tests/simd/simd_path.sh), in the first frame (step 0: the same positions, so one evaluation
of the density and force sums) and the last. Both runs evaluate the same pair terms bit for bit (no FMA
contraction, correctly rounded sqrt and division); the sums differ only in their order, 4 against 8 or
16 partial sums of ~170 candidates, about 1e-7 relative per sum, which the steps then carry on. A path
that dropped or doubled a term (a wall's ghosts, the viscous part) misses by percents at step 0, where
the terms act: tests/simd starts the dam breaks moving into their walls, so that the ghosts' velocities
give the viscous terms work from the first evaluation (without viscosity the step-0 accelerations
differ by 18-35% of the largest, check_detects.sh).

Each column is compared as max |path - base| over the particles against a tolerance times the
baseline's largest |value| of that quantity; for the acceleration at least the scene's |g| (SCENE's
world.gravity): in a fluid at rest a solver whose acceleration field is the net one (vpm_hybrid) holds
only the residual of pressure and gravity terms of order g each, and it is their rounding the paths
differ in. Pressure is left out: it is stiffness times (rho - rho0),
a difference of nearly equal numbers that the density's check covers."""
import csv
import glob
import json
import math
import os
import sys

# Tolerances, relative to the largest |value| of the column (of the vector, for a vector's components):
# about 10 times the differences measured with sph_mueller, tait and pbf on their 3D dam breaks after
# 0 and 20 steps, AVX2 and AVX-512 against SSE2 on an AMD EPYC (step 0: density 2.4e-7-3.1e-7,
# acceleration 1.0e-3-1.4e-3; last frame: positions <= 8e-6, velocities <= 1.4e-3, density <= 7e-5 (pbf,
# whose iterations amplify), acceleration <= 5e-3, vorticity <= 1.2e-3). pbf's lambda is left out at
# step 0, where the fluid is at rest density and lambda is rounding noise around 0.
FIRST = {"density": 2e-6, "acceleration": 1e-2}
LAST = {"density": 7e-4, "position": 1e-4, "velocity": 2e-2, "acceleration": 5e-2, "lambda": 2e-2,
        "vorticity": 2e-2, "previous_position": 1e-4}


def load(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    return {int(r["id"]): r for r in rows}


def group(column):
    """The quantity a column belongs to: a vector's components share their scale."""
    if column in ("x", "y", "z"):
        return "position"
    if column in ("vx", "vy", "vz"):
        return "velocity"
    for prefix in ("acceleration", "vorticity", "previous_position"):
        if column.startswith(prefix + "_"):
            return prefix
    return column


def compare(base_file, path_file, table, what, floor):
    base, path = load(base_file), load(path_file)
    if sorted(base) != sorted(path):
        print(f"{what}: the runs hold different particles")
        return 1
    failed = 0
    columns = [c for c in next(iter(base.values())) if group(c) in table]
    scale = {}
    for c in columns:
        scale[group(c)] = max(scale.get(group(c), floor.get(group(c), 0.0)),
                              max(abs(float(r[c])) for r in base.values()))
    for c in columns:
        tol, s = table[group(c)], scale[group(c)]
        worst = max(abs(float(path[i][c]) - float(base[i][c])) for i in base)
        rel = worst / s if s > 0 else worst
        ok = rel <= tol
        failed |= not ok
        print(f"{what}: {c}: max difference {worst:.3g} = {rel:.3g} of the largest |{group(c)}| {s:.4g} "
              f"(tolerance {tol:g}){'' if ok else '  FAILED'}")
    return failed


def main():
    base_dir, path_dir = sys.argv[1], sys.argv[2]
    floor = {}
    if len(sys.argv) > 3:
        with open(sys.argv[3]) as f:
            g = json.load(f).get("world", {}).get("gravity", [0, 0, 0])
        floor["acceleration"] = math.sqrt(sum(float(v) * float(v) for v in g))
    frames = sorted(os.path.basename(f) for f in glob.glob(os.path.join(base_dir, "frame_*.csv")))
    if len(frames) < 2:
        print(f"expected a first and a last frame in {base_dir}, found {frames}")
        return 1
    failed = compare(os.path.join(base_dir, frames[0]), os.path.join(path_dir, frames[0]), FIRST, "step 0", floor)
    failed |= compare(os.path.join(base_dir, frames[-1]), os.path.join(path_dir, frames[-1]), LAST, "last frame", floor)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
