#!/usr/bin/env python3
"""An independent reader for eddy's VTK XML PolyData frames (Python standard library only).

    check_vtp.py [--expect EXPECTED.json] PATH...

PATH is a .vtp file or a .pvd series (every frame it lists is checked, and the series itself: a
Collection whose DataSet files exist, with increasing timesteps). For every frame it checks the VTK
layout that ParaView relies on: NumberOfPoints, one vertex cell per point (connectivity 0..N-1, offsets
1..N), format="binary" arrays whose UInt32 byte-count header is its own base64 run and matches the
decoded payload, that every array holds N * components values of its declared type, that the id
array is UInt32 when every id fits in 32 bits and UInt64 when one does not, and that the file carries
its time and step as FieldData (one Float64 "TimeValue", the name ParaView reads as the data set's
time, and one UInt64 "step"); in a series, each frame's TimeValue must be the time frames.pvd gives it.

With --expect (written by tests/test_output.c), every frame must also carry exactly the expected
particles, in increasing id order: positions and velocities equal to the simulation-unit values
divided by the simulation scale in float32 arithmetic (bit for bit), and density, pressure, material
and every registered field equal to the given values. Exit status 0 when all checks pass, 1 otherwise.
"""

import base64
import json
import os
import struct
import sys
import xml.etree.ElementTree as ET

TYPES = {"Float32": ("f", 4), "Float64": ("d", 8), "Int32": ("i", 4), "UInt32": ("I", 4),
         "Int64": ("q", 8), "UInt64": ("Q", 8), "UInt8": ("B", 1), "Int8": ("b", 1)}


class CheckError(Exception):
    pass


def require(cond, message):
    if not cond:
        raise CheckError(message)


def f32(x):
    """x rounded to float32, as a Python float."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def decode_array(el, where):
    """Decodes one format="binary" DataArray: (values as a flat list, components)."""
    name = el.get("Name")
    require(el.get("format") == "binary", f"{where}: array {name}: format is {el.get('format')!r}, not 'binary'")
    type_name = el.get("type")
    require(type_name in TYPES, f"{where}: array {name}: unknown type {type_name!r}")
    code, size = TYPES[type_name]
    text = "".join((el.text or "").split())
    # The header is 4 bytes, so its own base64 run is exactly 8 characters ending in "==".
    require(len(text) >= 8 and text[6:8] == "==", f"{where}: array {name}: no separately encoded UInt32 header")
    (count,) = struct.unpack("<I", base64.b64decode(text[:8], validate=True))
    payload = base64.b64decode(text[8:], validate=True)
    require(count == len(payload), f"{where}: array {name}: header says {count} bytes, payload has {len(payload)}")
    require(len(payload) % size == 0, f"{where}: array {name}: {len(payload)} bytes is not a whole number of {type_name}")
    values = list(struct.unpack(f"<{len(payload) // size}{code}", payload))
    components = int(el.get("NumberOfComponents", "1"))
    return values, components


def field_data(root, where):
    """The frame's FieldData: {"TimeValue": float, "step": int}, each array one ascii tuple."""
    blocks = root.findall("./PolyData/FieldData")
    require(len(blocks) == 1, f"{where}: expected one FieldData in PolyData (the frame's time), found {len(blocks)}")
    found = {}
    for el in blocks[0].findall("./DataArray"):
        found[el.get("Name")] = el
    out = {}
    for name, type_name, parse in (("TimeValue", "Float64", float), ("step", "UInt64", int)):
        require(name in found, f"{where}: FieldData has no array {name}")
        el = found[name]
        require(el.get("type") == type_name and el.get("NumberOfTuples") == "1" and el.get("format") == "ascii",
                f"{where}: FieldData {name}: type {el.get('type')!r}, tuples {el.get('NumberOfTuples')!r}, "
                f"format {el.get('format')!r}; expected {type_name}, 1, ascii")
        words = (el.text or "").split()
        require(len(words) == 1, f"{where}: FieldData {name}: {len(words)} values, expected 1")
        out[name] = parse(words[0])
    require(out["step"] >= 0 and out["TimeValue"] >= 0, f"{where}: negative time or step {out}")
    return out


def check_frame(path, expected, time=None):
    where = path
    root = ET.parse(path).getroot()
    require(root.tag == "VTKFile" and root.get("type") == "PolyData", f"{where}: not a VTKFile of type PolyData")
    clock = field_data(root, where)
    # frames.pvd writes the time with 12 significant digits; the frame's own TimeValue has all 17.
    require(time is None or abs(clock["TimeValue"] - time) <= 1e-11 * max(1.0, abs(time)),
            f"{where}: TimeValue {clock['TimeValue']!r}, but frames.pvd gives its time as {time!r}")
    require(root.get("byte_order") == "LittleEndian", f"{where}: byte_order is {root.get('byte_order')!r}")
    require(root.get("header_type") == "UInt32", f"{where}: header_type is {root.get('header_type')!r}")
    pieces = root.findall("./PolyData/Piece")
    require(len(pieces) == 1, f"{where}: expected one Piece, found {len(pieces)}")
    piece = pieces[0]
    n = int(piece.get("NumberOfPoints"))
    require(int(piece.get("NumberOfVerts", "0")) == n, f"{where}: NumberOfVerts is not NumberOfPoints ({n})")

    arrays = {}
    for el in piece.findall("./PointData/DataArray"):
        name = el.get("Name")
        require(name not in arrays, f"{where}: array {name} appears twice")
        values, comps = decode_array(el, where)
        require(len(values) == n * comps,
                f"{where}: array {name}: {len(values)} values, expected {n} x {comps}")
        arrays[name] = (el.get("type"), comps, values)
    # Ids are 64-bit; the array is UInt32 while every id fits (the files of ABI 1.x), UInt64 otherwise.
    require("id" in arrays, f"{where}: no point data array id")
    id_type = "UInt64" if any(i > 0xFFFFFFFF for i in arrays["id"][2]) else "UInt32"
    for name, type_name, comps in (("id", id_type, 1), ("material", "UInt32", 1), ("velocity", "Float32", 3),
                                   ("density", "Float32", 1), ("pressure", "Float32", 1)):
        require(name in arrays, f"{where}: no point data array {name}")
        require(arrays[name][:2] == (type_name, comps),
                f"{where}: array {name} is {arrays[name][:2]}, expected {(type_name, comps)}")

    points = piece.findall("./Points/DataArray")
    require(len(points) == 1, f"{where}: expected one Points array")
    pos, comps = decode_array(points[0], where)
    require(points[0].get("type") == "Float32" and comps == 3 and len(pos) == 3 * n,
            f"{where}: Points must be Float32 x 3 for {n} points")

    cells = {el.get("Name"): el for el in piece.findall("./Verts/DataArray")}
    require("connectivity" in cells and "offsets" in cells, f"{where}: Verts needs connectivity and offsets")
    conn, _ = decode_array(cells["connectivity"], where)
    offs, _ = decode_array(cells["offsets"], where)
    require(conn == list(range(n)), f"{where}: connectivity is not 0..{n - 1}")
    require(offs == list(range(1, n + 1)), f"{where}: offsets are not 1..{n}")

    ids = arrays["id"][2]
    require(ids == sorted(ids) and len(set(ids)) == n, f"{where}: ids are not unique and increasing")

    if expected is not None:
        check_values(where, expected, n, arrays, pos)
    return n


def check_values(where, expected, n, arrays, pos):
    scale = f32(expected["simulation_scale"])
    parts = expected["particles"]
    require(n == len(parts), f"{where}: {n} points, expected {len(parts)}")
    if parts:
        names = {"id", "material", "velocity", "density", "pressure"} | set(parts[0]["fields"])
        require(set(arrays) == names, f"{where}: arrays {sorted(arrays)}, expected {sorted(names)}")

    def same(got, want, what):
        # Exact: both sides are float32 values; compare their bit patterns (so -0.0 != 0.0 too).
        if struct.pack("<f", got) != struct.pack("<f", want):
            raise CheckError(f"{where}: {what}: got {got!r}, expected {want!r}")

    for k, p in enumerate(parts):
        require(arrays["id"][2][k] == p["id"], f"{where}: point {k}: id {arrays['id'][2][k]}, expected {p['id']}")
        require(arrays["material"][2][k] == p["material"], f"{where}: point {k}: wrong material")
        for c in range(3):
            # float32 division, done in double and rounded once: exact for division (53 >= 2 * 24 + 2).
            same(pos[3 * k + c], f32(f32(p["position"][c]) / scale), f"position[{k}][{c}] (world units)")
            same(arrays["velocity"][2][3 * k + c], f32(f32(p["velocity"][c]) / scale), f"velocity[{k}][{c}]")
        same(arrays["density"][2][k], f32(p["density"]), f"density[{k}]")
        same(arrays["pressure"][2][k], f32(p["pressure"]), f"pressure[{k}]")
        for name, values in p["fields"].items():
            comps = arrays[name][1]
            require(comps == len(values), f"{where}: field {name} has {comps} components, expected {len(values)}")
            for c, v in enumerate(values):
                same(arrays[name][2][comps * k + c], f32(v), f"{name}[{k}][{c}]")


def frames_of(path):
    """(frame file, its time in the series or None) for a .vtp or every frame of a .pvd."""
    if not path.endswith(".pvd"):
        return [(path, None)]
    root = ET.parse(path).getroot()
    require(root.tag == "VTKFile" and root.get("type") == "Collection", f"{path}: not a VTKFile Collection")
    base = os.path.dirname(path)
    files, last = [], None
    for ds in root.findall("./Collection/DataSet"):
        t = float(ds.get("timestep"))
        require(last is None or t > last, f"{path}: timesteps do not increase at {t}")
        last = t
        f = os.path.join(base, ds.get("file"))
        require(os.path.isfile(f), f"{path}: listed frame {ds.get('file')} does not exist")
        files.append((f, t))
    require(files, f"{path}: the series lists no frames")
    return files


def main(argv):
    args = argv[1:]
    expected = None
    if len(args) >= 2 and args[0] == "--expect":
        with open(args[1]) as f:
            # parse_int=float keeps the sign of "-0" (a float32 -0.0 written with %.9g).
            expected = json.load(f, parse_int=float)
        args = args[2:]
    if not args:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        for path in args:
            for frame, t in frames_of(path):
                n = check_frame(frame, expected, t)
                print(f"ok {frame}: {n} points")
    except (CheckError, OSError, ET.ParseError, ValueError, KeyError) as e:
        print(f"check_vtp: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
