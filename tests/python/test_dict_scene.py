"""What a user's trial of dict scenes found (docs/python.md, "Values"): a NaN or infinity is refused
before the scene is serialized, naming its key path; a probe's relative reference file that a dict
scene cannot find says where such names start from and how to choose it (name=); JSON text given as
`scene` is told apart from a file name; compare() takes a dict scene as Simulation does."""
import json
import math
import os

import numpy as np
import pytest

import eddy
from conftest import SCENES

SCENE = os.path.join(SCENES, "tait_dam_break_2d.json")


def scene():
    with open(SCENE) as f:
        return json.load(f)


@pytest.mark.parametrize("edit, message", [
    (lambda s: s["time"].update(dt=float("nan")), 'scene["time"]["dt"]: expected a finite number, got nan'),
    (lambda s: s["world"].update(gravity=np.array([0.0, -np.inf])),
     'scene["world"]["gravity"][1]: expected a finite number, got -inf'),
    (lambda s: s["fluids"][0]["box"].update(max=[0.1, np.float32("inf")]),
     'scene["fluids"][0]["box"]["max"][1]: expected a finite number, got inf'),
])
def test_non_finite_numbers_are_named_by_key_path(edit, message, tmp_path):
    s = scene()
    edit(s)
    with pytest.raises(ValueError) as e:
        eddy.Simulation(s, name=SCENE, out=str(tmp_path))
    assert str(e.value) == message


def test_non_finite_override_is_named():
    with pytest.raises(ValueError) as e:
        eddy.Simulation(SCENE, set={"time.dt": math.inf})
    assert str(e.value) == 'set["time.dt"]: expected a finite number, got inf'


def test_relative_reference_file_says_where_it_starts(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(eddy.SceneError) as e:
        eddy.Simulation(scene())
    note = (f" (a dict scene's relative file names start from the current folder, '{tmp_path}', as no name= was "
            f"given; pass as name= the path of the file the dict was read from, or give absolute file names)")
    msg = str(e.value)
    assert msg.startswith("scene.json:") and msg.endswith(
        "probes[0].reference.file: cannot read 'data/martin_moyce_1952_front.csv': No such file or directory" + note)
    assert e.value.code == -1   # still the core's error, with its code
    with pytest.raises(eddy.SceneError) as e:
        eddy.Simulation(scene(), name="sub/s.json")
    assert str(e.value).endswith(
        f"cannot read 'sub/data/martin_moyce_1952_front.csv': No such file or directory (a dict scene's relative "
        f"file names start from the folder of its name= 'sub/s.json', '{tmp_path / 'sub'}'; pass as name= the path "
        f"of the file the dict was read from, or give absolute file names)")
    sim = eddy.Simulation(scene(), name=SCENE, out=str(tmp_path / "out"))   # the file the dict came from
    assert sim.probes[0].reference.file == os.path.join(SCENES, "data", "martin_moyce_1952_front.csv")
    sim.close()


def test_json_text_is_not_a_file_name(tmp_path):
    text = json.dumps(scene())
    with pytest.raises(ValueError) as e:
        eddy.Simulation(text)
    assert str(e.value) == "scene: got JSON text; pass a dict (json.loads(text)) or a path"
    with pytest.raises(ValueError) as e:
        eddy.compare("  " + text, ["tait"], out=str(tmp_path / "c"))
    assert str(e.value) == "compare: scene: got JSON text; pass a dict (json.loads(text)) or a path"
    assert not os.path.exists(tmp_path / "c")


def test_compare_takes_a_dict_scene_as_its_file(tmp_path):
    """compare() takes a dict as Simulation does: with name= the file it came from, the same comparison
    as of the file, figure for figure (its relative reference file found); without it, the relative
    file is looked for from the current folder, and the message says so."""
    cols = ("end_time", "steps", "particles", "density_error_mean", "density_error_max", "kinetic_energy_end",
            "front", "front_reference_rms")
    a = eddy.compare(SCENE, ["tait"], steps=20, out=str(tmp_path / "file"))
    b = eddy.compare(scene(), ["tait"], steps=20, out=str(tmp_path / "dict"), name=SCENE)
    for col in cols:
        assert a[col][0] == b[col][0] or (math.isnan(a[col][0]) and math.isnan(b[col][0])), col
    with open(tmp_path / "dict" / "summary.md") as f:
        assert f"Scene `{SCENE}` (given as text)," in f.read()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    here = os.getcwd()
    os.chdir(elsewhere)
    try:
        with pytest.raises(eddy.Error) as e:
            eddy.compare(scene(), ["tait"], steps=2, out=str(tmp_path / "nameless"))
    finally:
        os.chdir(here)
    assert "probes[0].reference.file: cannot read 'data/martin_moyce_1952_front.csv'" in str(e.value)
    assert (f"(a dict scene's relative file names start from the current folder, '{elsewhere}', as no name= was "
            "given; pass as name= the path of the file the dict was read from, or give absolute file names)") \
        in str(e.value)
    with pytest.raises(ValueError) as e:
        eddy.compare(SCENE, ["tait"], name="x.json")
    assert str(e.value) == ("compare: name: only a dict scene takes a name (a scene file is named by its path), "
                            "got name='x.json' with a scene file")

def test_compare_refuses_a_solver_listed_twice(tmp_path):
    """As `eddy compare --solvers tait,tait` refuses it; the package's comparison said the solver's folder
    was in use by another eddy run (it was its own)."""
    with pytest.raises(ValueError) as e:
        eddy.compare(SCENE, ["tait", "tait"], out=str(tmp_path / "c"), steps=2)
    assert str(e.value) == "compare: solvers lists 'tait' twice"
    assert not os.path.exists(tmp_path / "c")
