"""The exact accumulator against Python's math.fsum, which rounds the exact sum of its terms once
(Shewchuk 1997, "Adaptive precision floating-point arithmetic"; CPython's msum): random sums over the
whole double range, cancellations and subnormals. Usage: xsum_fsum.py XSUM_CLI. Exits 1 naming the
first case whose sums differ."""
import math
import random
import struct
import subprocess
import sys

rng = random.Random(20261124)


def any_finite():
    while True:
        x = struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
        # Below 2^1000: fsum raises OverflowError on an intermediate beyond the largest double, which
        # the accumulator would carry exactly; those cases are tests/observe/test_exact_sum.c's.
        if math.isfinite(x) and abs(x) < 2.0**1000:
            return x


def near(e):
    return math.ldexp(rng.random() + 0.5, e) * rng.choice((-1.0, 1.0))


cases = []
for _ in range(3000):
    n = rng.randint(1, 60)
    kind = rng.randrange(4)
    if kind == 0:
        xs = [any_finite() for _ in range(n)]
    elif kind == 1:
        e = rng.randint(-1070, 920)
        xs = [near(rng.randint(e, e + 80)) for _ in range(n)]
    elif kind == 2:  # terms that cancel but for small rests
        xs = []
        for _ in range(n):
            a = near(rng.randint(-100, 990))
            xs += [a, -a, near(rng.randint(-1074, 0))]
    else:  # subnormals and the smallest normals
        xs = [near(rng.randint(-1074, -1020)) for _ in range(n)]
    rng.shuffle(xs)
    cases.append(xs)

text = "".join(" ".join(x.hex() for x in xs) + "\n" for xs in cases)
out = subprocess.run([sys.argv[1]], input=text, capture_output=True, text=True, check=True).stdout.split()
if len(out) != len(cases):
    sys.exit(f"xsum_fsum.py: {len(out)} sums for {len(cases)} cases")
for i, (xs, got) in enumerate(zip(cases, out)):
    want = math.fsum(xs) + 0.0
    if float.fromhex(got) != want or math.copysign(1, float.fromhex(got)) != math.copysign(1, want):
        sys.exit(f"xsum_fsum.py: case {i} ({len(xs)} terms, first {xs[0].hex()}): sum {got}, fsum {want.hex()}")
print(f"{len(cases)} random sums equal math.fsum's")
