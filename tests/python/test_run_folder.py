"""The output folder of run(write=True) follows the rules of `eddy run` and `eddy resume`
(host/drive/run_folder.h), checked against what the commands write for the same runs. A user's trial
found the package writing by rules of its own: a resumed Simulation started diagnostics.csv and
frames.pvd again (the run's earlier rows and frames dropped) and left probes.csv behind; a new one wrote
into a folder holding a stopped run, whose checkpoint `eddy resume` then continued among its files, and
into one holding a finished run, whose frames, probe table, picture and checkpoint it left beside its
own; and no Simulation wrote probes.csv."""
import csv
import json
import os
import shutil
import signal
import subprocess
import time

import pytest

import eddy
from conftest import SCENES, eddy_exe, run_eddy, snapshot

SCENE = os.path.join(SCENES, "tait_dam_break_2d.json")
# Frames every 0.0015 s, so that an end at 0.01 lies between frame times: the run's last frame is the
# final state, which a resume drops and writes again at its regular time.
INTERVAL = ["--set", "time.output_interval=0.0015"]
SETS = {"time.output_interval": 0.0015}
FORMATS = ["vtk", "csv"]


def _rows(path):
    """A table's rows without diagnostics.csv's wall_ms (the one column two runs differ in)."""
    with open(path) as f:
        return [{k: v for k, v in r.items() if k != "wall_ms"} for r in csv.DictReader(f)]


def _files(d):
    return sorted(os.path.relpath(os.path.join(r, f), d) for r, _, fs in os.walk(d) for f in fs)


def _commands(d):
    import json
    with open(os.path.join(d, "run.json")) as f:
        return json.load(f)["commands"]


def _same_outputs(py, cmd):
    """The frames, frames.pvd, diagnostics.csv (wall time aside) and probes.csv of two folders agree."""
    frames = sorted(os.listdir(os.path.join(cmd, "frames")))
    assert sorted(os.listdir(os.path.join(py, "frames"))) == frames
    for name in frames + ["../frames.pvd", "../probes.csv"]:
        a, b = (os.path.normpath(os.path.join(d, "frames", name)) for d in (py, cmd))
        with open(a, "rb") as fa, open(b, "rb") as fb:
            assert fa.read() == fb.read(), name
    assert _rows(os.path.join(py, "diagnostics.csv")) == _rows(os.path.join(cmd, "diagnostics.csv"))


def test_a_resumed_simulation_continues_the_run_files_as_eddy_resume(tmp_path):
    ref, py, cmd = (str(tmp_path / n) for n in ("ref", "py", "cmd"))
    rc, _, err = run_eddy("run", SCENE, "--until", "0.01", *INTERVAL, "--format", "vtk,csv", "--threads", "1",
                          "--quiet", "--out", ref)
    assert rc == 0, err
    shutil.copytree(ref, py)
    shutil.copytree(ref, cmd)
    sim = eddy.Simulation.resume(py, threads=1)
    sim.run(until=0.014, write=True)
    sim.close()
    rc, _, err = run_eddy("resume", cmd, "--until", "0.014", "--threads", "1", "--quiet")
    assert rc == 0, err
    _same_outputs(py, cmd)
    # the run's rows up to the checkpoint's last regular frame (t = 0.009) kept, then the new ones
    rows, before = _rows(os.path.join(py, "diagnostics.csv")), _rows(os.path.join(ref, "diagnostics.csv"))
    assert rows[:7] == before[:7] and len(rows) == 11
    assert [c["command"] for c in _commands(py)] == ["run", "python resume"]
    assert [c["command"] for c in _commands(cmd)] == ["run", "resume"]
    assert _commands(py)[0] == _commands(ref)[0]


def test_a_resume_of_a_checkpoint_without_outputs_starts_them_as_eddy_resume(tmp_path):
    """A Simulation's own checkpoint (no tables beside it): both start the files at the resume point."""
    py, cmd = str(tmp_path / "py"), str(tmp_path / "cmd")
    os.mkdir(py)
    with eddy.Simulation(SCENE, set=SETS, formats=FORMATS, threads=1) as sim:
        sim.step(130)
        sim.checkpoint(py)
    shutil.copytree(py, cmd)
    sim = eddy.Simulation.resume(py, threads=1)
    sim.run(until=0.012, write=True)
    sim.close()
    rc, _, err = run_eddy("resume", cmd, "--until", "0.012", "--threads", "1", "--quiet", "--no-picture")
    assert rc == 0, err
    _same_outputs(py, cmd)


def test_a_new_simulation_replaces_a_finished_run_whole_as_eddy_run(tmp_path):
    """Its frames, probe table, picture and checkpoint go; probes.csv is written as `eddy run` writes it."""
    py, cmd = str(tmp_path / "py"), str(tmp_path / "cmd")
    rc, _, err = run_eddy("run", SCENE, "--until", "0.01", *INTERVAL, "--format", "vtk,csv", "--threads", "1",
                          "--quiet", "--out", py)
    assert rc == 0, err
    assert {"picture.png", "checkpoint.eddy", "probes.csv", "frames/frame_00007.vtp"} <= set(_files(py))
    shutil.copytree(py, cmd)
    with eddy.Simulation(SCENE, out=py, set=SETS, formats=FORMATS, threads=1) as sim:
        sim.run(until=0.004, write=True)
    rc, _, err = run_eddy("run", SCENE, "--until", "0.004", *INTERVAL, "--format", "vtk,csv", "--threads", "1",
                          "--quiet", "--no-picture", "--out", cmd)
    assert rc == 0, err
    # the command's folder less the checkpoint it writes at its end, which a Simulation does not
    assert _files(py) == [f for f in _files(cmd) if f != "checkpoint.eddy"]
    _same_outputs(py, cmd)
    assert [c["command"] for c in _commands(py)] == ["python run"]


def _stopped_run(d):
    """A run of `eddy run` stopped by Ctrl-C part-way (its checkpoint is work `eddy resume` continues)."""
    p = subprocess.Popen([eddy_exe(), "run", SCENE, "--until", "1", "--threads", "1", "--quiet", "--out", d],
                         stderr=subprocess.PIPE, text=True)
    table, deadline = os.path.join(d, "diagnostics.csv"), time.time() + 60
    while time.time() < deadline and p.poll() is None:
        if os.path.exists(table) and sum(1 for _ in open(table)) >= 3:
            break
        time.sleep(0.05)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    assert os.path.exists(os.path.join(d, "checkpoint.eddy"))


def test_a_new_simulation_is_refused_a_stopped_run_as_eddy_run(tmp_path):
    d = str(tmp_path / "stopped")
    _stopped_run(d)
    before = snapshot(d)
    rc, _, err = run_eddy("run", SCENE, "--until", "0.01", "--quiet", "--out", d)
    assert rc == 1 and "holds a run stopped at step" in err
    said = err.replace("choose another --out", "choose another out folder")
    sim = eddy.Simulation(SCENE, out=d)
    for write in (lambda: sim.run(until=0.01, write=True), sim.write_frame, lambda: sim.measure(write=True)):
        with pytest.raises(eddy.FileError) as e:
            write()
        assert "eddy: error: " + str(e.value) + "\n" == said
    assert sim.steps == 0
    sim.close()
    assert snapshot(d) == before
    # and `eddy resume` continues it as it would have
    rc, _, err = run_eddy("resume", d, "--until", "0.03", "--quiet")
    assert rc == 0, err


def test_a_simulations_checkpoint_beside_its_files_is_continued_as_eddy_resume(tmp_path):
    """write=True, then checkpoint() into the same folder: the checkpoint records the files as the run's
    (it recorded "no outputs", and `eddy resume` refused the folder for the tables it held)."""
    py, cmd = str(tmp_path / "py"), str(tmp_path / "cmd")
    with eddy.Simulation(SCENE, set=SETS, formats=FORMATS, threads=1, out=py) as sim:
        sim.run(until=0.009, write=True)
        assert sim.checkpoint() == py
    rc, _, err = run_eddy("run", SCENE, "--until", "0.009", *INTERVAL, "--format", "vtk,csv", "--threads", "1",
                          "--quiet", "--no-picture", "--out", cmd)
    assert rc == 0, err
    for d in (py, cmd):
        rc, _, err = run_eddy("resume", d, "--until", "0.014", "--threads", "1", "--quiet", "--no-picture")
        assert rc == 0, err
    _same_outputs(py, cmd)


def test_a_split_session_checkpoint_without_outputs_is_refused_beside_tables_as_eddy_resume(tmp_path):
    """A session on two processes checkpoints with "outputs": false in its pieces (tests/session/mpi_comm.c).
    Beside another run's tables `eddy resume` refuses it; a resumed Simulation read only checkpoint.eddy
    for that setting, took the pieces for a run's, and truncated the other run's diagnostics.csv."""
    program, mpirun = os.environ.get("EDDY_SESSION_MPI_COMM"), shutil.which("mpirun")
    if not program or not mpirun:
        pytest.skip("needs mpirun and the session MPI test program (an eddy built with MPI)")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMP_NUM_THREADS="1",
               OMPI_MCA_rmaps_base_oversubscribe="1")
    for d in ("ck0", "ck1"):
        os.mkdir(tmp_path / d)
    two = os.path.join(SCENES, "dam_break_2d.json")
    p = subprocess.run([mpirun, "--oversubscribe", "-np", "3", program, two, SCENE, "10"], cwd=str(tmp_path),
                       capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    d = str(tmp_path / "ck0")
    assert os.path.exists(os.path.join(d, "checkpoint.manifest"))
    with open(os.path.join(d, "diagnostics.csv"), "w") as f:
        f.write("time,step\n0,0\n")
    before = snapshot(d)
    rc, _, err = run_eddy("resume", d, "--steps", "12", "--quiet", "--no-picture")
    assert rc == 1 and "wrote no outputs there, but the folder holds another run's diagnostics.csv" in err
    # (what to copy is the manifest and its pieces: there is no checkpoint.eddy)
    assert "or copy checkpoint.manifest and its checkpoint.pK.eddy pieces to an empty folder" in err
    sim = eddy.Simulation.resume(d, threads=1)
    with pytest.raises(eddy.FileError) as e:
        sim.run(steps=12, write=True)
    sim.close()
    assert err == "eddy: error: " + str(e.value) + "\n"
    assert snapshot(d) == before


def test_a_checkpoint_of_its_own_before_writing_is_no_stopped_run(tmp_path):
    """step(), checkpoint() into the output folder, then run(write=True): the checkpoint found there is
    the Simulation's own, not a stopped run to keep (review: refused as one, which worked before); a
    checkpoint() after the writes records them, and `eddy resume` continues them."""
    d = str(tmp_path / "out")
    with eddy.Simulation(SCENE, set=SETS, formats=FORMATS, threads=1, out=d) as sim:
        sim.step(5)
        assert sim.checkpoint() == d
        sim.run(until=0.006, write=True)
        sim.checkpoint()
    rows = _rows(os.path.join(d, "diagnostics.csv"))
    assert rows and int(rows[0]["step"]) > 5  # the frames from the first one after the checkpoint
    rc, _, err = run_eddy("resume", d, "--until", "0.009", "--threads", "1", "--quiet", "--no-picture")
    assert rc == 0, err
    assert _rows(os.path.join(d, "diagnostics.csv"))[:len(rows) - 1] == rows[:-1]


def test_a_new_simulation_is_refused_a_folder_of_the_users_files_it_would_overwrite(tmp_path):
    """A folder that shows no run but holds a run.json of the user's and a file named as one of the run's
    frames is refused as `eddy run` refuses it (a teaching trial lost its own files to a run), with the
    files kept."""
    d = str(tmp_path / "theirs")
    os.makedirs(os.path.join(d, "frames"))
    with open(os.path.join(d, "run.json"), "w") as f:
        f.write('{"mine": 1}')
    with open(os.path.join(d, "frames", "frame_00001.vtp"), "w") as f:
        f.write("mine")
    before = snapshot(d)
    rc, _, err = run_eddy("run", SCENE, "--until", "0.01", "--quiet", "--no-picture", "--out", d)
    assert rc == 1 and "which no eddy run wrote there" in err
    assert snapshot(d) == before
    said = err.replace("choose another --out", "choose another out folder")
    sim = eddy.Simulation(SCENE, out=d)
    with pytest.raises(eddy.FileError) as e:
        sim.run(until=0.01, write=True)
    assert "eddy: error: " + str(e.value) + "\n" == said
    sim.close()
    assert snapshot(d) == before


def test_a_resumed_simulation_refuses_what_eddy_resume_refuses(tmp_path):
    """A checkpoint copied in from another run's folder, and a table edited by hand, are refused by a
    resumed Simulation as `eddy resume` refuses them (an adversarial trial: the command continued both,
    mixing another run's frames and a header of other columns into the folder), before anything is cut
    back: the folder's files are left as they were."""
    def run(out, *more):
        rc, _, err = run_eddy("run", SCENE, "--until", "0.01", "--quiet", "--no-picture", *INTERVAL, *more,
                              "--out", str(out))
        assert rc == 0, err

    def files(d):
        return {n: open(os.path.join(d, n), "rb").read() for n in ("diagnostics.csv", "probes.csv", "frames.pvd")}

    ours, other = tmp_path / "ours", tmp_path / "other"
    run(ours)
    run(other, "--set", "materials[0].viscosity=0.2")
    shutil.copy(other / "checkpoint.eddy", ours / "checkpoint.eddy")
    before = files(ours)
    sim = None
    with pytest.raises(eddy.FileError) as e:
        sim = eddy.Simulation.resume(str(ours), threads=1)
    assert sim is None
    assert (f"checkpoint '{ours}/checkpoint.eddy' is not of the run that '{ours}/run.json' records: its scene's "
            "'materials[0].viscosity' is 0.2, the run's") in str(e.value)
    assert files(ours) == before

    # Another run of the very same scene: told by the run_id its run.json and checkpoint carry.
    twin = tmp_path / "twin"
    run(twin)
    shutil.copy(twin / "checkpoint.eddy", ours / "checkpoint.eddy")
    ids = [json.load(open(d / "run.json"))["run_id"] for d in (twin, ours)]
    assert ids[0] != ids[1] and all(len(i) == 32 and int(i, 16) >= 0 for i in ids)
    before = files(ours)
    with pytest.raises(eddy.FileError) as e:
        eddy.Simulation.resume(str(ours), threads=1)
    assert (f"records: it is of another run of the same scene (run_id '{ids[0]}', the run's '{ids[1]}')"
            in str(e.value))
    assert files(ours) == before

    edited = tmp_path / "edited"
    run(edited)
    with open(edited / "probes.csv") as f:
        lines = f.read().split("\n")
    lines[0] = lines[0].rsplit(",", 1)[0]          # a column of the header removed by hand
    with open(edited / "probes.csv", "w") as f:
        f.write("\n".join(lines))
    before = files(edited)
    sim = eddy.Simulation.resume(str(edited), threads=1)
    try:
        with pytest.raises(eddy.FileError) as e:
            sim.run(until=0.012, write=True)
    finally:
        sim.close()
    assert f"'{edited}/probes.csv'" in str(e.value)
    assert files(edited) == before


def test_checkpoint_refuses_another_runs_checkpoint(tmp_path):
    """Simulation.checkpoint(dir) into a folder holding another run's checkpoint (a stopped or finished
    `eddy run`, another Simulation's) replaced it without a word, and that run could no longer be
    continued: refused before anything is written, naming the folder and the other run's run_id; a
    checkpoint of the simulation's own run is replaced as before (adversarial trial)."""
    d = tmp_path / "run"
    rc, _, err = run_eddy("run", SCENE, "--steps", "20", "--quiet", "--no-picture", "--out", str(d))
    assert rc == 0, err
    kept = open(d / "checkpoint.eddy", "rb").read()
    their_id = json.load(open(d / "run.json"))["run_id"]
    sim = eddy.Simulation(SCENE, threads=1)
    sim.step(5)
    with pytest.raises(eddy.FileError) as e:
        sim.checkpoint(str(d))
    assert str(e.value) == (f"checkpoint: the folder '{d}' holds the checkpoint of another run (step 20, t = 0.001 s, "
                            f"run_id '{their_id}'), which this one would replace, and that run could not be "
                            "continued; checkpoint into another folder, or move it away")
    assert open(d / "checkpoint.eddy", "rb").read() == kept
    own = tmp_path / "own"
    sim.checkpoint(str(own))
    sim.step(2)
    sim.checkpoint(str(own))                      # its own checkpoint, replaced
    sim.close()
    resumed = eddy.Simulation.resume(str(own), threads=1)
    assert resumed.steps == 7
    resumed.close()
    continued = eddy.Simulation.resume(str(d), threads=1)   # the run's own, resumed and checkpointed
    continued.step(3)
    continued.checkpoint(str(d))
    continued.close()



def _signal_at_fourth_frame(code, d, sig):
    """Runs `code` (argv: the scene, the folder d) in a child interpreter, sends it `sig` once its fourth
    frame is on disk, and returns its (returncode, stdout, stderr)."""
    import sys
    p = subprocess.Popen([sys.executable, "-c", code, SCENE, str(d)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 60
    while not (d / "frames" / "frame_00003.vtp").exists():
        assert time.time() < deadline and p.poll() is None, "no fourth frame"
        time.sleep(0.05)
    p.send_signal(sig)
    out, err = p.communicate(timeout=60)
    return p.returncode, out, err


def test_a_writing_run_that_did_not_finish_is_kept(tmp_path):
    """A Simulation's run(write=True) killed (SIGKILL) or interrupted (Ctrl-C) on its way left frames and
    tables that the next `eddy run` into its folder deleted without a word (adversarial trial: 32,038
    frames). run.json now records how each writing run() ended: a killed one's folder is refused until
    its files are moved away; an interrupted one writes its checkpoint as `eddy run` does, so its folder
    is a stopped run's, continued by a resume; one whose run() finished is replaced as before."""
    code = ("import sys, eddy\n"
            "eddy.Simulation(sys.argv[1], out=sys.argv[2], threads=1).run(until=10, write=True)\n")
    for sig, how in ((signal.SIGKILL, "never recorded its end: killed, or its process lost"),):
        d = tmp_path / f"sig{int(sig)}"
        _signal_at_fourth_frame(code, d, sig)
        before = snapshot(d)
        rc, _, err = run_eddy("run", SCENE, "--steps", "2", "--quiet", "--no-picture", "--out", str(d))
        assert rc == 1
        assert (f"the output folder '{d}' holds the frames and tables of a run that did not finish (a Python "
                "Simulation's writing run (python run) started ") in err
        assert how in err
        assert snapshot(d) == before
    # Ctrl-C: the run writes its checkpoint as `eddy run` does, so the folder is a stopped run's, which
    # a new run is refused and a resume continues (its frames were deleted before).
    d = tmp_path / "sigint"
    _, _, child_err = _signal_at_fourth_frame(code, d, signal.SIGINT)
    assert "KeyboardInterrupt" in child_err
    ended = json.load(open(d / "run.json"))["commands"][-1]["ended"]
    assert ended["outcome"] == "interrupted"
    rc, _, err = run_eddy("run", SCENE, "--steps", "2", "--quiet", "--no-picture", "--out", str(d))
    assert rc == 1
    assert (f"the output folder '{d}' holds a run stopped at step {ended['step']} (t = ") in err
    assert f"continue it with `eddy resume {d}`" in err
    resumed = eddy.Simulation.resume(str(d), threads=1)
    assert resumed.steps == ended["step"]
    resumed.close()
    # Caught in the program, which runs on: the later writing run writes its checkpoint too, so the
    # folder is not left as the stopped run of the older one.
    code2 = ("import sys, eddy\n"
             "sim = eddy.Simulation(sys.argv[1], out=sys.argv[2], threads=1)\n"
             "try:\n"
             "    sim.run(until=10, write=True)\n"
             "except KeyboardInterrupt:\n"
             "    pass\n"
             "sim.run(until=sim.time + 0.003, write=True)\n"
             "print(sim.steps)\n")
    d2 = tmp_path / "caught"
    rc, out, child_err = _signal_at_fourth_frame(code2, d2, signal.SIGINT)
    assert rc == 0, child_err
    later = eddy.Simulation.resume(str(d2), threads=1)
    assert later.steps == int(out.split()[-1])
    later.close()
    done = tmp_path / "done"
    sim = eddy.Simulation(SCENE, out=str(done), threads=1)
    sim.run(until=0.003, write=True)
    sim.run(until=0.006, write=True)   # (a second writing run, reopened and ended again)
    sim.close()
    assert json.load(open(done / "run.json"))["commands"][-1]["ended"]["outcome"] == "finished"
    rc, _, err = run_eddy("run", SCENE, "--steps", "2", "--quiet", "--no-picture", "--out", str(done))
    assert rc == 0, err
