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


def test_position_and_velocity_are_in_simulation_units_and_frames_in_world_units(tmp_path):
    # docs/python.md, "Arrays", Units: the arrays hold the core's simulation units (world length x
    # world.simulation_scale), the frames and probes world units. The same water column at scale 1 and
    # at scale 2 (the smoothing radius, a simulation length, doubled with it: the same world) is
    # twice as long in the arrays and the same in the frames; fluids[].velocity is in simulation units.
    import csv
    def open_at(scale, out):
        return eddy.Simulation(SCENE, formats=["csv"], out=str(out),
                               set={"world.simulation_scale": scale, "world.smoothing_radius": 0.005 * scale,
                                    "fluids[0].velocity": [1, 0]})
    one, two = open_at(1, tmp_path / "s1"), open_at(2, tmp_path / "s2")
    assert two.info["simulation_scale"] == 2.0
    x1, x2 = one.by_id("position"), two.by_id("position")
    np.testing.assert_allclose(x2, 2 * x1, rtol=1e-6)
    # the scene's box reaches x = 0.1 (world): the array's x goes past it at scale 2, as simulation lengths
    assert 0.1 < x2[:, 0].max() <= 0.2 and x1[:, 0].max() <= 0.1
    np.testing.assert_array_equal(two.by_id("velocity")[:, 0], 1.0)
    two.write_frame()
    with open(tmp_path / "s2" / "frames" / "frame_00000.csv") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["id"]) for r in rows] == list(np.sort(two.ids))
    # the frame is the array / simulation_scale (a division by 2 is exact in float32)
    np.testing.assert_array_equal(np.array([r["x"] for r in rows], dtype=np.float32), x2[:, 0] / np.float32(2))
    assert [float(r["vx"]) for r in rows] == [0.5] * len(rows)
    # and the probe, a world length, is the same at both scales
    assert two.measure().probes["front"][0] == pytest.approx(one.measure().probes["front"][0], rel=1e-6)
    one.close()
    two.close()
