"""Shared fixtures of the Python package's tests (docs/python.md). ctest sets PYTHONPATH to the
build tree's package and EDDY_EXE to the `eddy` command of the same build."""
import fcntl
import os
import subprocess
import sys

import pytest

SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCENES = os.path.join(SOURCE, "scenes")


def eddy_exe():
    exe = os.environ.get("EDDY_EXE")
    if not exe:
        pytest.skip("EDDY_EXE is not set (run the tests through ctest)")
    return exe


def test_plugins():
    d = os.environ.get("EDDY_TEST_PLUGINS")
    if not d or not os.path.isdir(d):
        pytest.skip("EDDY_TEST_PLUGINS is not set (run the tests through ctest)")
    return d


def run_eddy(*args, env=None):
    """The `eddy` command: (exit status, stdout, stderr)."""
    e = dict(os.environ, **(env or {}))
    p = subprocess.run([eddy_exe(), *args], capture_output=True, text=True, env=e, timeout=120)
    return p.returncode, p.stdout, p.stderr


def run_python(code, env=None, **kw):
    """A fresh interpreter running `code` (for what needs its own process: a registry made with
    EDDY_PLUGIN_PATH, a signal)."""
    e = dict(os.environ, **(env or {}))
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=e, **kw)


@pytest.fixture
def scenes():
    return SCENES


def in_use(d, instead="choose another out folder"):
    """The message of a folder another eddy run holds (host/drive/folder_lock.h)."""
    return f"output folder '{d}' is in use by another eddy run; wait for it to finish" + (f" or {instead}" if instead else "")


def held_here(d, instead="choose another out folder"):
    """The message of a folder another Simulation of this process holds (folder_lock.h)."""
    return (f"output folder '{d}' is held by another Simulation (or run) in this process; close() it first"
            + (f" or {instead}" if instead else ""))


def free(d):
    """True when nothing holds d's lock."""
    fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    finally:
        os.close(fd)


def snapshot(d):
    """Every file under d with its bytes."""
    out = {}
    for root, _, files in os.walk(d):
        for f in files:
            p = os.path.join(root, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, d)] = fh.read()
    return out
