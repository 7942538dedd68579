"""Ctrl-C: SIGINT sent to a process stepping a long run stops it at a step boundary with
KeyboardInterrupt; the simulation stays usable, Python's own handler is back, the process exits
cleanly. An exception raised by an on_frame callback stops the run the same way."""
import os
import signal
import time

import pytest

import eddy
from conftest import SCENES, run_python

SCENE = os.path.join(SCENES, "tait_dam_break_2d.json")

CHILD = f"""
import signal, sys
import eddy
sim = eddy.Simulation({SCENE!r}, formats=[])
h0 = signal.getsignal(signal.SIGINT)
print("ready", flush=True)
try:
    sim.run(steps=100000, record=False)     # about a minute: the signal must stop it
    print("not interrupted")
    sys.exit(3)
except KeyboardInterrupt:
    print("interrupted", sim.steps, repr(sim.time), flush=True)
assert signal.getsignal(signal.SIGINT) is h0
n = sim.steps
# a step boundary: the state of a fresh simulation stepped n times
fresh = eddy.Simulation({SCENE!r}, formats=[])
fresh.step(n)
print("same", sim.hash() == fresh.hash(), sim.time == fresh.time)
sim.step(2)
print("continued", sim.steps)
"""


def test_sigint_raises_keyboard_interrupt_at_a_step_boundary():
    import subprocess, sys
    p = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    try:
        assert p.stdout.readline().strip() == "ready"
        time.sleep(1.0)
        p.send_signal(signal.SIGINT)
        out, err = p.communicate(timeout=60)  # (a hang fails here; no figure of speed is asserted)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 0, err
    lines = out.splitlines()
    kind, steps, t = lines[0].split()
    assert kind == "interrupted" and 0 < int(steps) < 100000
    assert lines[1] == "same True True"
    assert lines[2] == f"continued {int(steps) + 2}"


def test_on_frame_exception_propagates():
    sim = eddy.Simulation(SCENE, formats=[])
    seen = []

    def on_frame(frame):
        seen.append((frame, sim.time))
        if frame == 2:
            raise ValueError("stop here")

    with pytest.raises(ValueError, match="^stop here$"):
        sim.run(until=0.3, on_frame=on_frame)
    assert [f for f, _ in seen] == [1, 2]
    assert seen[1][1] == 2 * 0.0075
    assert sim.time == 2 * 0.0075
    sim.step(1)   # still usable
