"""The same states from Python as from the `eddy` command: the state hash `eddy run --hash` prints
equals Simulation.hash() for the same scene, overrides and stepping (run to a step count, to a
time, in chunks of step(n), from a dict scene, and resumed from a checkpoint)."""
import json
import os

import eddy
from conftest import SCENES, eddy_exe as eddy_exe_path, run_eddy

SETS = {"time.output_interval": 0.0025}   # frames every 50 steps: the plan lands on them


def command_hash(scene, *args):
    rc, out, err = run_eddy("run", scene, "--quiet", "--format", "csv", *args)
    assert rc == 0, err
    lines = [l for l in out.splitlines() if l.startswith("state-hash: ")]
    assert len(lines) == 1, out
    return int(lines[0].split()[1], 16)


def test_run_to_steps_matches_command(tmp_path):
    scene = os.path.join(SCENES, "tait_dam_break_2d.json")
    expected = command_hash(scene, "--steps", "120", "--hash", "--out", str(tmp_path / "cmd"),
                            "--set", "time.output_interval=0.0025")
    with eddy.Simulation(scene, set=SETS, formats=[]) as sim:
        sim.run(steps=120, record=False)
        assert sim.steps == 120
        assert sim.hash() == expected


def test_steps_in_chunks_and_dict_scene_match_command(tmp_path):
    scene = os.path.join(SCENES, "pbf_dam_break_2d.json")
    expected = command_hash(scene, "--until", "0.02", "--hash", "--out", str(tmp_path / "cmd"),
                            "--set", "solvers.pbf.iterations=3")
    with open(scene) as f:
        doc = json.load(f)
    doc["solvers"]["pbf"]["iterations"] = 3
    with eddy.Simulation(doc, name=scene, formats=[]) as sim:
        # 40 steps of dt 0.0005 reach 0.02 s; chunks that straddle the frames at 0.0075 s
        while sim.steps < 40:
            sim.step(7 if sim.steps + 7 <= 40 else 40 - sim.steps)
        assert abs(sim.time - 0.02) < 1e-12
        assert sim.hash() == expected


def test_resume_from_python_checkpoint_matches_command(tmp_path):
    scene = os.path.join(SCENES, "dam_break_2d.json")
    expected = command_hash(scene, "--steps", "60", "--hash", "--out", str(tmp_path / "cmd"))
    with eddy.Simulation(scene, out=str(tmp_path / "py"), formats=["csv"]) as sim:
        sim.run(steps=25, record=False)
        sim.checkpoint()
    resumed = eddy.Simulation.resume(tmp_path / "py")
    assert resumed.steps == 25
    resumed.run(steps=60, record=False)
    assert resumed.hash() == expected
    rc, out, err = run_eddy("resume", str(tmp_path / "py"), "--steps", "60", "--hash", "--quiet")
    assert rc == 0, err
    assert f"state-hash: {expected:016x}" in out


def test_resume_from_pieces_of_two_processes_matches_command(tmp_path):
    """Simulation.resume reads a checkpoint written on several processes (pieces and a manifest), merged
    into this one process as `eddy resume` does; it once said there was no checkpoint."""
    import shutil
    import pytest
    mpirun = shutil.which("mpirun")
    rc, version, _ = run_eddy("--version")
    if not mpirun or "processes: MPI" not in version:
        pytest.skip("needs mpirun and an eddy built with MPI")
    scene = os.path.join(SCENES, "dam_break_2d.json")
    expected = command_hash(scene, "--steps", "60", "--hash", "--out", str(tmp_path / "cmd"))
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMP_NUM_THREADS="1")
    import subprocess
    p = subprocess.run([mpirun, "--oversubscribe", "-np", "2", eddy_exe_path(), "run", scene, "--steps", "25",
                        "--quiet", "--no-picture", "--format", "csv", "--out", str(tmp_path / "pieces")],
                       capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "pieces" / "checkpoint.manifest").exists()
    assert not (tmp_path / "pieces" / "checkpoint.eddy").exists()
    resumed = eddy.Simulation.resume(tmp_path / "pieces")
    assert resumed.steps == 25
    resumed.run(steps=60, record=False)
    assert resumed.hash() == expected


def test_checkpoint_over_pieces_of_two_processes_replaces_them(tmp_path):
    """A Simulation's checkpoint into a folder holding the pieces and manifest of a run on two processes
    removes them: a resume prefers the manifest, and came back at the older run's step (review)."""
    import shutil
    import subprocess
    import pytest
    mpirun = shutil.which("mpirun")
    rc, version, _ = run_eddy("--version")
    if not mpirun or "processes: MPI" not in version:
        pytest.skip("needs mpirun and an eddy built with MPI")
    scene = os.path.join(SCENES, "dam_break_2d.json")
    d = tmp_path / "pieces"
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMP_NUM_THREADS="1")
    p = subprocess.run([mpirun, "--oversubscribe", "-np", "2", eddy_exe_path(), "run", scene, "--steps", "4",
                        "--quiet", "--no-picture", "--out", str(d)], capture_output=True, text=True, env=env,
                       timeout=120)
    assert p.returncode == 0, p.stderr
    assert (d / "checkpoint.manifest").exists()
    # (the run's own simulation, resumed on one process from its pieces: a Simulation of another run
    # is refused that folder, test_run_folder.py)
    sim = eddy.Simulation.resume(d, threads=1)
    sim.step(5)
    sim.checkpoint(str(d))
    sim.close()
    assert not (d / "checkpoint.manifest").exists()
    assert not list(d.glob("checkpoint.p*.eddy"))
    resumed = eddy.Simulation.resume(d)
    assert resumed.steps == 9
    resumed.close()
