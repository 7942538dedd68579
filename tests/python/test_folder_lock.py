"""An output folder written by one eddy run at a time, from Python too (host/drive/folder_lock.h,
docs/python.md): a Simulation that writes holds its folder until close() or until it is collected
(Simulation.resume holds it while it reads the checkpoint); another process or Simulation writing into
it is refused with FileError before anything in the folder changes. Before the lock both wrote: the second truncated the first one's
diagnostics.csv and wrote its frames over the first one's."""
import fcntl
import gc
import os

import pytest

import eddy
from conftest import SCENES, free, held_here, in_use, run_eddy, snapshot

SCENE = os.path.join(SCENES, "dam_break_2d.json")


class Held:
    """The folder's lock taken by this process through its own descriptor, as flock(1) or another eddy
    process takes it."""

    def __init__(self, d):
        self.fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
        fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def release(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def test_run_into_a_held_folder_is_refused_before_a_step(tmp_path):
    d = str(tmp_path)
    with eddy.Simulation(SCENE, out=d, formats=["csv"]) as first:
        first.run(steps=20, write=True)
    before = snapshot(d)
    held = Held(d)
    try:
        sim = eddy.Simulation(SCENE, out=d, formats=["csv"])
        with pytest.raises(eddy.FileError) as e:
            sim.run(steps=20, write=True)
        assert str(e.value) == in_use(d)
        assert sim.steps == 0
        with pytest.raises(eddy.FileError):
            sim.write_frame()
        assert snapshot(d) == before
        sim.close()
    finally:
        held.release()
    with eddy.Simulation(SCENE, out=d, formats=["csv"]) as sim:
        sim.run(steps=20, write=True)
    assert free(d)


def test_two_simulations_into_one_folder_and_the_command_beside_them(tmp_path):
    d = str(tmp_path)
    a = eddy.Simulation(SCENE, out=d, formats=["csv"])
    b = eddy.Simulation(SCENE, out=d, formats=["csv"])
    a.run(steps=20, write=True)
    assert not free(d)
    before = snapshot(d)
    with pytest.raises(eddy.FileError) as e:
        b.run(steps=20, write=True)
    assert str(e.value) == held_here(d)
    status, _, err = run_eddy("run", SCENE, "--steps", "5", "--quiet", "--out", d)
    assert status == 1
    assert err == "eddy: error: " + in_use(d, "choose another --out") + "\n"
    assert snapshot(d) == before
    a.close()
    assert free(d)
    b.run(steps=20, write=True)
    b.close()


def test_a_collected_simulation_lets_its_folder_go(tmp_path):
    d = str(tmp_path)
    a = eddy.Simulation(SCENE, out=d, formats=["csv"])
    a.run(steps=10, write=True)
    view = a.field("position")        # keeps the session alive, not the folder
    assert not free(d)
    del a
    gc.collect()
    assert free(d)
    assert view.shape[0] > 0


def test_resume_of_a_held_folder_is_refused(tmp_path):
    d = str(tmp_path)
    # (stepped, not written: a folder with a Simulation's tables beside its checkpoint, which says it
    # wrote none, is refused by a resume that writes, as `eddy resume` refuses it; test_run_folder.py)
    with eddy.Simulation(SCENE, out=d, formats=["csv"]) as sim:
        sim.step(20)
        sim.checkpoint()
    before = snapshot(d)
    held = Held(d)
    try:
        with pytest.raises(eddy.FileError) as e:
            eddy.Simulation.resume(d)
        assert str(e.value) == in_use(d, None)
        assert snapshot(d) == before
    finally:
        held.release()
    # Held while the checkpoint is read, then from the first write: a resumed Simulation that only reads
    # keeps nobody out; one that writes keeps a command's resume of the same folder out.
    sim = eddy.Simulation.resume(d)
    assert free(d)
    sim.run(steps=30, write=True)
    assert not free(d)
    status, _, err = run_eddy("resume", d, "--steps", "40", "--quiet", "--no-picture")
    assert status == 1 and err == "eddy: error: " + in_use(d, None) + "\n"
    sim.checkpoint(d)                 # into the folder it holds
    sim.close()
    assert free(d)


def test_checkpoint_into_a_held_folder_is_refused(tmp_path):
    d = str(tmp_path)
    with open(os.path.join(d, "checkpoint.eddy"), "w") as f:
        f.write("another run's checkpoint")
    before = snapshot(d)
    held = Held(d)
    try:
        with eddy.Simulation(SCENE, formats=[]) as sim:
            sim.step(2)
            with pytest.raises(eddy.FileError) as e:
                sim.checkpoint(d)
            assert str(e.value) == in_use(d, "choose another folder")
        assert snapshot(d) == before
    finally:
        held.release()


def test_compare_into_a_held_folder_is_refused_and_keeps_its_summary(tmp_path):
    d = str(tmp_path)
    with open(os.path.join(d, "summary.csv"), "w") as f:
        f.write("the summary of a comparison still writing here\n")
    before = snapshot(d)
    held = Held(d)
    try:
        with pytest.raises(eddy.FileError) as e:
            eddy.compare(SCENE, ["tait"], out=d, steps=2)
        assert str(e.value) == in_use(d, "choose another --out")
        assert snapshot(d) == before
    finally:
        held.release()
    table = eddy.compare(SCENE, ["tait"], out=d, steps=2)
    assert list(table["status"]) == ["ok"]
