"""What a Python user's trial of the package found (docs/python.md): compare's plugin folders, Python's
signal handlers during a run, `name`, `until` past the steps a run can count, flags and 0-d arrays,
float32 times, a material parameter asked for as a parameter, and a folder another Simulation of the
same process holds."""
import json
import os
import textwrap

import numpy as np
import pytest

import eddy
from conftest import SCENES, held_here, in_use, run_eddy, run_python, test_plugins

SCENE = os.path.join(SCENES, "tait_dam_break_2d.json")
DT = 5e-5   # the scene's time.dt


def child(code, **env):
    """Runs `code` in a fresh interpreter (its own registry and signal handlers); returns its stdout."""
    p = run_python(textwrap.dedent(code), env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    return p.stdout


# -- compare: the process's registry, not the environment -------------------------------------------

def test_compare_uses_the_package_registry_and_leaves_the_environment_alone(tmp_path):
    if "EDDY_PLUGIN_PATH" in os.environ:
        pytest.skip("EDDY_PLUGIN_PATH is set: the user's case is an interpreter without it")
    out = child(f"""
        import ctypes, threading, eddy
        libc = ctypes.CDLL(None)
        libc.getenv.restype = ctypes.c_char_p
        seen, stop = set(), []
        def watch():   # the C environment, as a plugin's thread or another library reads it
            while not stop:
                seen.add(libc.getenv(b"EDDY_PLUGIN_PATH"))
        t = threading.Thread(target=watch); t.start()
        try:
            eddy.compare({SCENE!r}, ["tait", "zzz"], out={str(tmp_path / "a")!r}, steps=2)
        except eddy.NotFoundError as e:
            print("MESSAGE", e)
        eddy.compare({SCENE!r}, ["pbf"], out={str(tmp_path / "b")!r}, steps=20)
        stop.append(1); t.join()
        print("SEEN", sorted(map(repr, seen)))
        """)
    message = out.split("MESSAGE ", 1)[1].split("\n", 1)[0]
    assert "EDDY_PLUGIN_PATH (it is not set)" in message
    assert out.split("SEEN ", 1)[1].strip() == "['None']"


def test_compare_runs_a_plugin_loaded_with_load_plugin(tmp_path):
    # The comparison made a registry of its own, without the files eddy.load_plugin had added.
    plugins = test_plugins()
    eddy.load_plugin(os.path.join(plugins, "eddy_exploding.so"))
    table = eddy.compare(SCENE, ["exploding_solver"], out=str(tmp_path), until=0.003)
    assert list(table["status"]) == ["failed"]
    assert "simulation exploded at step 30" in table["error"][0]


# -- Python's signal handlers run while eddy steps ---------------------------------------------------

ALARM = """
    import signal, time, eddy
    def timeout(*a): raise TimeoutError("alarm")
    signal.signal(signal.SIGALRM, timeout)
    sim = eddy.Simulation({scene!r}, formats=[], set={{"time.end": 1.0, "time.output_interval": {interval}}})
    signal.setitimer(signal.ITIMER_REAL, 0.3)
    t0 = time.monotonic()
    try:
        {call}
        print("COMPLETED")
    except TimeoutError as e:
        rec = getattr(e, "record", None)
        print("TIMEOUT", sim.steps, round(time.monotonic() - t0, 3),
              None if rec is None else (rec.completed, int(rec.diagnostics["step"][-1])))
    ref = eddy.Simulation({scene!r}, formats=[], set={{"time.end": 1.0, "time.output_interval": {interval}}})
    ref.step(sim.steps)
    print("SAME", ref.hash() == sim.hash())
"""


def alarm(call, interval):
    out = child(ALARM.format(scene=SCENE, call=call, interval=interval))
    assert "TIMEOUT" in out, out
    steps, after, rec = out.split("TIMEOUT ", 1)[1].split("\n", 1)[0].split(" ", 2)
    assert "SAME True" in out   # stopped at a step boundary
    return int(steps), float(after), rec


@pytest.mark.parametrize("interval", [0.005, 10.0])   # frames every 100 steps; no frame before the end
def test_an_alarm_ends_run_without_on_frame(interval):
    # Before: the handler ran when run() returned, after all 20000 steps (1.0 s / dt).
    steps, after, rec = alarm("sim.run()", interval)
    assert 0 < steps < 0.5 / DT
    assert after < 2.0
    assert rec == f"(False, {steps})"   # e.record: the rows before it, ending at the state it stopped at


def test_an_alarm_ends_step():
    steps, after, rec = alarm("sim.step(20000)", 0.005)
    assert 0 < steps < 0.5 / DT and after < 2.0
    assert rec == "None"


def test_a_handler_that_returns_runs_during_the_run_and_the_run_goes_on():
    out = child(f"""
        import signal, time, eddy
        calls = []
        signal.signal(signal.SIGALRM, lambda *a: calls.append(time.monotonic()))
        # (4000 steps: long enough on a fast machine that the alarm at 0.05 s comes well inside the run)
        sim = eddy.Simulation({SCENE!r}, formats=[], set={{"time.end": 0.2, "time.output_interval": 10.0}})
        signal.setitimer(signal.ITIMER_REAL, 0.05)
        rec = sim.run(record=False)
        done = time.monotonic()
        print("RESULT", rec.completed, sim.steps, len(calls), calls and done - calls[0] > 0.05)
        """)
    assert out.split("RESULT ", 1)[1].split() == ["True", str(round(0.2 / DT)), "1", "True"]


# -- arguments ---------------------------------------------------------------------------------------

def test_name_is_checked_and_only_for_a_dict_scene():
    with pytest.raises(TypeError, match=r"^name must be a str or None, got int 5$"):
        eddy.Simulation(SCENE, name=5)
    with pytest.raises(ValueError, match=r"^name: only a dict scene takes a name"):
        eddy.Simulation(SCENE, name="other.json")
    with open(SCENE) as f:
        scene = json.load(f)
    with pytest.raises(TypeError, match=r"^name must be a str or None, got int 5$"):
        eddy.Simulation(scene, name=5)
    scene.pop("name")
    sim = eddy.Simulation(scene, name=os.path.join(SCENES, "mine.json"), formats=[])
    assert sim.info["name"] == "mine"
    assert sim.probes[0].reference.file == os.path.join(SCENES, "data", "martin_moyce_1952_front.csv")


def test_until_beyond_the_countable_steps_is_a_value_error_before_any_step(tmp_path):
    sim = eddy.Simulation(SCENE, out=str(tmp_path / "o"))
    with pytest.raises(ValueError) as e:
        sim.run(until=1e300, write=True)
    assert str(e.value).startswith("run: until=1e+300: ")
    assert "2e+304 steps" in str(e.value)
    assert sim.steps == 0 and not os.path.exists(tmp_path / "o")


@pytest.mark.parametrize("flag", [True, np.bool_(True), 1, np.int64(1), np.array(True)])
def test_every_flag_takes_the_same_values(flag):
    was = eddy.set_quiet(flag)
    try:
        assert eddy.set_quiet(False) is True
    finally:
        eddy.set_quiet(was)
    sim = eddy.Simulation(SCENE, formats=[])
    assert sim.field("density", writable=flag).flags.writeable


@pytest.mark.parametrize("bad", [2, "yes", None, 1.0])
def test_set_quiet_refuses_what_is_not_a_flag(bad):
    with pytest.raises(TypeError, match=r"^set_quiet: quiet must be True or False"):
        eddy.set_quiet(bad)


def test_components_kind_of_a_wrong_type():
    with pytest.raises(TypeError, match=r"^components: kind must be a str or None, got int 5$"):
        eddy.components(5)


def test_a_0d_integer_array_is_a_step_count():
    a, b = eddy.Simulation(SCENE, formats=[]), eddy.Simulation(SCENE, formats=[])
    a.step(np.array(2))
    b.step(np.int64(2))
    assert a.steps == 2 and a.hash() == b.hash()
    with pytest.raises(TypeError):
        a.step(np.array([2]))


def test_float32_times_are_taken_by_their_shortest_repr():
    a = eddy.Simulation(SCENE, formats=[])
    a.run(until=np.float32(0.0005))
    assert a.steps == 10   # 0.0005 / 5e-5; the float32's double, 0.000500000023, took an 11th
    assert a.time == pytest.approx(0.0005, abs=1e-15)
    b = eddy.Simulation(SCENE, formats=[], set={"time.end": np.float32(0.01)})
    assert b.info["end_time"] == 0.01
    c = eddy.Simulation(SCENE, formats=[], set={"time.end": np.float16(0.5)})
    assert c.info["end_time"] == 0.5
    with open(SCENE) as f:
        scene = json.load(f)
    scene["time"]["end"] = np.float32(0.02)
    scene["world"]["gravity"] = np.array([0, -9.81], dtype=np.float32)
    d = eddy.Simulation(scene, name=SCENE, formats=[])
    assert d.info["end_time"] == 0.02


def test_a_material_parameter_asked_as_a_parameter_says_so():
    tait = eddy.describe("tait")
    with pytest.raises(eddy.NotFoundError) as e:
        tait.param("viscosity")
    assert str(e.value).endswith("; 'viscosity' is a material parameter of tait: use .material_param('viscosity')")
    assert tait.material_param("viscosity").id == "viscosity"
    with pytest.raises(eddy.NotFoundError) as e:
        tait.material_param("cfl")
    assert str(e.value).endswith("; 'cfl' is a parameter of tait: use .param('cfl')")
    with pytest.raises(eddy.NotFoundError) as e:
        tait.param("zz")
    assert "use ." not in str(e.value)


# -- a folder another Simulation of this process holds ----------------------------------------------

def test_a_folder_held_by_another_simulation_of_this_process_says_so(tmp_path):
    d = str(tmp_path)
    a = eddy.Simulation(SCENE, out=d, formats=["csv"])   # a notebook's earlier cell, never closed
    a.run(steps=5, write=True)
    b = eddy.Simulation(SCENE, out=d, formats=["csv"])
    with pytest.raises(eddy.FileError) as e:
        b.run(steps=5, write=True)
    assert str(e.value) == held_here(d)
    a.checkpoint()
    with pytest.raises(eddy.FileError) as e:
        b.checkpoint(d)
    assert str(e.value) == held_here(d, "choose another folder")
    with pytest.raises(eddy.FileError) as e:
        eddy.Simulation.resume(d)
    assert str(e.value) == held_here(d, None)
    with pytest.raises(eddy.FileError) as e:
        eddy.compare(SCENE, ["tait"], out=d, steps=2)
    assert str(e.value) == held_here(d, "choose another --out")
    # Another process is another eddy run, as before.
    status, _, err = run_eddy("run", SCENE, "--steps", "2", "--quiet", "--out", d)
    assert status == 1 and err == "eddy: error: " + in_use(d, "choose another --out") + "\n"
    a.close()
    # Let go: what refuses b now is a's checkpoint of a run stopped before its end, as `eddy run` says.
    with pytest.raises(eddy.FileError) as e:
        b.run(steps=5, write=True)
    status, _, err = run_eddy("run", SCENE, "--steps", "2", "--quiet", "--out", d)
    assert status == 1 and "holds a run stopped at step 5" in err
    assert "eddy: error: " + str(e.value) + "\n" == err.replace("choose another --out", "choose another out folder")
    b.close()


def test_load_plugin_is_refused_while_a_run_uses_the_plugins():
    """The registry is read with the GIL released (opening, stepping, comparing), and load_plugin adds to
    it: one from another thread raced the run. It is refused while a run is under way, here from the
    run's own on_frame (the same guard as another thread's), with nothing loaded."""
    plugin = os.path.join(test_plugins(), "eddy_a_good.so")   # test_solver
    before = [c.id for c in eddy.components()]
    sim = eddy.Simulation(SCENE, formats=[])
    said = []

    def load(frame):
        try:
            eddy.load_plugin(plugin)
        except eddy.Error as e:
            said.append(str(e))
            raise

    with pytest.raises(eddy.Error):
        sim.run(steps=400, on_frame=load)
    sim.close()
    assert said == ["load_plugin: a Simulation or compare() is using the plugins (in another thread, or this call "
                    "is made from its on_frame or a signal handler); load plugins before, or after it returns"]
    assert [c.id for c in eddy.components()] == before


def test_a_simulation_says_why_it_cannot_be_pickled():
    """multiprocessing pickles what it sends: the refusal named 'eddy._eddy.Core'."""
    import pickle
    sim = eddy.Simulation(SCENE, formats=[])
    with pytest.raises(TypeError) as e:
        pickle.dumps(sim)
    sim.close()
    assert str(e.value) == ("a Simulation cannot be pickled (its state lives in eddy's memory, with open files and "
                            "a folder lock): send the scene and settings to the worker and open a Simulation "
                            "there, or checkpoint() here and resume() there")
