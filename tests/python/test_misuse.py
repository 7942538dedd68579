"""Misuse from Python gets an exception naming what is wrong before anything happens, never a crash, a
freed output under a run, a run that fails only after stepping, or an argument quietly read as
something else (docs/python.md, "Values" and "Threads")."""
import json
import os
import threading

import pytest

import eddy
from conftest import SCENES

SCENE = os.path.join(SCENES, "dam_break_2d.json")
STEPPING = ("close: the simulation is stepping (a step, run or checkpoint call is under way, in another "
            "thread or around this on_frame callback); close it after that call returns")


def test_close_from_on_frame_is_refused_and_the_files_stay_whole(tmp_path):
    """close() from the run's own callback destroyed the output the run writes with; the next frame made
    a new one, which truncated diagnostics.csv to the frames after the close."""
    sim = eddy.Simulation(SCENE, out=str(tmp_path), formats=["csv"], set={"time.output_interval": 0.0005})

    def close_at_2(frame):
        if frame == 2:
            sim.close()
    with pytest.raises(eddy.Error) as e:
        sim.run(steps=60, write=True, on_frame=close_at_2)
    assert str(e.value) == STEPPING
    assert list(e.value.record.diagnostics["frame"]) == [0, 1, 2]
    with open(tmp_path / "diagnostics.csv") as f:
        rows = f.read().splitlines()[1:]
    # one row per frame written, frames 0, 1 and 2: steps 0, 10 and 20 (dt 5e-5, a frame every 5e-4 s)
    assert [r.split(",")[1] for r in rows] == ["0", "10", "20"]
    sim.close()                 # after the run: closes
    assert repr(sim) == "<eddy.Simulation (closed)>"


def test_close_from_another_thread_while_it_steps_is_refused():
    """close() from a second thread while the first runs freed the writers the run was using (ASan:
    heap-use-after-free in eddy_output_write_frame). The run here waits in its callback, so the close
    lands while it steps, deterministically."""
    sim = eddy.Simulation(SCENE, formats=[], set={"time.output_interval": 0.0005})
    inside, release, result = threading.Event(), threading.Event(), {}

    def wait(frame):
        inside.set()
        release.wait(30)

    def worker():
        result["rec"] = sim.run(steps=20, on_frame=wait)
    t = threading.Thread(target=worker)
    t.start()
    assert inside.wait(30)
    try:
        with pytest.raises(eddy.Error) as e:
            sim.close()
        assert str(e.value) == STEPPING
    finally:
        release.set()
        t.join(60)
    assert list(result["rec"].diagnostics["step"]) == [0, 10, 20]
    assert sim.steps == 20      # still open
    sim.close()


def test_an_on_frame_that_cannot_be_called_is_refused_before_stepping():
    sim = eddy.Simulation(SCENE, formats=[])
    with pytest.raises(TypeError) as e:
        sim.run(steps=400, on_frame=5)
    assert str(e.value) == "run: on_frame must be a callable taking the frame index, or None, got int"
    assert sim.steps == 0       # was 150: the error came at the first frame


def test_a_probe_named_as_a_record_column_is_refused_at_open():
    """A probe named "time", "step" or "frame" (the scene allowed it) made every run raise NumPy's
    "field 'time' occurs more than once" after stepping, and measure() too."""
    scene = json.load(open(SCENE))
    scene["probes"][1]["name"] = "frame"
    with pytest.raises(eddy.SceneError) as e:
        eddy.Simulation(scene, name=os.path.join(SCENES, "renamed.json"), formats=[])
    assert str(e.value).endswith('probes[1].name: probe name "frame" is also a column of probes.csv and of the '
                                 'records (time, step, frame); choose another')
    assert e.value.status == "invalid argument"


def test_arguments_are_not_read_as_something_else():
    sim = eddy.Simulation(SCENE, formats=[])
    # a string of writer ids was taken letter by letter ("c", "s", "v")
    with pytest.raises(TypeError) as e:
        eddy.Simulation(SCENE, formats="csv")
    assert str(e.value) == "formats must be a list of writer ids, got the string 'csv' (for one writer: ['csv'])"
    # a string time was converted ('0.001' ran, 'abc' raised "could not convert string to float")
    for bad in ("0.001", "abc"):
        with pytest.raises(TypeError) as e:
            sim.run(until=bad)
        assert str(e.value) == "run: until must be a time in seconds (a number), got str"
    # a NUL cut an override short in C ("time.end=0.01\0junk" set time.end to 0.01)
    with pytest.raises(ValueError) as e:
        eddy.Simulation(SCENE, set=["time.end=0.01\0junk"])
    assert str(e.value) == "set: embedded null character in 'time.end=0.01\\x00junk'"
    with pytest.raises(TypeError) as e:
        eddy.Simulation(SCENE, formats=[1])
    assert str(e.value) == "formats: expected str items, got int 1"   # was "bad argument type for built-in operation"
    # numbers past C's range: OverflowError("signed integer is greater than maximum") named nothing
    with pytest.raises(ValueError) as e:
        eddy.Simulation(SCENE, threads=2**40)
    assert str(e.value) == f"threads must be 0 (the default) or 1 to 4096, got {2**40}"
    with pytest.raises(ValueError) as e:
        sim.step(2**70)
    assert str(e.value) == f"step: n must be a whole number below 2**63, got {2**70}"
    assert sim.steps == 0
    # a kind that is not one ("solvers") listed nothing
    with pytest.raises(ValueError, match=r"^components: unknown kind 'solvers' \(kinds: [a-z, .]*grid"):
        eddy.components("solvers")


def test_compare_refuses_a_negative_step_count_and_non_str_solvers(tmp_path):
    # steps=-5 ran every solver to the scene's time.end (-1 is the C side's "no step count")
    with pytest.raises(ValueError) as e:
        eddy.compare(SCENE, ["tait"], steps=-5, out=str(tmp_path), set={"time.end": 0.001})
    assert str(e.value) == "compare: steps must be >= 0, got -5"
    assert not os.path.exists(tmp_path / "summary.csv")
    with pytest.raises(TypeError) as e:
        eddy.compare(SCENE, [3], out=str(tmp_path))
    assert str(e.value) == "compare: solvers must be a list of solver ids (str), got int 3"
    # a NUL in the second id compared "pbf" under another name
    with pytest.raises(ValueError) as e:
        eddy.compare(SCENE, ["tait", "pbf\0x"], steps=1, out=str(tmp_path))
    assert str(e.value) == "compare: solvers: embedded null character in 'pbf\\x00x'"


def test_each_simulation_steps_with_its_own_thread_count():
    """OpenMP keeps the thread count per calling thread, and opening a Simulation set it: one opened
    with threads=N stepped with the count of the Simulation opened after it, and from another Python
    thread with OpenMP's default. Each step now applies the Simulation's own (its info["threads"])."""
    import ctypes
    try:
        omp = ctypes.CDLL("libgomp.so.1")   # the runtime the extension is linked with (GCC)
    except OSError:
        pytest.skip("libgomp.so.1 is not loadable")
    n = 3 if os.cpu_count() != 3 else 5     # neither 1 nor OpenMP's default here
    a = eddy.Simulation(SCENE, formats=[], threads=n)
    eddy.Simulation(SCENE, formats=[], threads=1)
    assert omp.omp_get_max_threads() == 1
    a.step(1)
    assert omp.omp_get_max_threads() == n == a.info["threads"]
    seen = {}

    def worker():
        a.step(1)
        seen["threads"] = omp.omp_get_max_threads()
    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert seen["threads"] == n
