"""Reads and writes eddy checkpoint files (host/session/checkpoint.c, format 2; float reals) for the fuzz
corpus and the reproducers: a checkpoint as a dict that can be edited and written back with a correct
length and checksum."""
import json
import struct

MAGIC = b"EDDYCKPT"
BOM = 0x01020304
COLLIDER_REALS = 3 + 3 + 3 + 3 + 3 + 1 + 3  # point, normal, min, max, center, radius, velocity


def fnv1a(data):
    h = 0xcbf29ce484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h


class Reader:
    def __init__(self, data, at):
        self.data, self.at = data, at

    def take(self, n):
        b = self.data[self.at:self.at + n]
        if len(b) != n:
            raise ValueError("truncated")
        self.at += n
        return b

    def u32(self):
        return struct.unpack("<I", self.take(4))[0]

    def u64(self):
        return struct.unpack("<Q", self.take(8))[0]

    def f64(self):
        return struct.unpack("<d", self.take(8))[0]


def read(path):
    data = open(path, "rb").read()
    if data[:8] != MAGIC:
        raise ValueError("not a checkpoint")
    fmt, bom, payload = struct.unpack("<IIQ", data[8:24])
    r = Reader(data, 24)
    settings = json.loads(r.take(r.u32()).decode())
    ck = {"format": fmt, "settings": settings, "time": r.f64(), "step": r.u64(), "colliders": []}
    for _ in range(r.u64()):
        shape = r.u32()
        reals = list(struct.unpack("<%df" % COLLIDER_REALS, r.take(4 * COLLIDER_REALS)))
        ck["colliders"].append({"shape": shape, "reals": reals})
    n = r.u64()
    real_size = r.u32() if fmt >= 2 else 4
    nf = r.u32()
    ck["count"], ck["real_size"], ck["fields"] = n, real_size, []
    for _ in range(nf):
        name = r.take(r.u32()).decode()
        comps = r.u32()
        ck["fields"].append({"name": name, "components": [r.take(n * real_size) for _ in range(comps)]})
    ids = "<%dQ" % n if fmt >= 2 else "<%dI" % n
    ck["ids"] = list(struct.unpack(ids, r.take(struct.calcsize(ids))))
    ck["materials"] = list(struct.unpack("<%dI" % n, r.take(4 * n)))
    ck["blob"] = r.take(r.u64())
    return ck


def dumps(ck):
    text = json.dumps(ck["settings"], separators=(",", ":"), allow_nan=True).encode()
    p = struct.pack("<I", len(text)) + text
    p += struct.pack("<dQ", ck["time"], ck["step"])
    p += struct.pack("<Q", len(ck["colliders"]))
    for c in ck["colliders"]:
        p += struct.pack("<I", c["shape"]) + struct.pack("<%df" % COLLIDER_REALS, *c["reals"])
    n = ck["count"]
    if ck["format"] >= 2:
        p += struct.pack("<QII", n, ck["real_size"], len(ck["fields"]))
    else:  # format 1: no size of a real, 32-bit ids
        p += struct.pack("<QI", n, len(ck["fields"]))
    for f in ck["fields"]:
        name = f["name"].encode()
        p += struct.pack("<I", len(name)) + name + struct.pack("<I", len(f["components"]))
        for comp in f["components"]:
            p += comp
    p += struct.pack(("<%dQ" if ck["format"] >= 2 else "<%dI") % n, *ck["ids"])
    p += struct.pack("<%dI" % n, *ck["materials"])
    p += struct.pack("<Q", len(ck["blob"])) + ck["blob"]
    head = MAGIC + struct.pack("<IIQ", ck["format"], BOM, len(p))
    body = head + p
    return body + struct.pack("<Q", fnv1a(body))


def write(path, ck):
    with open(path, "wb") as f:
        f.write(dumps(ck))
