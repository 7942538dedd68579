"""A Simulation belongs to the process that opened it (docs/python.md, "Forked processes";
host/session/session.h, "Processes"; host/drive/folder_lock.h). A child made by os.fork() (multiprocessing's
default start method on Linux) shared the parent's folder lock through its copy of the descriptor, so the
folder stayed held until the child exited, even after the parent had closed its Simulation; and the child
could step the parent's Simulation and write frames and diagnostics.csv rows into the parent's folder,
interleaved with the parent's own. Now the child holds no folder of the parent's, and its copy of a
Simulation reads but refuses to step or write with eddy.Error, naming both processes; a Simulation that
another thread was stepping at the fork is part-way through that step in the child, which refuses to read
it too (the fork cleared that thread's claim, and the child read the torn state)."""
import csv
import gc
import json
import multiprocessing
import os
import signal
import threading
import time
import warnings

import pytest

import eddy
from conftest import SCENES, free, in_use, run_eddy, snapshot

SCENE = os.path.join(SCENES, "dam_break_2d.json")


def refusal(parent, child):
    return (f"this simulation was opened by process {parent}; a process forked from it ({child}) cannot step or "
            "write it; open a new Simulation in the child")


TORN = ("this simulation was stepping in another thread when this process was forked; its state here is "
        "part-way through a step; open a new Simulation in the child")
ELSEWHERE = "the simulation is stepping in another thread; use a Simulation from one thread at a time"


def diagnostics_steps(d):
    with open(os.path.join(d, "diagnostics.csv")) as f:
        return [int(float(row["step"])) for row in csv.DictReader(f)]


def outcome(call):
    """'no error', or the exception's class name and message."""
    try:
        call()
        return "no error"
    except Exception as e:  # noqa: BLE001 - the class is what is checked
        return f"{type(e).__name__}: {e}"


def os_fork():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # (3.12+: a fork of a process with threads)
        return os.fork()


def end_if_stuck():
    """In a child: ended by SIGALRM after 30 s, so that one stuck (stepping on the parent's OpenMP
    threads, which it lacks) fails its test instead of hanging it."""
    signal.signal(signal.SIGALRM, signal.SIG_DFL)
    signal.alarm(30)


class Child:
    """A child made by os.fork() that runs body() (its JSON result sent back), then lives on until
    finish(): it never returns into pytest."""

    def __init__(self, body):
        r, w = os.pipe()
        hold_r, hold_w = os.pipe()
        pid = os_fork()
        if pid == 0:
            code = 1
            try:
                end_if_stuck()
                os.close(r)
                os.close(hold_w)
                try:
                    out = {"result": body()}
                except BaseException as e:  # noqa: BLE001 - reported to the parent
                    out = {"raised": f"{type(e).__name__}: {e}"}
                os.write(w, (json.dumps(out) + "\n").encode())
                signal.alarm(0)
                os.read(hold_r, 1)      # end of file once the parent lets it go
                code = 0
            finally:
                os._exit(code)
        os.close(w)
        os.close(hold_r)
        self.pid, self.r, self.hold_w = pid, r, hold_w

    def result(self):
        line = b""
        while not line.endswith(b"\n"):
            chunk = os.read(self.r, 65536)
            assert chunk, "the child ended without a result"
            line += chunk
        out = json.loads(line)
        assert "raised" not in out, out["raised"]
        return out["result"]

    def alive(self):
        return os.waitpid(self.pid, os.WNOHANG) == (0, 0)

    def finish(self):
        """Lets the child end; its wait status."""
        if self.hold_w is None:
            return None
        os.close(self.hold_w)
        os.close(self.r)
        self.hold_w = None
        for _ in range(200):
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return status
            time.sleep(0.05)
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        return "killed: the child did not end within 10 s"


@pytest.fixture
def fork():
    children = []

    def start(body):
        children.append(Child(body))
        return children[-1]

    yield start
    for c in children:
        c.finish()


def test_the_parent_lets_its_folder_go_while_a_forked_child_lives(tmp_path, fork):
    d = str(tmp_path)
    sim = eddy.Simulation(SCENE, out=d, formats=["csv"])
    sim.run(steps=10, write=True)
    child = fork(os.getpid)
    assert child.result() == child.pid          # the child runs, its copies of the lock closed
    assert not free(d)                          # ... and the parent holds the folder still
    status, _, err = run_eddy("run", SCENE, "--steps", "5", "--quiet", "--no-picture", "--format", "csv", "--out", d)
    assert status == 1 and err == "eddy: error: " + in_use(d, "choose another --out") + "\n"
    sim.close()
    assert child.alive()
    assert free(d)                              # the child's copy kept it held until the child ended
    with eddy.Simulation(SCENE, out=d, formats=["csv"]) as other:
        other.run(steps=10, write=True)
    status, _, err = run_eddy("run", SCENE, "--steps", "5", "--quiet", "--no-picture", "--format", "csv", "--out", d)
    assert status == 0, err
    assert child.alive()
    assert child.finish() == 0


def test_a_forked_child_reads_but_cannot_step_or_write_the_parents_simulation(tmp_path, fork):
    d, own_dir = str(tmp_path / "run"), str(tmp_path / "child")
    sim = eddy.Simulation(SCENE, out=d, formats=["csv"], threads=2)
    sim.run(steps=10, write=True)
    before, steps, state_hash = snapshot(d), sim.steps, sim.hash()
    calls = {
        "step": lambda: sim.step(1),
        "run": lambda: sim.run(steps=20),
        "run(write=True)": lambda: sim.run(steps=20, write=True),
        "write_frame": sim.write_frame,
        "measure(write=True)": lambda: sim.measure(write=True),
        "checkpoint()": sim.checkpoint,
        "checkpoint(dir)": lambda: sim.checkpoint(own_dir),
    }

    def body():
        out = {name: outcome(call) for name, call in calls.items()}
        out["read"] = [sim.steps, sim.hash(), sim.field("position").shape[0] == sim.count,
                       float(sim.measure().diagnostics["kinetic_energy"][0]) > 0]
        # The parent's folder is the parent's: a Simulation of the child's is refused there ...
        into_parent = eddy.Simulation(SCENE, out=d, formats=["csv"])
        out["into the parent's folder"] = outcome(lambda: into_parent.run(steps=5, write=True))
        into_parent.close()
        # ... and writes into a folder of its own, on one thread: OpenMP cannot start threads again in a
        # forked child (GNU OpenMP's first parallel region waited for ever for the parent's threads).
        with eddy.Simulation(SCENE, out=own_dir, formats=["csv"], threads=2) as own:
            own.run(steps=10, write=True)
            out["own"] = [diagnostics_steps(own_dir), own.info["threads"]]
        # Closing and collecting the copy touch nothing of the parent's.
        sim.close()
        out["closed"] = outcome(lambda: sim.step(1))
        gc.collect()
        return out

    child = fork(body)
    out = child.result()
    want = "Error: " + refusal(os.getpid(), child.pid)
    assert {name: out[name] for name in calls} == {name: want for name in calls}
    assert out["read"] == [steps, state_hash, True, True]
    assert out["into the parent's folder"] == "FileError: " + in_use(d)
    assert out["own"] == [[0, 10], 1]
    assert out["closed"] == "Error: the simulation is closed"
    assert child.finish() == 0
    assert snapshot(d) == before
    assert not os.path.exists(os.path.join(own_dir, "checkpoint.eddy"))
    assert not free(d)
    # The parent goes on where it was.
    assert sim.steps == steps
    sim.run(steps=20, write=True)
    assert diagnostics_steps(d) == [0, 10, 20]
    sim.close()
    assert free(d)


def test_a_fork_in_on_frame_goes_on_in_the_parent_and_stops_in_the_child(tmp_path):
    d = str(tmp_path)
    sim = eddy.Simulation(SCENE, out=d, formats=["csv"], set={"time.output_interval": 0.0005})  # a frame per 10 steps
    r, w = os.pipe()
    forked = []

    def on_frame(frame):
        if not forked:
            forked.append(os_fork())
            if forked[0] == 0:
                end_if_stuck()

    try:
        sim.run(steps=40, write=True, on_frame=on_frame)
        result = f"ran to step {sim.steps}"
    except BaseException as e:  # noqa: BLE001 - the child reports whatever ended its run
        result = f"{type(e).__name__}: {e}"
    if forked and forked[0] == 0:
        try:
            sim.close()
            gc.collect()
            os.write(w, (result + "\n").encode())
        finally:
            os._exit(0)
    os.close(w)
    with os.fdopen(r) as f:
        child_result = f.read()
    _, status = os.waitpid(forked[0], 0)
    assert status == 0
    assert child_result == "Error: " + refusal(os.getpid(), forked[0]) + "\n"
    assert result == "ran to step 40"
    # The child wrote no row of its own among the parent's (it went on to write steps 20, 30 and 40 again).
    assert diagnostics_steps(d) == [0, 10, 20, 30, 40]
    sim.close()
    assert free(d)


def test_a_multiprocessing_worker_is_refused_and_keeps_no_folder(tmp_path):
    d = str(tmp_path)
    ctx = multiprocessing.get_context("fork")
    sim = eddy.Simulation(SCENE, out=d, formats=["csv"])
    sim.run(steps=10, write=True)
    parent, conn = ctx.Pipe()
    done = ctx.Event()

    def worker():
        end_if_stuck()
        conn.send((os.getpid(), outcome(lambda: sim.step(5))))
        signal.alarm(0)
        done.wait(30)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        p = ctx.Process(target=worker)
        p.start()
    conn.close()                      # (the worker's end: recv() then ends with the worker)
    try:
        pid, said = parent.recv()
        assert said == "Error: " + refusal(os.getpid(), pid)
        sim.close()
        assert p.is_alive()
        assert free(d)
    finally:
        done.set()
        p.join(30)
    assert p.exitcode == 0


class SteppingThread:
    """A thread stepping `sim` while the test goes on: `how` "step" forks in the middle of a step (the GIL
    released in the core), "run" while the run waits in its on_frame callback (the claim held)."""

    def __init__(self, sim, how):
        self.inside, self.release, self.result = threading.Event(), threading.Event(), {}

        def wait(frame):
            if frame == 1:
                self.inside.set()
                self.release.wait(30)

        def worker():
            try:
                if how == "step":
                    self.result["out"] = sim.step(600)          # about a second
                else:
                    self.result["out"] = sim.run(steps=20, on_frame=wait).completed
            except BaseException as e:  # noqa: BLE001 - checked by the test
                self.result["out"] = f"{type(e).__name__}: {e}"
        self.thread = threading.Thread(target=worker)
        self.thread.start()
        if how == "run":
            assert self.inside.wait(30)
        else:       # until the step is under way (the GIL is held from here to the fork: the claim stays)
            while self.thread.is_alive() and outcome(lambda: sim.steps) != "Error: " + ELSEWHERE:
                time.sleep(0.001)
        assert outcome(lambda: sim.steps) == "Error: " + ELSEWHERE

    def join(self):
        self.release.set()
        self.thread.join(60)
        assert not self.thread.is_alive()
        return self.result["out"]


@pytest.mark.parametrize("how", ["step", "run"])
def test_a_child_forked_while_another_thread_steps_refuses_to_read_that_simulation(tmp_path, fork, how):
    """The fork cleared the stepping thread's claim in the child, where that thread is gone, so the child
    read (and hashed, measured, viewed) a world frozen part-way through its step."""
    sim = eddy.Simulation(SCENE, formats=[], set={"time.output_interval": 0.0005})
    other = eddy.Simulation(SCENE, formats=[])
    other.step(5)
    other_hash = other.hash()
    new_dir = tmp_path / "new" / "nested"
    calls = {
        "steps": lambda: sim.steps,
        "info": lambda: sim.info,
        "fields": lambda: sim.fields,
        "field": lambda: sim.field("position"),
        "ids": lambda: sim.ids,
        "materials": lambda: sim.materials,
        "by_id": lambda: sim.by_id("velocity"),
        "measure": sim.measure,
        "hash": sim.hash,
        "step": lambda: sim.step(1),
        "run": lambda: sim.run(steps=1000),
        "write_frame": sim.write_frame,
        "checkpoint(dir)": lambda: sim.checkpoint(str(new_dir)),
    }

    def body():
        out = {name: outcome(call) for name, call in calls.items()}
        out["new folder"] = os.path.exists(tmp_path / "new")
        # Another Simulation of the parent's reads, and refuses to step, as in any forked child.
        out["other"] = [other.steps, other.hash() == other_hash, outcome(lambda: other.step(1))]
        # Closing the torn copy touches nothing of the parent's; then it is closed like any other.
        sim.close()
        out["closed"] = outcome(lambda: sim.steps)
        gc.collect()
        with eddy.Simulation(SCENE, formats=[]) as own:
            own.step(10)
            out["own"] = own.steps
        return out

    stepping = SteppingThread(sim, how)
    try:
        child = fork(body)
        out = child.result()
    finally:
        ended = stepping.join()
    assert {name: out[name] for name in calls} == {name: "Error: " + TORN for name in calls}
    assert out["new folder"] is False
    assert out["other"] == [5, True, "Error: " + refusal(os.getpid(), child.pid)]
    assert out["closed"] == "Error: the simulation is closed"
    assert out["own"] == 10
    assert child.finish() == 0
    # The parent's stepping thread finished its call; the parent reads and steps the simulation again.
    assert ended is True
    assert sim.steps == {"step": 600, "run": 20}[how]
    sim.step(1)
    sim.close()


def test_a_refused_checkpoint_leaves_no_new_folder(tmp_path, fork):
    """checkpoint(dir) made the folder (os.makedirs) before the core refused the call, and left it."""
    sim = eddy.Simulation(SCENE, formats=[], set={"time.output_interval": 0.0005})
    # In a forked child (the parent's Simulation steps and writes only in the parent).
    child = fork(lambda: [outcome(lambda: sim.checkpoint(str(tmp_path / "forked" / "a" / "b"))),
                          os.path.exists(tmp_path / "forked")])
    assert child.result() == ["Error: " + refusal(os.getpid(), child.pid), False]
    assert child.finish() == 0
    # While another thread steps it.
    stepping = SteppingThread(sim, "run")
    try:
        said = outcome(lambda: sim.checkpoint(str(tmp_path / "stepping" / "a" / "b")))
    finally:
        assert stepping.join() is True
    assert said == "Error: " + ELSEWHERE
    assert not os.path.exists(tmp_path / "stepping")
    # A checkpoint that is written makes its folders and keeps them.
    assert sim.checkpoint(str(tmp_path / "kept" / "a")) == str(tmp_path / "kept" / "a")
    assert os.path.isfile(tmp_path / "kept" / "a" / "checkpoint.eddy")
    # Once closed.
    sim.close()
    assert outcome(lambda: sim.checkpoint(str(tmp_path / "closed" / "a"))) == "Error: the simulation is closed"
    assert not os.path.exists(tmp_path / "closed")
    assert sorted(os.listdir(tmp_path)) == ["kept"]
