#!/usr/bin/env python3
"""Writes tests/fuzz/reproducers/: one small input per defect of issue 20, each exercising exactly
that defect on an otherwise valid input (a scene, or the 2D sph_mueller checkpoint of the corpus).

    python3 tests/fuzz/tools/make_reproducers.py

Scene inputs use the scene target's format: "--set KEY=VALUE" lines, then the document. Checkpoints
are written with a correct checksum, so `eddy resume` reproduces them outside the fuzz targets too.
The files are committed; run this again only to change them."""
import copy
import json
import math
import os
import struct

import ckpt
from large_scenes import name36

HERE = os.path.dirname(os.path.abspath(__file__))
FUZZ = os.path.dirname(HERE)
OUT_SCENE = os.path.join(FUZZ, "reproducers", "scene")
OUT_CKPT = os.path.join(FUZZ, "reproducers", "checkpoint")

# A minimal valid 2D scene (dam_break_2d without probes): 40 x 80 particles.
SCENE_2D = {
    "name": "r",
    "solver": "sph_mueller",
    "dimensions": 2,
    "time": {"dt": 0.00005, "end": 0.3, "output_interval": 0.0075},
    "world": {"gravity": [0, -9.81], "smoothing_radius": 0.005},
    "container": {"min": [0, 0], "max": [0.6, 0.3]},
    "materials": [{"name": "water", "rest_density": 1000, "particle_spacing": 0.0025}],
    "fluids": [{"material": "water", "box": {"min": [0, 0], "max": [0.1, 0.2]}}],
}

SCENE_3D = {
    "name": "r",
    "solver": "sph_mueller",
    "dimensions": 3,
    "time": {"dt": 0.0003, "end": 1.0, "output_interval": 0.02},
    "world": {"gravity": [0, -9.81, 0], "smoothing_radius": 0.02},
    "container": {"min": [0, 0, 0], "max": [0.6, 0.6, 0.6]},
    "materials": [{"name": "water", "rest_density": 1000, "particle_spacing": 0.01}],
    "fluids": [{"material": "water", "box": {"min": [0, 0, 0], "max": [0.1, 0.1, 0.1]}}],
}


def compact(doc):
    return json.dumps(doc, separators=(",", ":"))


def scene(name, doc, sets=(), text=None):
    body = "".join("--set %s\n" % s for s in sets) + (text if text is not None else compact(doc)) + "\n"
    with open(os.path.join(OUT_SCENE, name + ".json"), "w") as f:
        f.write(body)


def scenes():
    # eddy_lattice_density loops (2n+1)^d times, n = ceil(h / spacing): h / spacing = 4000 in 2D.
    scene("issue20-h-over-spacing-2d", SCENE_2D, ["world.smoothing_radius=10"])
    # ... and 300 in 3D.
    scene("issue20-h-over-spacing-3d", SCENE_3D, ["world.smoothing_radius=3"])
    # h / spacing = 4e7: ceil() overflows int.
    scene("issue20-smoothing-radius-1e5", SCENE_2D, ["world.smoothing_radius=1e5"])
    # The spacing derived from a tiny mass is tiny (h / spacing about 1.6e5).
    d = copy.deepcopy(SCENE_2D)
    d["materials"][0] = {"name": "water", "rest_density": 1000, "particle_mass": 1e-12}
    scene("issue20-particle-mass-1e-12", d)
    # A sphere's particle count walked cell by cell: 2e4^3 cells at spacing 0.01, r = 100.
    d = copy.deepcopy(SCENE_3D)
    d["container"] = {"min": [-100, -100, -100], "max": [100, 100, 100]}
    d["fluids"] = [{"material": "water", "sphere": {"center": [0, 0, 0], "radius": 100}}]
    scene("issue20-sphere-r100-spacing-0.01", d)
    # Duplicate-key scan over one object of 40k distinct keys (quadratic): a material's keys, which
    # the parser scans for duplicates only (the solvers decide which keys are valid).
    d = copy.deepcopy(SCENE_2D)
    text = compact(d)
    keys = ",".join('"%s":0' % name36(i) for i in range(40000))
    text = text.replace('"particle_spacing":0.0025}', '"particle_spacing":0.0025,' + keys + "}", 1)
    scene("issue20-object-40k-keys", d, text=text)
    # 30k materials: the unique-name check compares each with every earlier one (quadratic). Short
    # materials (a mass of 1 at h = 0.05: spacing 0.032), so that the file stays under 1 MB.
    d = copy.deepcopy(SCENE_2D)
    d["world"]["smoothing_radius"] = 0.05
    d["materials"][0] = {"name": "water", "particle_mass": 1}
    text = compact(d)
    mats = ",".join('{"name":"%s","particle_mass":1}' % name36(i) for i in range(1, 30000))
    text = text.replace('"materials":[{', '"materials":[' + mats + ",{", 1)
    scene("issue20-30k-materials", d, text=text)


def checkpoints():
    base = ckpt.read(os.path.join(FUZZ, "corpus", "checkpoint", "sph2d.eddy"))

    def write(name, ck):
        ckpt.write(os.path.join(OUT_CKPT, name + ".eddy"), ck)

    def field(ck, name):
        return next(f for f in ck["fields"] if f["name"] == name)

    ck = copy.deepcopy(base)
    ck["settings"]["render"] = {"width": 1e300}
    write("issue20-render-width-1e300", ck)

    # The checkpoint's own end is used (no --steps); its clock sits at end_time, so stopping by time,
    # what the undefined cast gave in practice, takes no step.
    ck = copy.deepcopy(base)
    ck["settings"]["end_steps"] = 1e300
    ck["settings"]["end_time"] = ck["time"]
    write("issue20-end-steps-1e300", ck)

    # position listed twice, velocity not at all: the count of fields matches, velocity is never restored.
    ck = copy.deepcopy(base)
    vel = next(i for i, f in enumerate(ck["fields"]) if f["name"] == "velocity")
    ck["fields"][vel] = copy.deepcopy(field(ck, "position"))
    write("issue20-field-listed-twice", ck)

    for label, t in (("nan", math.nan), ("minus1", -1.0), ("inf", math.inf)):
        ck = copy.deepcopy(base)
        ck["time"] = t
        write("issue20-time-" + label, ck)

    ck = copy.deepcopy(base)
    mass = field(ck, "mass")["components"]
    first = struct.unpack("<f", mass[0][:4])[0]
    mass[0] = struct.pack("<f", -first) + mass[0][4:]
    write("issue20-negative-mass", ck)

    ck = copy.deepcopy(base)
    ck["ids"][1] = ck["ids"][0]
    write("issue20-duplicate-ids", ck)

    # Collider reals: point[3], normal[3], min[3], max[3], center[3], radius, velocity[3].
    ck = copy.deepcopy(base)
    assert ck["colliders"][0]["shape"] == 0  # a plane (a container wall)
    ck["colliders"][0]["reals"][0] = math.nan
    write("issue20-collider-nan-point", ck)

    ck = copy.deepcopy(base)
    ck["colliders"][0]["reals"][3:6] = [0.0, 0.0, 0.0]
    write("issue20-collider-zero-normal", ck)

    # sph_mueller saves its largest acceleration; the state left out.
    ck = copy.deepcopy(base)
    assert ck["blob"].startswith(b"sph_mueller/1\0")
    ck["blob"] = b""
    write("issue20-missing-solver-state", ck)

    ck = copy.deepcopy(base)
    ck["blob"] = ck["blob"][:-4] + struct.pack("<f", math.nan)
    write("issue20-max-accel-nan", ck)

    # The lattice loop reached through the scene a checkpoint embeds.
    ck = copy.deepcopy(base)
    ck["settings"]["scene"]["world"]["smoothing_radius"] = 40  # h / spacing = 4000
    write("issue20-embedded-h-over-spacing", ck)


if __name__ == "__main__":
    os.makedirs(OUT_SCENE, exist_ok=True)
    os.makedirs(OUT_CKPT, exist_ok=True)
    scenes()
    checkpoints()
