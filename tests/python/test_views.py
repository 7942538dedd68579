"""Zero-copy views of the particle fields and their lifetime (docs/python.md, "Arrays")."""
import gc
import os
import sys

import numpy as np
import pytest

import eddy
from conftest import SCENES

SCENE = os.path.join(SCENES, "tait_dam_break_2d.json")


def open_sim(**kw):
    return eddy.Simulation(SCENE, formats=[], **kw)


def test_a_step_changes_an_existing_array():
    sim = open_sim()
    x = sim.field("position")
    before = x.copy()
    sim.step(20)
    # the same memory, now holding the state after the step (storage order: compare as sets by id)
    assert np.shares_memory(x, sim.field("position"))
    assert not np.array_equal(x, before)
    np.testing.assert_array_equal(x, sim.field("position"))
    assert x.shape == (sim.count, 3) and x.dtype == np.float32
    # the view's values are the ones the writers and the hash see, in id order
    np.testing.assert_array_equal(sim.by_id("position"), x[np.argsort(sim.ids, kind="stable")])


def test_views_are_read_only_by_default_and_writes_reach_the_solver():
    a, b = open_sim(), open_sim()
    with pytest.raises(ValueError):
        a.field("velocity")[0, 0] = 1.0
    v = a.field("velocity", writable=True)
    v[:, 0] = 0.5          # every particle moving right at 0.5 m/s, written between steps
    a.step(1)
    b.step(1)
    dt = a.info["last_dt"]
    ida, idb = a.by_id("position"), b.by_id("position")
    # the solver started from the edited velocities: x moved by 0.5 dt more (up to wall contacts)
    moved = (ida[:, 0] - idb[:, 0]) / dt
    assert np.median(moved) == pytest.approx(0.5, rel=1e-3)
    assert a.hash() != b.hash()


def test_an_array_keeps_the_memory_it_views_alive():
    sim = open_sim()
    sim.step(3)
    rho = sim.field("density")
    ids = sim.ids
    expected, expected_ids = rho.copy(), ids.copy()
    core = rho.base
    assert isinstance(core, eddy._eddy.Core)
    sim.close()
    with pytest.raises(eddy.Error, match="^the simulation is closed$"):
        sim.step(1)
    del sim
    gc.collect()
    # the session is still alive through the arrays: same values, readable
    np.testing.assert_array_equal(rho, expected)
    np.testing.assert_array_equal(ids, expected_ids)
    # each array holds exactly one reference; the last one to go frees the session
    assert sys.getrefcount(core) == 4   # rho's base, ids' base, `core`, getrefcount's argument
    del rho, ids
    assert sys.getrefcount(core) == 2


def test_unknown_field_names_the_available_ones():
    sim = open_sim()
    with pytest.raises(eddy.NotFoundError) as e:
        sim.field("temperature")
    assert str(e.value) == f"unknown field 'temperature' (available: {', '.join(sim.fields)})"
