#!/usr/bin/env python3
"""Writes tests/fuzz/corpus/params/: parameter tables like the plugins' (every type, every layout)
encoded in the params target's byte format (tests/fuzz/fuzz_params.c), with valid values and a
scene section; and tests/fuzz/reproducers/params/: the defects the target found. Run again only to
change them.

    python3 tests/fuzz/tools/make_params_seeds.py"""
import json
import os
import struct

FUZZ = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(FUZZ, "corpus", "params")
REPRO = os.path.join(FUZZ, "reproducers", "params")
REAL, INT, BOOL, ENUM, STRING, VECTOR = range(6)
DERIVED, REQUIRED, FIXED = 1, 2, 4


def s(text):
    if text is None:
        return b"\0"
    b = text.encode()
    assert len(b) <= 31
    return bytes([len(b) + 1]) + b


def f(v):
    return b"\x80" + struct.pack("<d", v)


def entry(id_, type_, flags=0, d=0.0, lo=0.0, hi=0.0, unit="", doc="a parameter", choices=None, def_string=None):
    out = s(id_) + bytes([type_, flags]) + f(d) + f(lo) + f(hi) + s(unit) + s(doc)
    if choices is None:
        out += bytes([5])
    else:
        out += bytes([len(choices)]) + b"".join(s(c) for c in choices)
    return out + s(def_string)


def value(is_set=1, count=1, number=0.0, string=None, vector=(0.0, 0.0, 0.0)):
    return bytes([is_set, count & 0xFF]) + f(number) + s(string) + b"".join(f(x) for x in vector)


def seed(name, entries, values, layout=0, find="viscosity", section=None, opts=2, out=OUT):
    data = bytes([len(entries), layout]) + (bytes([40]) if layout % 4 == 3 else b"") + b"".join(entries) + s(find) + b"".join(values)
    data += bytes([opts]) + (json.dumps(section).encode() if section is not None else b"")
    with open(os.path.join(out, name), "wb") as fh:
        fh.write(data)


def main():
    os.makedirs(OUT, exist_ok=True)
    # sph_mueller-like: reals with units, a derived one, a required int.
    sph = [entry("viscosity", REAL, 0, 0.1, 0.0, 1e30, "Pa s", "dynamic viscosity"),
           entry("stiffness", REAL, 0, 400.0, 0.0, 1e30, "m^2/s^2", "gas constant"),
           entry("initial_sum", REAL, DERIVED, 0.0, 1e-30, 1e30, "1", "derived from the lattice"),
           entry("iterations", INT, REQUIRED | FIXED, 4.0, 1.0, 100.0, "1", "solver iterations")]
    sph_values = [value(number=0.2), value(number=1000.0), value(is_set=0), value(number=7.0)]
    seed("sph_like", sph, sph_values,
         section={"viscosity": 0.2, "stiffness": 1000, "iterations": 7})
    # tait-like: an enum given by name, a bool, a vector, a string.
    tait = [entry("boundary", ENUM, 0, 1.0, 0, 0, "", "wall model", ["ghost", "mirror", "repulsive"]),
            entry("xsph", BOOL, 0, 0.0, 0.0, 1.0, "", "velocity smoothing"),
            entry("origin", VECTOR, 0, 0.0, -10.0, 10.0, "m", "a point"),
            entry("label", STRING, 0, 0.0, 0.0, 16.0, "", "a label", None, "tait")]
    tait_values = [value(number=2.0, string="repulsive"), value(number=1.0),
                   value(count=3, number=1.0, vector=(1.0, 2.0, 3.0)), value(string="x")]
    seed("tait_like", tait, tait_values, layout=0x20, find="boundary", opts=3,
         section={"boundary": "mirror", "xsph": True, "origin": [1, 2, 3], "label": "run 1"})
    # An older minor's entries (no def_string) and a newer minor's (16 bytes more).
    seed("old_minor", sph[:2], sph_values[:2], layout=1, section={"viscosity": 0})
    seed("new_minor", tait, tait_values, layout=2, find="label", section={"boundary": 0, "label": ""})
    # Host keys beside the table's (a probe object: name, kind, reference).
    seed("probe_like", [entry("axis", ENUM, REQUIRED, 0.0, 0, 0, "", "axis", ["x", "y", "z"]),
                        entry("width", REAL, DERIVED, 0.0, 1e-30, 1e30, "m", "band width")],
         [value(number=1.0, string="y"), value(is_set=0)], find="axis", opts=6,
         section={"name": "front", "kind": "front", "axis": "x", "width": 0.01})
    # Tables the check refuses: a duplicate id, a default out of range, a bad id, an entry too short.
    seed("dup_id", [entry("a", REAL, 0, 0.5, 0, 1), entry("a", REAL, 0, 0.5, 0, 1)], [])
    seed("bad_default", [entry("a", INT, 0, 0.5, 0, 1)], [])
    seed("bad_id", [entry("Bad-Id", REAL, 0, 0.5, 0, 1)], [])
    seed("short_entry", [entry("a", REAL, 0, 0.5, 0, 1)], [], layout=3)
    # Found by the params target: eddy_param_default casts a VECTOR default to int64_t without the
    # range check the REAL/INT branch has (undefined behaviour for |def| >= 2^63; UBSan stops).
    os.makedirs(REPRO, exist_ok=True)
    seed("vector-default-1e300", [entry("origin", VECTOR, 0, 1e300, -1e308, 1e308, "m", "a point")],
         [value(count=3, vector=(0.0, 0.0, 0.0))], find="origin", section={"origin": [1, 2]}, out=REPRO)


if __name__ == "__main__":
    main()
