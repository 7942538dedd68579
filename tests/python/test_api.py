"""Components as objects, the record of a run (diagnostics and probes at exact frame times), files
written from Python, and compare() against Simulation for the same solver."""
import csv
import os

import numpy as np
import pytest

import eddy
from conftest import SCENES, run_eddy, snapshot, test_plugins as plugin_folder

SCENE = os.path.join(SCENES, "tait_dam_break_2d.json")


def test_components_describe_the_registry():
    solvers = {c.id for c in eddy.components("solver")}
    assert {"sph_mueller", "tait", "pbf"} <= solvers
    tait = eddy.describe("tait")
    assert tait.kind == "solver" and tait.file.endswith("eddy_tait.so")
    g = tait.param("gamma")
    assert (g.type, g.default, g.min, g.max) == ("real", 7.0, 1.0, 10.0)
    assert tait.param("sound_speed").derived and tait.param("sound_speed").default is None
    assert tait.param("boundary").choices == ("mirror", "virtual")
    assert "viscosity" in {p.id for p in tait.material_params}
    with pytest.raises(eddy.NotFoundError, match="^unknown component 'nope' \\(available: cpu, "):
        eddy.describe("nope")
    # a typo gets the command's suggestion (the nearest id of any kind within two edits), nothing else does
    with pytest.raises(eddy.NotFoundError) as e:
        eddy.describe("sph_muller")
    assert str(e.value).endswith("); did you mean 'sph_mueller'?")
    with pytest.raises(eddy.NotFoundError) as e:
        eddy.describe("nope")
    assert "did you mean" not in str(e.value)
    # the same list as `eddy list`
    rc, out, _ = run_eddy("list")
    assert rc == 0
    for c in eddy.components():
        assert c.id in out


def test_record_lands_on_every_frame_and_matches_the_command_files(tmp_path):
    sim = eddy.Simulation(SCENE, out=str(tmp_path / "py"), formats=["csv"],
                          set={"time.output_interval": 0.0025})
    rec = sim.run(until=0.01, write=True)
    d, p = rec.diagnostics, rec.probes
    np.testing.assert_array_equal(d["frame"], np.arange(5))
    # frame k is the state at exactly k * output_interval (the clock snapped, not a sum of dt)
    assert list(d["time"]) == [k * 0.0025 for k in range(5)]
    assert p.dtype.names == ("time", "step", "frame", "front", "height_left_wall")
    assert p["front"][0] == pytest.approx(0.1, abs=0.005) and np.all(np.diff(p["front"]) >= 0)
    sim.close()
    # `eddy run` writes the same diagnostics for the same stepping (wall_ms aside)
    rc, _, err = run_eddy("run", SCENE, "--until", "0.01", "--quiet", "--format", "csv", "--out",
                          str(tmp_path / "cmd"), "--set", "time.output_interval=0.0025")
    assert rc == 0, err
    def table(d):
        with open(os.path.join(d, "diagnostics.csv")) as f:
            return [{k: v for k, v in r.items() if k != "wall_ms"} for r in csv.DictReader(f)]
    assert table(tmp_path / "py") == table(tmp_path / "cmd")
    for k in range(5):
        name = f"frames/frame_{k:05d}.csv"
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cmd" / name).read_bytes()
    cmd = table(tmp_path / "cmd")
    assert [float(r["kinetic_energy"]) for r in cmd] == pytest.approx(list(d["kinetic_energy"]), rel=1e-11)


def test_a_final_frame_between_frame_times_is_a_new_frame(tmp_path):
    """Steps that end between output times and then write_frame(): the final state is a frame of its
    own after the regular ones, byte for byte the files of `eddy run --steps N`, which numbers its
    final frame so; it once overwrote the frame landed on last (frame 1 got the state of step 200)."""
    sim = eddy.Simulation(SCENE, out=str(tmp_path / "py"), formats=["csv"])
    sim.run(steps=150, write=True)          # ends on frame 1 (t = 0.0075): no final frame of its own
    sim.step(50)
    sim.write_frame()
    sim.close()
    rc, _, err = run_eddy("run", SCENE, "--steps", "200", "--quiet", "--no-picture", "--format", "csv", "--out",
                          str(tmp_path / "cmd"))
    assert rc == 0, err
    names = sorted(os.listdir(tmp_path / "cmd" / "frames"))
    assert names == ["frame_00000.csv", "frame_00001.csv", "frame_00002.csv"]
    assert sorted(os.listdir(tmp_path / "py" / "frames")) == names
    for name in names:
        assert (tmp_path / "py" / "frames" / name).read_bytes() == (tmp_path / "cmd" / "frames" / name).read_bytes()


def _diagnostics_rows(d):
    """diagnostics.csv without its wall_ms column (the only one that differs between two runs)."""
    with open(os.path.join(d, "diagnostics.csv")) as f:
        return [{k: v for k, v in r.items() if k != "wall_ms"} for r in csv.DictReader(f)]


def test_a_run_to_an_end_between_frame_times_ends_with_the_final_frame(tmp_path):
    """time.end not a multiple of output_interval: `eddy run` writes the final state as one more
    frame (numbered as the next regular frame); run(write=True) writes the same frames and
    diagnostics.csv byte for byte (wall time aside), and the Record (diagnostics and probes) ends at
    time.end too, with probes.csv's values. Both once stopped at the last frame time (t = 0.003)."""
    sets = {"time.end": 0.004, "time.output_interval": 0.0015}
    sim = eddy.Simulation(SCENE, out=str(tmp_path / "py"), formats=["csv"], set=sets)
    rec = sim.run(write=True)
    assert rec.completed
    py_hash = sim.hash()
    sim.close()
    rc, out, err = run_eddy("run", SCENE, "--quiet", "--no-picture", "--hash", "--format", "csv", "--out",
                            str(tmp_path / "cmd"), *[a for k, v in sets.items() for a in ("--set", f"{k}={v}")])
    assert rc == 0, err
    assert f"state-hash: {py_hash:016x}" in out
    names = sorted(os.listdir(tmp_path / "cmd" / "frames"))
    assert names == [f"frame_{k:05d}.csv" for k in range(4)]
    assert sorted(os.listdir(tmp_path / "py" / "frames")) == names
    for name in names:
        assert (tmp_path / "py" / "frames" / name).read_bytes() == (tmp_path / "cmd" / "frames" / name).read_bytes()
    cmd = _diagnostics_rows(tmp_path / "cmd")
    assert _diagnostics_rows(tmp_path / "py") == cmd
    assert [r["time"] for r in cmd] == ["0", "0.0015", "0.003", "0.004"]
    # the Record: one row per file frame, the last the final state at time.end
    d, p = rec.diagnostics, rec.probes
    assert list(d["frame"]) == [0, 1, 2, 3] and list(p["frame"]) == [0, 1, 2, 3]
    assert list(d["time"]) == [0.0, 0.0015, 0.003, 0.004]
    assert list(d["step"]) == [int(r["step"]) for r in cmd] == list(p["step"])
    assert [float(r["kinetic_energy"]) for r in cmd] == pytest.approx(list(d["kinetic_energy"]), rel=1e-11)
    with open(tmp_path / "cmd" / "probes.csv") as f:
        probes = list(csv.DictReader(f))
    assert [float(r["time"]) for r in probes] == list(p["time"])
    for name in ("front", "height_left_wall"):
        assert [float(r[name]) for r in probes] == pytest.approx(list(p[name]), rel=1e-11)
    # run(until=T) and a run in two parts end the same way: the final state is the Record's last row
    sim = eddy.Simulation(SCENE, formats=[], set={"time.output_interval": 0.0015})
    first = sim.run(until=0.002)
    assert list(first.diagnostics["time"]) == [0.0, 0.0015, 0.002]
    assert list(first.diagnostics["frame"]) == [0, 1, 2]
    rest = sim.run(until=0.004)
    assert list(rest.diagnostics["time"]) == [0.003, 0.004]
    assert list(rest.diagnostics["frame"]) == [2, 3]
    assert sim.hash() == py_hash
    np.testing.assert_array_equal(rest.probes["front"], p["front"][2:])
    # a run that ends on a frame time adds no row, and one already at its end is refused (it measured
    # nothing and said completed=True)
    assert len(sim.run(until=0.0045).diagnostics) == 1
    with pytest.raises(ValueError, match=r"already at or past the end until=0.0045 asks for"):
        sim.run(until=0.0045)


def test_compare_agrees_with_simulation(tmp_path, capfd):
    table = eddy.compare(SCENE, ["tait", "sph_mueller"], out=str(tmp_path), steps=40,
                         set={"time.output_interval": 0.0005})
    # The table is returned and the report written; a library call prints nothing on stdout.
    assert capfd.readouterr().out == ""
    assert (tmp_path / "summary.md").read_text().startswith("# eddy compare:")
    assert list(table["solver"]) == ["tait", "sph_mueller"]
    assert list(table["status"]) == ["ok", "ok"]
    for row in table:
        sim = eddy.Simulation(SCENE, solver=row["solver"], formats=[],
                              set={"time.output_interval": 0.0005})
        rec = sim.run(steps=40)
        assert row["steps"] == 40
        assert row["density_error_max"] == pytest.approx(rec.diagnostics["density_error_max"].max(), rel=1e-9)
        assert row["front"] == pytest.approx(rec.probes["front"][-1], rel=1e-9)
        # The largest rise of E_k + E_p above its start, from the run's own diagnostics.
        e = rec.diagnostics["total_energy"]
        assert row["total_energy_rise_max"] == pytest.approx(max(e.max() - e[0], 0.0), abs=1e-9 * abs(e[0]))


def test_compare_reports_a_failing_solver_and_raises_for_a_bad_scene(tmp_path):
    # a file standing where a solver's folder goes refuses the comparison before any solver runs (each
    # solver's folder is held from the start, as eddy run holds its own)
    (tmp_path / "tait").write_text("")
    with pytest.raises(eddy.FileError) as e:
        eddy.compare(SCENE, ["tait", "sph_mueller"], out=str(tmp_path), steps=2)
    assert str(e.value).endswith("/tait' is not a directory")
    assert not (tmp_path / "sph_mueller" / "diagnostics.csv").exists()
    # a solver that fails as it runs (the test plugin's, at step 30) is a row; the others run
    eddy.load_plugin(os.path.join(plugin_folder(), "eddy_exploding.so"))
    table = eddy.compare(SCENE, ["exploding_solver", "sph_mueller"], out=str(tmp_path / "runs"), steps=40)
    assert list(table["status"]) == ["failed", "ok"]
    assert "simulation exploded at step 30" in table["error"][0]
    # an unknown solver is refused before any runs, with the command's message
    with pytest.raises(eddy.NotFoundError) as e:
        eddy.compare(SCENE, ["sph_mueller", "no_such_solver"], out=str(tmp_path / "unknown"), steps=2)
    assert str(e.value).startswith("unknown solver 'no_such_solver' (available: ")
    assert not (tmp_path / "unknown").exists()
    # the scene's error as the command gives it
    rc, _, err = run_eddy("compare", SCENE, "--solvers", "tait", "--steps", "2", "--set", "time.dt=-1",
                          "--out", str(tmp_path / "cli"))
    assert rc == 1
    said = [l for l in err.splitlines() if l.startswith("eddy: error: ")][-1][len("eddy: error: "):]
    assert said.endswith("time.dt: expected a number > 0, got -1")
    with pytest.raises(eddy.SceneError) as e:
        eddy.compare(SCENE, ["tait"], out=str(tmp_path), steps=2, set={"time.dt": -1})
    assert str(e.value) == said


SOUND_SPEED = "eddy: tait: sound speed c0 = 10 sqrt(2 |g| H) = "
DERIVED_C0 = os.path.join(SCENES, "dam_break_2d.json")   # no tait section: tait derives c0 and says so


def test_compare_status_of_a_run_that_made_energy(tmp_path, capfd):
    """sph_mueller's dam break at 20 particles across gains energy (the water turns to a gas) and its
    row read "ok". The rule eddy run warns by, worked out from each solver's own Simulation run: a rise
    of E_k + E_p above its start by more than half the energy above the floor (y = 0, so E(0))."""
    coarse = {"materials[0].particle_spacing": 0.005, "world.smoothing_radius": 0.01, "time.dt": 0.0001}
    table = eddy.compare(DERIVED_C0, ["sph_mueller", "tait"], out=str(tmp_path), until=0.21, set=coarse,
                         threads=1)
    err = capfd.readouterr().err
    for row in table:
        sim = eddy.Simulation(DERIVED_C0, solver=row["solver"], formats=[], set=coarse, threads=1)
        try:
            e = sim.run(until=0.21).diagnostics["total_energy"]
        finally:
            sim.close()
        made = (e - e[0]).max() > 0.5 * e[0]
        assert row["status"] == ("made energy" if made else "ok")
        assert (f"eddy: warning: {row['solver']}: the energy E_k + E_p rose by " in err) == made
    # both kinds, so that the test can fail either way
    assert list(table["status"]) == ["made energy", "ok"]


def test_set_quiet_hides_information_lines_and_compare_keeps_the_setting(tmp_path, capfd):
    """Information lines (tait's derived sound speed) follow set_quiet() like `eddy --quiet`, and a
    compare() call, which runs quietly, leaves the caller's setting as it was: it used to leave every
    later simulation of the process quiet."""
    def sound_speed_lines():
        eddy.Simulation(DERIVED_C0, solver="tait", formats=[]).close()
        return [l for l in capfd.readouterr().err.splitlines() if l.startswith(SOUND_SPEED)]
    try:
        capfd.readouterr()
        assert len(sound_speed_lines()) == 1
        eddy.compare(DERIVED_C0, ["tait"], out=str(tmp_path), steps=2)
        assert capfd.readouterr().err == ""     # compare runs quietly, its scene check included
        assert len(sound_speed_lines()) == 1
        assert eddy.set_quiet(True) is False
        assert sound_speed_lines() == []
        eddy.compare(DERIVED_C0, ["tait"], out=str(tmp_path), steps=2)
        assert sound_speed_lines() == []
        assert eddy.set_quiet(False) is True
        assert len(sound_speed_lines()) == 1
        with pytest.raises(TypeError) as e:
            eddy.set_quiet(2)   # (1 is a flag, as for every flag: test_trial.py)
        assert str(e.value) == "set_quiet: quiet must be True or False, got int 2"
    finally:
        eddy.set_quiet(False)


def _at(sim):
    """How the refusal of a run already at its end names where the simulation is."""
    return "run: the simulation is at step %d (t = %.6g s), already at or past" % (sim.steps, sim.time)


def test_a_run_already_at_or_past_its_end_is_refused_with_the_totals_that_go_on(tmp_path):
    # What a user resuming a run at t = 0.02 met: run(until=0.01) and run(steps=10) returned
    # completed=True with no rows and did nothing. steps and until are totals from t = 0, as the
    # command's --steps and --until are on `eddy resume` (host/drive/resume.c), so the refusal says so.
    sim = eddy.Simulation(SCENE, formats=[], set={"time.end": 0.02, "time.output_interval": 0.005})
    sim.run(record=False)
    assert sim.time == 0.02
    sim.checkpoint(str(tmp_path / "r1"))
    sim.close()
    sim = eddy.Simulation.resume(str(tmp_path / "r1"))
    n, h = sim.steps, sim.hash()
    assert n == 400 and sim.time == 0.02     # 0.02 s / time.dt 5e-5 s (no solver limit below it)
    at = _at(sim)
    refused = {
        "until=0.01": (lambda: sim.run(until=0.01),
                       f"{at} the end until=0.01 asks for: until is the end time from the simulation's start "
                       f"(t = 0), not more time (until=0.03 takes 0.01 s more)"),
        "steps=10": (lambda: sim.run(steps=10),
                     f"{at} the end steps=10 asks for: steps is the total step count from the simulation's "
                     f"start (t = 0), not more steps (steps={n + 10} takes 10 more)"),
        "the scene's end": (lambda: sim.run(), f"{at} its end (time.end = 0.02 s); extend it with run(steps=N) "
                                               f"or run(until=T)"),
        "steps=0": (lambda: sim.run(steps=0, write=True),
                    f"{at} its end (steps=0); extend it with run(steps=N) or run(until=T)"),
        "until=0": (lambda: sim.run(until=0, on_frame=print),
                    f"{at} its end (until=0); extend it with run(steps=N) or run(until=T)"),
        f"steps={n}": (lambda: sim.run(steps=n),
                       f"{at} the end steps={n} asks for: steps is the total step count from the simulation's "
                       f"start (t = 0), not more steps (steps={2 * n} takes {n} more)"),
    }
    before = sorted(os.listdir(tmp_path / "r1"))
    for what, (call, message) in refused.items():
        with pytest.raises(ValueError) as e:
            call()
        assert str(e.value) == message, what
    # nothing moved, nothing was written, and the totals the messages name go on
    assert (sim.steps, sim.time, sim.hash()) == (n, 0.02, h)
    assert sorted(os.listdir(tmp_path / "r1")) == before
    rec = sim.run(steps=n + 10)
    assert sim.steps == n + 10 and list(rec.diagnostics["step"]) == [n + 10]
    rec = sim.run(until=0.025)
    assert sim.time == 0.025 and list(rec.diagnostics["time"]) == [0.025]


def test_a_run_at_step_0_still_records_frame_0():
    # (as `eddy run --steps 0` writes frame 0: only a simulation that has stepped is refused)
    sim = eddy.Simulation(SCENE, formats=[])
    for rec in (sim.run(steps=0), sim.run(until=0)):
        assert list(rec.diagnostics["frame"]) == [0] and rec.completed
    assert sim.steps == 0


def test_record_diagnostics_columns_map_to_diagnostics_csv_by_name(tmp_path):
    # docs/python.md lists Record.diagnostics' columns and where each is in diagnostics.csv: read by
    # name, so columns diagnostics.csv gains after `particles` leave the mapping as it is.
    sim = eddy.Simulation(SCENE, out=str(tmp_path), formats=[], set={"time.output_interval": 0.0025})
    d = sim.run(until=0.005, write=True).diagnostics
    masses = sim.field("mass").astype(float)
    sim.close()
    assert d.dtype.names == ("time", "step", "frame", "kinetic_energy", "momentum", "mass", "density_error_mean",
                             "density_error_max", "max_speed", "particles", "potential_energy", "total_energy",
                             "density_error_p99")
    assert d["momentum"].shape == (len(d), 3)
    with open(tmp_path / "diagnostics.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(d) == 3
    same = {"time": "time", "step": "step", "kinetic_energy": "kinetic_energy", "density_error_mean":
            "density_error_mean", "density_error_max": "density_error_max", "max_speed": "max_speed",
            "particles": "particles", "potential_energy": "potential_energy", "total_energy": "total_energy",
            "density_error_p99": "density_error_p99"}
    for col, name in same.items():
        assert [float(r[name]) for r in rows] == pytest.approx(list(d[col].astype(float)), rel=1e-9), col
    for i, axis in enumerate("xyz"):
        assert [float(r[f"momentum_{axis}"]) for r in rows] == pytest.approx(list(d["momentum"][:, i]),
                                                                             rel=1e-9, abs=1e-12)
    assert "frame" not in rows[0] and "mass" not in rows[0] and "wall_ms" in rows[0]
    # frame is the index of the frame file; mass the particles' total, constant here (none leaves)
    assert list(d["frame"]) == [0, 1, 2]
    assert d["mass"] == pytest.approx([masses.sum()] * 3, rel=1e-12)
    # the total is the kinetic energy plus the potential (an independent sum of the two columns)
    assert list(d["total_energy"]) == pytest.approx(list(d["kinetic_energy"] + d["potential_energy"]), rel=1e-12)


def test_density_error_p99_is_numpys_percentile():
    """The 99th percentile of |rho/rho0 - 1| (diagnostics.h) against NumPy's percentile of the same
    errors, method "inverted_cdf" (the value of rank ceil(0.99 n)): an independent selection. At a
    state where the errors spread (the dam break after 30 ms) the maximum and the mean lie elsewhere."""
    import json
    with open(SCENE) as f:
        rho0 = json.load(f)["materials"][0].get("rest_density", 1000.0)
    sim = eddy.Simulation(SCENE, formats=[])
    for until in (0.0, 0.03):
        d = sim.run(until=until).diagnostics if until else sim.diagnostics()
        e = np.abs(sim.field("density").astype(np.float64) / rho0 - 1.0)
        expected = np.percentile(e, 99, method="inverted_cdf")
        assert d["density_error_p99"][-1] == expected
        assert d["density_error_max"][-1] == e.max()
    assert e.max() > expected > np.mean(e)
    sim.close()


def test_written_outputs_carry_run_json(tmp_path):
    """A Simulation's first write records what made the files in run.json as `eddy run` does: the scene
    as opened (overrides in), the solver and its parameters, the materials. (A resumed Simulation adds
    its own entry, keeping the first: test_run_folder.py, which also checks that a checkpoint beside the
    files a Simulation wrote is continued as `eddy resume` continues a run's.)"""
    import json
    out = tmp_path / "py"
    sim = eddy.Simulation(SCENE, out=str(out), set={"time.end": 0.002, "materials[0].viscosity": 0.3})
    sim.run(write=True)
    sim.checkpoint()
    sim.close()
    with open(out / "run.json") as f:
        r = json.load(f)
    assert r["format"] == "eddy.run/1"
    assert r["scene"]["materials"][0]["viscosity"] == 0.3
    assert [c["command"] for c in r["commands"]] == ["python run"]
    c = r["commands"][0]
    assert c["from"] == {"time": 0, "step": 0}
    assert c["solver"]["id"] == "tait" and c["solver"]["parameters"]["sound_speed"] == 20
    assert c["materials"][0]["parameters"]["viscosity"] == 0.3
    assert "argv" not in c and "log" not in c
    res = eddy.Simulation.resume(str(out))
    res.run(until=0.003, write=True)
    res.close()
    with open(out / "run.json") as f:
        r2 = json.load(f)
    assert [c["command"] for c in r2["commands"]] == ["python run", "python resume"]
    assert r2["commands"][0] == r["commands"][0]
