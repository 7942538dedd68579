#!/usr/bin/env python3
"""Writes adversarial scene inputs just under 1 MB (scene target format) into a folder, for the
worst-case load time of a scene under 1 MB (issue 20: aim under 1 s):

    python3 tests/fuzz/tools/large_scenes.py /tmp/large && build/bin/eddy_fuzz_replay scene /tmp/large

The replay prints the slowest input and its time; EDDY_FUZZ_VERBOSE=1 shows what each became. Each
input repeats one element of the schema as often as 1 MB allows (every entry valid, so the whole
document is read), or nests, or makes one string long."""
import json
import os
import sys

LIMIT = 1000 * 1000  # bytes, below 1 MB with room for the rest of the document

BASE = {
    "name": "large", "solver": "sph_mueller", "dimensions": 2,
    "time": {"dt": 0.0001, "end": 0.1, "output_interval": 0.01},
    "world": {"gravity": [0, -9.81], "smoothing_radius": 0.05},
    "container": {"min": [0, 0], "max": [10, 10]},
    "materials": [{"name": "w", "particle_spacing": 0.025}],
    "fluids": [{"material": "w", "box": {"min": [0, 0], "max": [0.5, 0.5]}}],
}


def name36(i):
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    s = ""
    while True:
        s = digits[i % 36] + s
        i //= 36
        if not i:
            return s


def fill(doc, key, make, sep=","):
    """doc with list `key` extended by make(i) items until the text reaches LIMIT."""
    text = json.dumps(doc, separators=(",", ":"))
    marker = '"%s":[' % key
    at = text.index(marker) + len(marker)
    items, size, i = [], len(text), 0
    while True:
        item = make(i)
        if size + len(item) + 1 > LIMIT:
            break
        items.append(item)
        size += len(item) + 1
        i += 1
    empty = text[at] == "]"
    return text[:at] + sep.join(items) + ("" if empty else sep) + text[at:], i


def main(out):
    os.makedirs(out, exist_ok=True)

    def write(name, text, count=None):
        with open(os.path.join(out, name + ".json"), "w") as f:
            f.write(text + "\n")
        print("%-28s %8d bytes%s" % (name, len(text) + 1, "" if count is None else ", %d items" % count))

    # Materials, each valid and unique.
    t, n = fill(BASE, "materials", lambda i: '{"name":"m%s","particle_mass":1}' % name36(i))
    write("materials", t, n)
    # Fluid blocks of one particle each, all of material w.
    t, n = fill(BASE, "fluids", lambda i: '{"material":"w","box":{"min":[%g,%g],"max":[%g,%g]}}' %
                ((i % 300) * 0.03, (i // 300) * 0.03 % 9, (i % 300) * 0.03 + 0.025, (i // 300) * 0.03 % 9 + 0.025))
    write("fluids", t, n)
    # Sphere blocks.
    t, n = fill(BASE, "fluids", lambda i: '{"material":"w","sphere":{"center":[5,5],"radius":0.02}}')
    write("spheres", t, n)
    # Colliders.
    d = dict(BASE, colliders=[])
    t, n = fill(d, "colliders", lambda i: '{"type":"plane","point":[0,%g],"normal":[0,1]}' % (i * 1e-6))
    write("colliders", t, n)
    d = dict(BASE, colliders=[])
    t, n = fill(d, "colliders", lambda i: '{"type":"sphere","center":[5,5],"radius":0.1,"velocity":[0,1],"moving_until":0.05}')
    write("moving_colliders", t, n)
    # Distinct keys in one material (the solver decides which are valid: refused, but after a scan).
    keys = ",".join('"%s":0' % name36(i) for i in range(110000))
    text = json.dumps(BASE, separators=(",", ":")).replace('"particle_spacing":0.025}', '"particle_spacing":0.025,' + keys + "}", 1)
    write("material_keys", text)
    # Distinct keys in the solvers section (component ids, checked against the registry).
    keys = ",".join('"%s":{}' % name36(i) for i in range(95000))
    d = dict(BASE)
    text = json.dumps(d, separators=(",", ":"))[:-1] + ',"solvers":{' + keys + "}}"
    write("solver_sections", text)
    # Keys of the solver's own section (parameter ids, validated against its table).
    keys = ",".join('"%s":0' % name36(i) for i in range(110000))
    text = json.dumps(d, separators=(",", ":"))[:-1] + ',"solvers":{"sph_mueller":{' + keys + "}}}"
    write("solver_params", text)
    # Deep nesting (cJSON stops at 1000 levels) and a long string.
    write("nesting", json.dumps(BASE)[:-1] + ',"description":' + "[" * 999 + "]" * 999 + "}")
    write("long_name", json.dumps(dict(BASE, description="x" * (LIMIT - 600))))
    # A number with a million digits.
    write("long_number", json.dumps(BASE).replace('"smoothing_radius": 0.05', '"smoothing_radius": 0.0' + "5" * (LIMIT - 600), 1))
    # --set lines with long paths into fresh objects (the target takes up to 16).
    sets = "".join("--set solvers.sph_mueller.%s=1\n" % ("a" * 60000) for _ in range(16))
    write("long_sets", sets + json.dumps(BASE))
    # A million-particle block (parsed and counted; built only up to 2^17 particles by the target).
    write("many_particles", json.dumps(dict(BASE, fluids=[{"material": "w", "box": {"min": [0, 0], "max": [10, 10]}}])))
    # The largest block the target still builds (2^17 particles): 362 x 362 at spacing 0.025.
    write("largest_built", json.dumps(dict(BASE, fluids=[{"material": "w", "box": {"min": [0, 0], "max": [9.05, 9.05]}}])))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "large_scenes")
