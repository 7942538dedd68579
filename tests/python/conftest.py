"""Shared fixtures of the Python package's tests (docs/python.md). ctest sets PYTHONPATH to the
build tree's package and EDDY_EXE to the `eddy` command of the same build."""
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
