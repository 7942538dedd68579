"""The stub python/eddy/_eddy.pyi says what the extension takes: every function and Core method it
lists exists with the same parameter names, the same positional-only ones and the same defaults
present, and every one the extension has is listed. (The stub let `field(name, writable=True)` and
`measure(write=True)` be passed by keyword, which the extension refused: "takes no keyword
arguments".)"""
import ast
import inspect
import os

import pytest

import eddy
from conftest import SCENES, SOURCE
from eddy import _eddy

STUB = os.path.join(SOURCE, "python", "eddy", "_eddy.pyi")


def stub_defs():
    """{"name" or "Core.name": [(param, kind, has_default)]} from the stub, self left out."""
    tree = ast.parse(open(STUB).read())
    out = {}

    def params(f):
        a = f.args
        pos = a.posonlyargs + a.args
        first_default = len(pos) - len(a.defaults)
        ps = [(p.arg, "POSITIONAL_ONLY" if i < len(a.posonlyargs) else "POSITIONAL_OR_KEYWORD", i >= first_default)
              for i, p in enumerate(pos)]
        ps += [(p.arg, "KEYWORD_ONLY", d is not None) for p, d in zip(a.kwonlyargs, a.kw_defaults)]
        return [p for p in ps if p[0] != "self"]
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            out[node.name] = params(node)
        elif isinstance(node, ast.ClassDef) and node.name == "Core":
            for f in node.body:
                if isinstance(f, ast.FunctionDef):
                    out[f"Core.{f.name}"] = params(f)
    return out


def real_defs():
    out = {}

    def params(fn, method):
        ps = list(inspect.signature(fn).parameters.values())
        if method:
            ps = ps[1:]
        return [(p.name, p.kind.name, p.default is not inspect.Parameter.empty) for p in ps]
    for name, fn in vars(_eddy).items():
        if callable(fn) and not isinstance(fn, type) and not name.startswith("__"):
            out[name] = params(fn, False)
    for name, fn in vars(_eddy.Core).items():
        if callable(fn) and not name.startswith("__"):
            out[f"Core.{name}"] = params(fn, True)
    return out


def test_the_stub_lists_every_call_of_the_extension():
    assert sorted(stub_defs()) == sorted(real_defs())


@pytest.mark.parametrize("name", sorted(stub_defs()))
def test_each_signature_of_the_stub_is_the_extensions(name):
    assert stub_defs()[name] == real_defs()[name]


def test_the_keywords_the_stub_allows_are_taken():
    sim = eddy.Simulation(os.path.join(SCENES, "dam_break_2d.json"), formats=[])
    core = sim._core
    # positional-only in the stub: a keyword is refused, as the stub says
    with pytest.raises(TypeError, match="takes no keyword arguments"):
        core.field(name="position")
    # keywords the stub allows, None for `sets` among them
    assert core.run(end_steps=0, record=False)[0] is True
    assert _eddy.open(scene_path=sim.info["file"], formats=[], sets=None).state()["step"] == 0
