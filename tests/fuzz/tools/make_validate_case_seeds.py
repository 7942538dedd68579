#!/usr/bin/env python3
"""Writes tests/fuzz/corpus/validate_case/: every validation case (validation/cases/*.json) and every
case `eddy validate` must refuse (tests/validate/bad/cases/*.json), each followed by the files it names
in the validate_case target's format (tests/fuzz/fuzz_validate_case.c): a line "--- data/NAME" or
"--- scenes/NAME", then the file's text. The cases' references and scenes are renamed to "../data/NAME"
and "../scenes/NAME" (the bad cases name them through "../../../../validation/"), which is where the
target writes them. Run again when a case changes.

    python3 tests/fuzz/tools/make_validate_case_seeds.py"""
import glob
import json
import os

FUZZ = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(os.path.dirname(FUZZ))
OUT = os.path.join(FUZZ, "corpus", "validate_case")
VALIDATION = os.path.join(ROOT, "validation")


def seed(path, prefix):
    with open(path, "rb") as f:
        text = f.read()
    text = text.replace(b"../../../../validation/data/", b"../data/")
    text = text.replace(b"../../../../validation/scenes/", b"../scenes/")
    case = json.loads(text)
    files = []
    scene = case.get("scene", "")
    if scene.startswith("../scenes/"):
        files.append(("scenes", scene[len("../scenes/"):]))
    for check in case.get("checks", []):
        ref = check.get("reference") if isinstance(check, dict) else None
        name = ref.get("file", "") if isinstance(ref, dict) else ""
        if name.startswith("../data/") and ("data", name[len("../data/"):]) not in files:
            files.append(("data", name[len("../data/"):]))
    assert len(files) <= 4, path
    if not text.endswith(b"\n"):
        text += b"\n"
    for folder, name in files:
        with open(os.path.join(VALIDATION, folder, name), "rb") as f:
            body = f.read()
        text += b"--- " + f"{folder}/{name}".encode() + b"\n" + body
    out = os.path.join(OUT, prefix + os.path.basename(path))
    with open(out, "wb") as f:
        f.write(text)


def main():
    os.makedirs(OUT, exist_ok=True)
    for path in sorted(glob.glob(os.path.join(VALIDATION, "cases", "*.json"))):
        seed(path, "")
    for path in sorted(glob.glob(os.path.join(ROOT, "tests", "validate", "bad", "cases", "*.json"))):
        seed(path, "bad-")


if __name__ == "__main__":
    main()
