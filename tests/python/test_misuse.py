"""Misuse from Python gets an exception naming what is wrong before anything happens, never a crash, a
freed output under a run, a run that fails only after stepping, or an argument quietly read as
something else (docs/python.md, "Values" and "Threads")."""
import json
import os
import threading

import pytest

import eddy
from conftest import SCENES, run_eddy

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
    assert str(e.value).endswith('probes[1].name: probe name "frame" is reserved: probes.csv begins with time, '
                                 'step and the Python records with time, step, frame; choose another')
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


def test_every_argument_is_named_in_its_error(tmp_path):
    """C's own messages named a position ("argument 5 must be str or None, not int"), or nothing
    ("embedded null character", "'int' object is not iterable", "int too large to convert to float")."""
    cases = [
        (lambda: eddy.Simulation(SCENE, solver=5), TypeError, "solver must be a str or None, got int 5"),
        (lambda: eddy.Simulation(SCENE, grid=["cpu"]), TypeError, "grid must be a str or None, got list ['cpu']"),
        (lambda: eddy.Simulation(SCENE, out=3), TypeError, "out must be a path (str or os.PathLike), got int"),
        (lambda: eddy.Simulation(None), TypeError, "scene must be a path (str or os.PathLike), got NoneType"),
        (lambda: eddy.Simulation(SCENE, solver="pbf\0x"), ValueError, "solver: embedded null character in 'pbf\\x00x'"),
        (lambda: eddy.Simulation(SCENE, out="o\0x"), ValueError, "out: embedded null character in 'o\\x00x'"),
        (lambda: eddy.Simulation(SCENE + "\0"), ValueError,
         f"scene: embedded null character in {SCENE + chr(0)!r}"),
        (lambda: eddy.Simulation({"solver": "tait"}, name="a\0b"), ValueError,
         "name: embedded null character in 'a\\x00b'"),
        (lambda: eddy.Simulation(SCENE, set=5), TypeError,
         "set must be a dict {'dotted.path': value} or a list of 'path=value' strings, got int"),
        (lambda: eddy.Simulation(SCENE, formats=5), TypeError, "formats must be a list of writer ids or None, got int"),
        (lambda: eddy.Simulation.resume(None), TypeError,
         "resume: dir must be a path (str or os.PathLike), got NoneType"),
        (lambda: eddy.load_plugin(""), ValueError, "load_plugin: path is empty (give a plugin's shared object file)"),
        (lambda: eddy.describe(None), TypeError, "describe: id must be a str, got NoneType None"),
        (lambda: eddy.compare(SCENE, None, out=str(tmp_path)), TypeError,
         "compare: solvers must be a list of solver ids, got NoneType"),
        (lambda: eddy.compare(SCENE, ["tait"], out=str(tmp_path), grid=5), TypeError,
         "compare: grid must be a str or None, got int 5"),
        (lambda: eddy.compare(SCENE, ["tait"], out=""), ValueError,
         "compare: out is empty (give the folder of the report)"),
        (lambda: eddy.compare(SCENE, ["tait"], out=str(tmp_path), until=10**400), ValueError,
         "compare: until must be a finite time >= 0 in seconds, got an int of 401 digits"),
    ]
    for call, cls, message in cases:
        with pytest.raises(cls) as e:
            call()
        assert str(e.value) == message
    sim = eddy.Simulation(SCENE, formats=[])
    with pytest.raises(ValueError) as e:
        sim.run(until=10**400)
    assert str(e.value) == "run: until must be a finite time >= 0 in seconds, got an int of 401 digits"
    with pytest.raises(TypeError) as e:
        sim.checkpoint(5)
    assert str(e.value) == "checkpoint: dir must be a path (str or os.PathLike), got int"
    assert sim.steps == 0
    assert not os.listdir(tmp_path)


def test_paths_may_be_pathlib_paths(tmp_path):
    """`out` as a pathlib.Path was refused ("argument 7 must be str or None, not PosixPath"), in
    Simulation and in compare, where scene, checkpoint and resume took one."""
    import pathlib
    sim = eddy.Simulation(pathlib.Path(SCENE), out=tmp_path / "run", formats=["csv"])
    assert sim.info["out_dir"] == str(tmp_path / "run")
    sim.run(steps=2, write=True)
    assert (tmp_path / "run" / "diagnostics.csv").exists()
    table = eddy.compare(SCENE, ["tait"], out=tmp_path / "cmp", steps=2)
    assert list(table["status"]) == ["ok"]
    assert (tmp_path / "cmp" / "summary.csv").exists()


def test_compare_raises_the_error_that_stops_it_before_any_solver(tmp_path, capfd):
    """An output folder compare cannot make, or a scene error behind an unknown solver (a probe's
    reference file), was printed on stderr only, and compare() raised "summary.csv was not written"."""
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(eddy.FileError) as e:
        eddy.compare(SCENE, ["tait"], out=str(blocker), steps=2)
    assert str(e.value) == f"cannot create output folder '{blocker}': '{blocker}' is not a directory"
    scene = json.load(open(SCENE))
    scene["probes"][0]["reference"]["file"] = "no_such_reference.csv"
    moved = tmp_path / "moved.json"
    moved.write_text(json.dumps(scene))
    with pytest.raises(eddy.Error) as e:
        eddy.compare(str(moved), ["no_such_solver"], out=str(tmp_path / "o"), steps=2)
    assert "probes[0].reference.file: cannot read" in str(e.value)
    assert str(tmp_path / "no_such_reference.csv") in str(e.value)
    assert capfd.readouterr().err == ""
    assert not (tmp_path / "o").exists()


def test_compare_keeps_a_long_error_whole(tmp_path):
    """The summary's text columns were U256: a longer error (one naming a deep folder) was cut. Here a
    file stands where the solver's frames folder goes, and its error names the folder twice."""
    out = tmp_path / ("d" * 120) / ("e" * 120) / "o"
    (out / "tait").mkdir(parents=True)
    (out / "tait" / "frames").write_text("")
    table = eddy.compare(SCENE, ["tait"], out=str(out), steps=2)
    with open(out / "summary.csv", newline="") as f:
        import csv
        rows = list(csv.DictReader(f))
    assert rows[0]["status"] == "failed" and "is not a directory" in rows[0]["error"]
    assert len(rows[0]["error"]) > 256
    assert table["error"][0] == rows[0]["error"]


def test_a_set_the_simulation_cannot_use_is_warned_of(recwarn):
    """Overrides for another solver's section or a material key only other solvers read are valid (one
    scene serves every method) and were ignored without a word, as on the command line, where `eddy run`
    now warns of them too."""
    sim = eddy.Simulation(SCENE, solver="pbf", set={"solvers.tait.cfl": 0.1, "materials[0].stiffness": 5,
                                                    "solvers.pbf.iterations": 3})
    sim.close()
    said = sorted(str(w.message) for w in recwarn.list)
    assert said == ["set 'materials[0].stiffness=5' has no effect on this simulation: solver 'pbf' does not read it",
                    "set 'solvers.tait.cfl=0.1' has no effect on this simulation: the run's solver is 'pbf'"]


def test_compare_does_not_warn_of_a_set_for_its_second_solver(tmp_path, recwarn):
    """compare() opens the scene with its first solver to check it: a setting of the second solver was
    then warned of as having no effect, which `eddy compare` does not say."""
    eddy.compare(SCENE, ["tait", "pbf"], out=str(tmp_path), steps=2, set={"solvers.pbf.iterations": 3})
    assert [str(w.message) for w in recwarn.list] == []


@pytest.mark.parametrize("solvers, expected", [
    (["tait", "pbf"], {"solvers.sph_mueller.cfl=0.3": "no compared solver reads it"}),
    (["pbf"], {"solvers.sph_mueller.cfl=0.3": "the run's solver is 'pbf'",
               "materials[0].stiffness=5": "solver 'pbf' does not read it"}),
])
def test_compare_warns_of_a_set_no_solver_reads(tmp_path, recwarn, solvers, expected):
    """`eddy compare` warns of an override none of its solvers reads (the command's own rule,
    unused_sets.h); compare() said nothing of it. It warns of exactly those, with the command's reason:
    not of a setting one solver reads (pbf's iterations; tait reads the stiffness)."""
    # (no grid section: the only grid every build has is cpu, and another's section is refused where
    # its plugin is not built)
    sets = ["solvers.sph_mueller.cfl=0.3", "solvers.pbf.iterations=3", "materials[0].stiffness=5"]
    eddy.compare(SCENE, solvers, out=str(tmp_path / "py"), steps=0, set=sets)
    said = {}
    for w in recwarn.list:
        assert w.category is UserWarning
        item, why = str(w.message).split(" has no effect on this comparison: ")
        said[item[len("set '"):-1]] = why
    assert said == expected
    args = [a for s in sets for a in ("--set", s)]
    status, _, err = run_eddy("compare", SCENE, "--solvers", ",".join(solvers), "--steps", "0",
                              "--out", str(tmp_path / "cmd"), *args)
    assert status == 0, err
    warned = dict(line[len("eddy: warning: --set '"):].split("' has no effect on this run: ")
                  for line in err.splitlines() if line.startswith("eddy: warning: --set '"))
    assert warned == expected
