#!/usr/bin/env python3
"""Writes tests/fuzz/reproducers/manifest/: one input of the manifest target per defect of the manifest
reader (host/session/checkpoint_resume.c) that the manifest campaign and its review found, each an edit
of the 3-process sph_mueller checkpoint of the corpus (tests/fuzz/corpus/manifest/sph2d_np3: the
manifest as rank 0 wrote it, then the pieces checkpoint.p0.eddy .. p2.eddy).

    python3 tests/fuzz/tools/make_manifest_reproducers.py

An input is `cat checkpoint.manifest checkpoint.p0.eddy ...`; to resume one outside the target, split
it at each "EDDYCKPT" (the pieces keep a valid checksum here):

    python3 -c 'import sys; d=open(sys.argv[1],"rb").read().split(b"EDDYCKPT"); open("checkpoint.manifest","wb").write(d[0]);
    [open("checkpoint.p%d.eddy" % k,"wb").write(b"EDDYCKPT"+p) for k,p in enumerate(d[1:])]' INPUT

The files are committed; run this again only to change them."""
import os
import struct

import ckpt

HERE = os.path.dirname(os.path.abspath(__file__))
FUZZ = os.path.dirname(HERE)
SEED = os.path.join(FUZZ, "corpus", "manifest", "sph2d_np3")
OUT = os.path.join(FUZZ, "reproducers", "manifest")
MAGIC = b"EDDYCKPT"
CUTS = "[0.024999998509883881, 0.044999998062849045]"


def split(data):
    parts = data.split(MAGIC)
    return parts[0].decode(), [MAGIC + p for p in parts[1:]]


def edit(text, old, new):
    assert old in text, old
    return text.replace(old, new, 1)


def piece_settings(piece, change):
    """The piece with its settings changed by change(settings), written back with a valid checksum."""
    tmp = os.path.join(OUT, ".piece.tmp")
    with open(tmp, "wb") as f:
        f.write(piece)
    ck = ckpt.read(tmp)
    os.remove(tmp)
    change(ck["settings"])
    return ckpt.dumps(ck)


def main():
    manifest, pieces = split(open(SEED, "rb").read())
    os.makedirs(OUT, exist_ok=True)
    cases = {
        # Each was refused as "checkpoint manifest '...' is corrupt", without saying what is wrong.
        "manifest-truncated": manifest[: manifest.index('"processes"') + 5],
        "manifest-processes-2.5": edit(manifest, '"processes":\t3', '"processes":\t2.5'),
        "manifest-cuts-one-short": edit(manifest, CUTS, "[0.024999998509883881]"),
        # A manifest whose "step" is missing: every piece was refused as not of the manifest ("expected
        # piece 0 of 3 at step nan"), where the manifest is what is wrong.
        "manifest-step-missing": edit(manifest, '\t"step":\t3,\n', ""),
        # Cuts that are not numbers, not finite or decreasing: accepted on one process (cuts were only
        # counted) and, for a cut that is not a number, refused as "corrupt" on as many processes as
        # the manifest names; an infinite or decreasing cut was armed as the run's slabs.
        "manifest-cut-string": edit(manifest, CUTS, '[0.024999998509883881, "0.045"]'),
        "manifest-cut-inf": edit(manifest, CUTS, "[0.024999998509883881, 1e999]"),
        "manifest-cuts-decreasing": edit(manifest, CUTS, "[0.044999998062849045, 0.024999998509883881]"),
        # Finite cuts in order that are not the run's (the pieces hold theirs): accepted and armed as the
        # slabs of a resume on 3 processes, which then blamed the pieces for particles outside them.
        "manifest-cuts-edited": edit(manifest, CUTS, "[0.03, 0.04]"),
        # A rebalance count or floor that is not one: silently taken as 0 (an infinite floor as it is,
        # which turns rebalancing off for the rest of the run).
        "manifest-rebalances-minus-2": edit(manifest, '"rebalances":\t0', '"rebalances":\t-2'),
        "manifest-imbalance-floor-inf": edit(manifest, '"imbalance_floor":\t0', '"imbalance_floor":\t1e999'),
    }
    for name, text in cases.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(text.encode() + b"".join(pieces))
    # A piece without its "piece" number: "does not match the manifest (piece nan of 3 at step 3; ...)".
    no_number = pieces[:1] + [piece_settings(pieces[1], lambda s: s.pop("piece"))] + pieces[2:]
    with open(os.path.join(OUT, "piece-without-piece-number"), "wb") as f:
        f.write(manifest.encode() + b"".join(no_number))
    # Piece 0 of a format version this eddy does not read: its head alone (eddy_checkpoint_peek) said only
    # "'.../checkpoint.p0.eddy' is not a readable eddy checkpoint", never which version it is.
    p0 = bytearray(pieces[0])
    p0[8:12] = struct.pack("<I", 7)
    p0[-8:] = struct.pack("<Q", ckpt.fnv1a(bytes(p0[:-8])))
    with open(os.path.join(OUT, "piece0-format-version-7"), "wb") as f:
        f.write(manifest.encode() + bytes(p0) + b"".join(pieces[1:]))


if __name__ == "__main__":
    main()
