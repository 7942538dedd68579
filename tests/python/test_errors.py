"""Errors become exceptions carrying the core's message, never a crash: the text equals what the
`eddy` command prints after "eddy: error: " for the same input, and the class follows the status."""
import os
import re

import pytest

import eddy
from conftest import SCENES, run_eddy, run_python, test_plugins

SCENE = os.path.join(SCENES, "dam_break_2d.json")


def command_error(*args, env=None, until="0"):
    rc, _, err = run_eddy("run", *args, "--quiet", "--format", "csv", "--until", until, env=env)
    assert rc != 0
    line = [l for l in err.splitlines() if l.startswith("eddy: error: ")][-1]
    return line[len("eddy: error: "):]


def test_bad_scene_file_names_file_line_and_column(tmp_path):
    text = open(SCENE).read()
    assert text.count('"dt": 0.00005') == 1
    bad = tmp_path / "bad.json"
    bad.write_text(text.replace('"dt": 0.00005', '"dt": -1'))
    line = text[:text.index('"dt": 0.00005')].count("\n") + 1
    with pytest.raises(eddy.SceneError) as e:
        eddy.Simulation(bad)
    assert str(e.value) == command_error(str(bad), "--out", str(tmp_path / "o"))
    assert str(e.value).startswith(f"{bad}:{line}:")
    assert "time.dt" in str(e.value) and "-1" in str(e.value)
    assert e.value.code == -1 and e.value.status == "invalid argument"


def test_malformed_json(tmp_path):
    bad = tmp_path / "broken.json"
    bad.write_text('{ "name": "x", }')
    with pytest.raises(eddy.SceneError) as e:
        eddy.Simulation(bad)
    assert str(e.value) == command_error(str(bad), "--out", str(tmp_path / "o"))
    assert str(e.value).startswith(f"{bad}:1:")


def test_unknown_solver(tmp_path):
    with pytest.raises(eddy.NotFoundError) as e:
        eddy.Simulation(SCENE, solver="no_such_solver")
    assert str(e.value) == command_error(SCENE, "--solver", "no_such_solver", "--out", str(tmp_path))
    assert str(e.value).startswith(f"{SCENE}: unknown solver 'no_such_solver' (available: ")


def test_out_of_range_parameter(tmp_path):
    with pytest.raises(eddy.SceneError) as e:
        eddy.Simulation(SCENE, solver="tait", set={"solvers.tait.gamma": 11})
    assert str(e.value) == command_error(SCENE, "--solver", "tait", "--set", "solvers.tait.gamma=11",
                                         "--out", str(tmp_path))
    assert "solvers.tait.gamma" in str(e.value) and "11" in str(e.value)


def test_unknown_grid_and_bad_override_value(tmp_path):
    with pytest.raises(eddy.NotFoundError) as e:
        eddy.Simulation(SCENE, grid="no_grid")
    assert str(e.value) == command_error(SCENE, "--grid", "no_grid", "--out", str(tmp_path))
    with pytest.raises(eddy.SceneError) as e:
        eddy.Simulation(SCENE, set=["time.dt=abc"])
    assert str(e.value) == f'{SCENE}: time.dt: expected a number > 0, got "abc"'


def test_refused_plugin_and_explosion():
    # The registry reads EDDY_PLUGIN_PATH once, so this runs in an interpreter of its own.
    plugins = test_plugins()
    code = f"""
import eddy
refused = dict(eddy.refused_plugins())
print("REFUSED", refused[{plugins!r} + "/eddy_bad_major.so"])
try:
    eddy.load_plugin({plugins!r} + "/eddy_bad_major.so")
except eddy.PluginError as e:
    print("LOAD", e)
sim = eddy.Simulation({SCENE!r}, solver="exploding_solver", formats=[],
                      set={{"time.output_interval": 0.0005}})
try:
    sim.run(until=0.003)
except eddy.UnstableError as e:
    print("EXPLODED", sim.steps, e)
sim.step(0)
print("ALIVE")
"""
    p = run_python(code, env={"EDDY_PLUGIN_PATH": plugins}, timeout=60)
    assert p.returncode == 0, p.stderr
    lines = dict(l.split(" ", 1) for l in p.stdout.splitlines() if " " in l)
    assert re.fullmatch(r"ABI major version mismatch: plugin \d+\.\d+, host \d+\.\d+", lines["REFUSED"])
    assert lines["LOAD"] == f"{plugins}/eddy_bad_major.so: " + lines["REFUSED"]
    steps, message = lines["EXPLODED"].split(" ", 1)
    assert steps == "30"
    assert message == command_error(SCENE, "--solver", "exploding_solver", "--set",
                                    "time.output_interval=0.0005", "--out", "/tmp/eddy-py-explode",
                                    env={"EDDY_PLUGIN_PATH": plugins}, until="0.003")
    assert message.startswith("simulation exploded at step 30 (t = 0.0015 s): ")
    assert "ALIVE" in p.stdout
