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
    assert str(e.value).startswith("unknown solver 'no_such_solver' (available: ")


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
    assert str(e.value) == '--set \'time.dt=abc\': time.dt: expected a number > 0, got "abc"'


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
try:
    sim.step(1)
except eddy.UnstableError as e:
    print("AGAIN", sim.steps, repr(sim.time), e)
"""
    p = run_python(code, env={"EDDY_PLUGIN_PATH": plugins}, timeout=60)
    assert p.returncode == 0, p.stderr
    lines = dict(l.split(" ", 1) for l in p.stdout.splitlines() if " " in l)
    assert re.fullmatch(r"ABI major version mismatch: plugin \d+\.\d+, host \d+\.\d+ \(built for a newer eddy: .*\)", lines["REFUSED"])
    assert lines["LOAD"] == f"{plugins}/eddy_bad_major.so: " + lines["REFUSED"]
    steps, message = lines["EXPLODED"].split(" ", 1)
    assert steps == "30"
    assert message == command_error(SCENE, "--solver", "exploding_solver", "--set",
                                    "time.output_interval=0.0005", "--out", "/tmp/eddy-py-explode",
                                    env={"EDDY_PLUGIN_PATH": plugins}, until="0.003")
    # The whole message, naming the solver (a comparison's runs differ by it alone).
    # The step began calm (9.81 * 29 * 5e-5 = 0.0142 m/s, 1.4e-4 smoothing radii of 0.005 m per step).
    assert message == ("simulation exploded at step 30 (t = 0.0015 s) with solver 'exploding_solver': a particle "
                       "velocity is NaN (particle id 0); the step began calm (largest speed 0.0142 sim units/s, "
                       "0.00014 smoothing radii per step), so look first for a division by zero or an unset value "
                       "in the solver's step (docs/plugin-guide.md, \"Error reporting\"); else lower the time step, "
                       "stiffness, gravity or viscosity")
    assert "ALIVE" in p.stdout
    # Stepping on from the refused state (it exploded on frame 3's time, 0.0015 s) takes a whole step
    # towards frame 4: it took steps of length 0 that counted steps on a clock standing still.
    steps, time, message = lines["AGAIN"].split(" ", 2)
    assert steps == "31"
    assert float(time) == pytest.approx(0.00155, rel=1e-12)
    assert message.startswith("simulation exploded at step 31 (t = 0.00155 s) with solver 'exploding_solver': ")


def test_values_the_command_refuses_are_refused_here():
    """What `eddy` refuses on its command line raises here, naming the value, instead of crashing
    (threads=100000 crashed in libgomp), running forever (until=inf) or doing something else (nan ran
    to the scene's end, 2.7 steps ran 2, a string of solver ids compared its letters)."""
    import numpy as np
    with pytest.raises(ValueError, match=r"^threads must be 0 \(the default\) or 1 to 4096, got 100000$"):
        eddy.Simulation(SCENE, threads=100000)
    with pytest.raises(ValueError, match=r"got -1$"):
        eddy.Simulation(SCENE, threads=-1)
    sim = eddy.Simulation(SCENE)
    with pytest.raises(ValueError, match=r"^step: n must be a whole number, got 2.7$"):
        sim.step(2.7)
    for bad in (float("inf"), float("nan"), -1):
        with pytest.raises(ValueError, match=r"^run: until must be a finite time >= 0 in seconds, got "):
            sim.run(until=bad)
    assert sim.steps == 0
    with pytest.raises(TypeError, match=r"^compare: solvers must be a list of solver ids, got the string 'tait'"):
        eddy.compare(SCENE, "tait")
    # NumPy numbers are JSON numbers in overrides, as a NumPy user passes them.
    sim = eddy.Simulation(SCENE, set={"time.output_interval": np.float32(0.001), "world.threads": np.int64(1)})
    assert sim.step(1)


def test_one_thread_steps_at_a_time_and_callbacks_do_not_step():
    """A Simulation stepping in one thread is refused to the others (it segfaulted or mixed ids up),
    and a step from its own on_frame callback is refused (it moved the clock under the run's plan)."""
    import threading
    sim = eddy.Simulation(SCENE)

    def reenter(frame):
        if frame == 1:
            sim.step(1)
    with pytest.raises(eddy.Error, match=r"^step: called while this thread is already stepping"):
        sim.run(steps=400, on_frame=reenter)
    refused = []

    def worker():
        try:
            for _ in range(100):
                sim.step(1)
                sim.field("position")
        except eddy.Error as e:
            refused.append(str(e))
    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert all(m in ("the simulation is stepping in another thread; use a Simulation from one thread at a "
                     "time", "step: another thread is stepping a simulation; one steps at a time per process")
               for m in refused), refused
    # Whatever interleaving happened, the state is one a single thread reaches in as many steps.
    one = eddy.Simulation(SCENE)
    one.step(sim.steps)
    assert one.hash() == sim.hash()


def test_a_callback_that_raises_leaves_a_state_that_steps_on():
    """An exception from on_frame ends the run at the frame it was landed on; the next step goes on
    from there as one uninterrupted stepping does (the frame was not counted, and the next step aimed
    at the time already reached: a step of length 0, and every later state off)."""
    def stop(frame):
        if frame == 1:
            raise ValueError("enough")
    sim = eddy.Simulation(SCENE)
    with pytest.raises(ValueError, match="^enough$"):
        sim.run(steps=400, on_frame=stop)
    sim.step(3)
    one = eddy.Simulation(SCENE)
    one.step(sim.steps)
    assert one.time == sim.time
    assert one.hash() == sim.hash()


def test_an_exception_that_ends_a_run_carries_its_record():
    """The frames a run measured before it raised are on the exception as e.record (they were freed
    with the run): here the callback's own exception at frame 2, after the row of frame 2."""
    def stop(frame):
        if frame == 2:
            raise ValueError("enough")
    sim = eddy.Simulation(SCENE)
    with pytest.raises(ValueError) as info:
        sim.run(steps=800, on_frame=stop)
    rec = info.value.record
    assert not rec.completed
    assert list(rec.diagnostics["frame"]) == [0, 1, 2]
    assert list(rec.diagnostics["step"]) == [0, 150, 300]


def test_every_error_has_code_and_status():
    """The docs promise .code and .status on every eddy.Error; those raised without a core error record
    (an unknown field, a closed simulation, a thread conflict, the package's own) had neither:
    AttributeError."""
    sim = eddy.Simulation(SCENE, formats=[])
    with pytest.raises(eddy.NotFoundError) as e:
        sim.field("temperature")
    assert (e.value.code, e.value.status) == (-8, "not found")
    with pytest.raises(eddy.NotFoundError) as e:
        eddy.describe("no_such_component")
    assert (e.value.code, e.value.status) == (-8, "not found")
    sim.close()
    with pytest.raises(eddy.Error) as e:
        sim.step(1)
    assert (e.value.code, e.value.status) == (-1, "invalid argument")
    defaults = {eddy.Error: -1, eddy.SceneError: -1, eddy.NotFoundError: -8, eddy.PluginError: -5,
                eddy.UnstableError: -7, eddy.FileError: -3, eddy.DeviceError: -10}
    for cls, code in defaults.items():
        assert cls("x").code == code and isinstance(cls("x").status, str)
