"""Bad input found by an adversarial sweep of the package (docs/python.md, "Values"): each gets a
TypeError, ValueError or eddy.Error naming the argument and the value before anything changes, not a
message that names nothing, an argument quietly read as something else, or an override lost."""
import os

import numpy as np
import pytest

import eddy
from conftest import SCENES

SCENE = os.path.join(SCENES, "dam_break_2d.json")


def raises_each(error, cases):
    """Every (call, message) of cases raises `error` with exactly that message."""
    for call, message in cases:
        with pytest.raises(error) as e:
            call()
        assert str(e.value) == message


def test_text_that_is_not_utf8_is_named():
    """A str with a lone surrogate (what os.fsdecode makes of a non-UTF-8 file name) raised a bare
    "'utf-8' codec can't encode character '\\udcff' in position 0: surrogates not allowed", naming no
    argument."""
    sim = eddy.Simulation(SCENE, formats=[])
    cases = [
        (lambda: eddy.Simulation(SCENE, solver="s\udcff"), "solver: 's\\udcff' is not valid UTF-8 text"),
        (lambda: eddy.Simulation(SCENE, grid="\udcff"), "grid: '\\udcff' is not valid UTF-8 text"),
        (lambda: eddy.Simulation(SCENE, out=b"o\xff"), "out: 'o\\udcff' is not valid UTF-8 text"),
        (lambda: eddy.Simulation("x\udcff.json"), "scene: 'x\\udcff.json' is not valid UTF-8 text"),
        (lambda: eddy.Simulation({"solver": "tait"}, name="n\udcff"), "name: 'n\\udcff' is not valid UTF-8 text"),
        (lambda: eddy.Simulation(SCENE, set=["name=\udcff"]), "set: 'name=\\udcff' is not valid UTF-8 text"),
        (lambda: eddy.Simulation(SCENE, formats=["\udcff"]), "formats: '\\udcff' is not valid UTF-8 text"),
        (lambda: eddy.Simulation.resume("r\udcff"), "resume: dir: 'r\\udcff' is not valid UTF-8 text"),
        (lambda: eddy.load_plugin("p\udcff.so"), "load_plugin: path: 'p\\udcff.so' is not valid UTF-8 text"),
        (lambda: eddy.compare(SCENE, ["\udcff"], out="o", steps=1),
         "compare: solvers: '\\udcff' is not valid UTF-8 text"),
        (lambda: sim.checkpoint("c\udcff"), "checkpoint: dir: 'c\\udcff' is not valid UTF-8 text"),
        (lambda: sim.field("\udcff"), "field: name: '\\udcff' is not valid UTF-8 text"),
    ]
    raises_each(ValueError, cases)
    assert sim.steps == 0


def test_a_field_name_of_a_wrong_type_is_named():
    """field() and by_id() gave C's messages: "argument 1 must be str, not None", "embedded null
    character"."""
    sim = eddy.Simulation(SCENE, formats=[])
    cases = [
        (lambda: sim.field(None), TypeError, "field: name must be a str, got NoneType None"),
        (lambda: sim.field(b"position"), TypeError, "field: name must be a str, got bytes b'position'"),
        (lambda: sim.field("position\0x"), ValueError, "field: name: embedded null character in 'position\\x00x'"),
        (lambda: sim.by_id(None), TypeError, "by_id: name must be a str, got NoneType None"),
    ]
    for call, cls, message in cases:
        with pytest.raises(cls) as e:
            call()
        assert str(e.value) == message


def test_overrides_in_bad_forms_are_refused():
    """set=b"time.end=0.1" was taken byte by byte ("--set '116': expected PATH=VALUE"), and a list item
    or dict key that is not a str was str()-ed (b'time.end=0.1' became "b'time.end=0.1'", None "None")."""
    cases = [
        (b"time.end=0.1", "set must be a dict {'dotted.path': value} or a list of 'path=value' strings, got bytes"),
        ([b"time.end=0.1"], "set: expected str items ('path=value'), got bytes b'time.end=0.1'"),
        ([None], "set: expected str items ('path=value'), got NoneType None"),
        ({b"time.end": 0.1}, "set: expected str keys (dotted paths), got bytes b'time.end'"),
    ]
    for bad, message in cases:
        with pytest.raises(TypeError) as e:
            eddy.Simulation(SCENE, formats=[], set=bad)
        assert str(e.value) == message
    # what stays accepted: one override as a str, a tuple, an iterator
    for good in ("time.end=0.1", ("time.end=0.1",), iter(["time.end=0.1"])):
        assert eddy.Simulation(SCENE, formats=[], set=good).info["end_time"] == 0.1


def test_compare_applies_overrides_given_as_an_iterator(tmp_path):
    """compare() read `set` three times (the scene check, the warnings, the comparison): an iterator or a
    generator was used up by the first, and the comparison ran without the overrides, silently."""
    kw = dict(out=str(tmp_path), steps=2)
    listed = eddy.compare(SCENE, ["tait"], set=["time.dt=0.00002"], **kw)
    assert listed["end_time"][0] == pytest.approx(4e-5)
    for it in (iter(["time.dt=0.00002"]), (s for s in ["time.dt=0.00002"])):
        assert eddy.compare(SCENE, ["tait"], set=it, **kw)["end_time"][0] == pytest.approx(4e-5)


def test_flags_are_true_or_false(tmp_path):
    """record=, write=, writable= were read by truthiness: run(write="false") wrote frames,
    field(writable="no") gave a writable view and measure("x") wrote a frame."""
    out = tmp_path / "out"
    sim = eddy.Simulation(SCENE, formats=["csv"], out=str(out))
    cases = [
        (lambda: sim.run(steps=5, write="false"), "run: write must be True or False, got str 'false'"),
        (lambda: sim.run(steps=5, record=None), "run: record must be True or False, got NoneType None"),
        (lambda: sim.run(steps=5, record=2), "run: record must be True or False, got int 2"),
        (lambda: sim.field("position", writable="no"), "field: writable must be True or False, got str 'no'"),
        (lambda: sim.measure("x"), "measure: write must be True or False, got str 'x'"),
    ]
    raises_each(TypeError, cases)
    assert sim.steps == 0
    assert not out.exists()
    # bools, NumPy bools and 0/1 stay flags
    assert sim.field("position", writable=np.bool_(True)).flags.writeable
    assert not sim.field("position", writable=0).flags.writeable
    assert len(sim.run(steps=1, record=1).diagnostics) == 2


def test_checkpoint_into_a_file_or_an_empty_path(tmp_path):
    """checkpoint() into a path that is a file raised "FileExistsError: [Errno 17] File exists", under a
    file "NotADirectoryError", and checkpoint("") "FileNotFoundError: ... ''"."""
    sim = eddy.Simulation(SCENE, formats=[])
    f = tmp_path / "file"
    f.write_text("keep")
    with pytest.raises(eddy.FileError) as e:
        sim.checkpoint(str(f))
    assert str(e.value) == f"checkpoint: '{f}' is not a folder (give the folder to write checkpoint.eddy into)"
    with pytest.raises(eddy.FileError) as e:
        sim.checkpoint(str(f / "sub"))
    assert str(e.value) == f"checkpoint: cannot make the folder '{f / 'sub'}': Not a directory"
    with pytest.raises(ValueError) as e:
        sim.checkpoint("")
    assert str(e.value) == "checkpoint: dir is empty (give the folder to write checkpoint.eddy into)"
    assert f.read_text() == "keep"
    assert sorted(os.listdir(tmp_path)) == ["file"]
