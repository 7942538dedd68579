"""The host's layers (docs/host.md): every #include "x.h" between host/ folders must point down the
order below, so there is no circle between folders. Prints the folder graph; exits 1 naming each
include that points up (or into a folder the order does not list). host/include/ holds the installed
headers of the session API (<eddy_host/...>), which programs outside eddy compile against: they may
include nothing of host/ (no quoted include), only <eddy/...> and the C library."""
import os
import re
import sys

ORDER = ["cli", "drive", "session", "viz", "observe", "scene"]  # top to bottom; the core is below all

root = sys.argv[1]
home = {}
for d in ORDER:
    for f in os.listdir(os.path.join(root, d)):
        if f.endswith(".h"):
            home[f] = d
bad, edges = [], {}
for d in sorted(os.listdir(root)):
    path = os.path.join(root, d)
    if not os.path.isdir(path):
        continue
    if d == "include":
        for sub, _, files in os.walk(path):
            for f in sorted(files):
                text = open(os.path.join(sub, f), encoding="utf-8").read()
                for inc in re.findall(r'#include "([^"]+)"', text):
                    bad.append(f"{os.path.relpath(os.path.join(sub, f), os.path.dirname(root))} includes \"{inc}\": "
                               "an installed header may include only <...> headers that are installed too")
        continue
    if d not in ORDER:
        bad.append(f"host/{d}/ is not a layer of docs/host.md")
        continue
    for f in sorted(os.listdir(path)):
        if not f.endswith((".c", ".h")):
            continue
        for inc in re.findall(r'#include "([^"]+)"', open(os.path.join(path, f), encoding="utf-8").read()):
            t = home.get(inc)
            if not t or t == d:
                continue
            edges.setdefault(d, set()).add(t)
            if ORDER.index(t) < ORDER.index(d):
                bad.append(f"host/{d}/{f} includes {inc} of host/{t}/, a layer above it")
for d in ORDER:
    print(f"{d} -> {' '.join(sorted(edges.get(d, ()))) or '(core only)'}")
for b in bad:
    print("error:", b)
sys.exit(1 if bad else 0)
