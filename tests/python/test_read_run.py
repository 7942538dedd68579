"""eddy.read_run / eddy.read_frame (docs/python.md, "Reading a run's folder"): a run written in both
formats read back equals the Simulation's own arrays at each frame (by_id, an independent path), the
.vtp and .csv readers agree bit for bit, the tables equal the Record's values as written (12 digits),
the pieces of a run on two processes are combined in id order, and damaged files give exact messages."""
import os
import shutil
import subprocess

import numpy as np
import pytest

import eddy
from conftest import SCENES, eddy_exe

SCENE = os.path.join(SCENES, "tait_dam_break_2d.json")
SCALE = 2.0


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """A run at simulation_scale 2 to t = 0.012 (frames 0 and 1 at 0.0075, then the final state as
    frame 2), both writers; the particles in id order at each frame as the Simulation holds them."""
    out = str(tmp_path_factory.mktemp("run") / "out")
    eddy.set_quiet(True)
    sim = eddy.Simulation(SCENE, set={"time.end": 0.012, "world.simulation_scale": SCALE,
                                     "world.smoothing_radius": 0.005 * SCALE}, formats=["vtk", "csv"],
                          out=out)
    seen = {}

    def grab(i=0):
        order = np.argsort(sim.ids, kind="stable")
        seen[i] = {"id": sim.ids[order].astype(np.uint64), "material": sim.materials[order],
                   **{n: sim.by_id(n) for n in ("position", "velocity", "density", "pressure", "acceleration", "mass")},
                   "time": sim.time, "step": sim.steps}
    grab(0)
    rec = sim.run(write=True, on_frame=grab)
    grab(2)
    sim.close()
    return out, rec, seen


def test_frames_equal_the_simulations_arrays(written):
    out, rec, seen = written
    r = eddy.read_run(out)
    assert [f.index for f in r.frames] == [0, 1, 2] and len(r) == 3
    s = np.float32(SCALE)
    for i in range(3):
        e = r.frames[i]
        assert e.path == os.path.join(out, "frames", f"frame_{i:05d}.vtp")
        assert (e.time, e.step) == (seen[i]["time"], seen[i]["step"])   # the exact clock
        for fmt in (None, "csv"):
            f = r.frame(i, format=fmt)
            assert (f.time, f.step) == (seen[i]["time"], seen[i]["step"])
            assert list(f) == ["id", "material", "position", "velocity", "density", "pressure", "acceleration"]
            assert f["id"].dtype == np.uint64 and np.array_equal(f["id"], seen[i]["id"])
            assert f["material"].dtype == np.uint32 and np.array_equal(f["material"], seen[i]["material"])
            for k in ("position", "velocity"):   # world units: the stored values / the simulation scale
                assert f[k].dtype == np.float32 and f[k].shape == (len(f["id"]), 3)
                assert np.array_equal(f[k], seen[i][k] / s)
            for k in ("density", "pressure", "acceleration"):
                assert np.array_equal(f[k], seen[i][k])
    assert np.all(np.float32(r.particle_mass[r.frame(0)["material"]]) == seen[0]["mass"])


def test_vtp_and_csv_agree_bit_for_bit(written):
    out, _, _ = written
    for i in range(3):
        a = eddy.read_frame(os.path.join(out, "frames", f"frame_{i:05d}.vtp"))
        b = eddy.read_frame(os.path.join(out, "frames", f"frame_{i:05d}.csv"))
        assert list(a) == list(b)
        for k in a:
            assert a[k].dtype == b[k].dtype and np.array_equal(a[k].view(f"u{a[k].itemsize}"),
                                                               b[k].view(f"u{b[k].itemsize}")), k
        # a .csv holds no clock; a .vtp its own: 150 steps of 5e-5 s a frame of 0.0075 s, 240 to 0.012
        assert (b.time, b.step) == (None, None) and a.step == (150 * i if i < 2 else 240)


def test_tables_equal_the_record(written):
    out, rec, _ = written
    r = eddy.read_run(out)
    d, p = r.diagnostics, r.probes
    at12 = np.vectorize(lambda v: float(f"{v:.12g}"))   # diagnostics.csv and probes.csv hold 12 digits
    assert len(d) == len(rec.diagnostics) == 3
    for name in d.dtype.names:
        if name == "wall_ms":
            continue
        want = rec.diagnostics["momentum"][:, "xyz".index(name[-1])] if name.startswith("momentum_") else rec.diagnostics[name]
        if name in ("step", "particles"):
            assert d[name].dtype == np.int64 and np.array_equal(d[name], want), name
        else:
            assert np.array_equal(d[name], at12(want)), name
    assert p.dtype.names == ("time", "step", "front", "height_left_wall")
    for name in p.dtype.names:
        assert np.array_equal(p[name], rec.probes[name] if name == "step" else at12(rec.probes[name])), name
    assert r.run["format"] == "eddy.run/1" and r.run["commands"][-1]["command"] == "python run"


def test_frames_without_frames_pvd(written, tmp_path):
    """A folder of .csv frames only (or whose frames.pvd is gone): the frames/ folder, each frame's
    clock from its diagnostics row (a .csv holds none) or its .vtp."""
    out, rec, _ = written
    d = str(tmp_path / "copy")
    shutil.copytree(out, d)
    os.remove(os.path.join(d, "frames.pvd"))
    r = eddy.read_run(d)
    assert [(f.index, f.step) for f in r.frames] == [(i, int(s)) for i, s in enumerate(rec.diagnostics["step"])]
    assert r.frames[1].time == rec.diagnostics["time"][1]   # the .vtp's exact clock
    for i in range(3):
        os.remove(os.path.join(d, "frames", f"frame_{i:05d}.vtp"))
    r = eddy.read_run(d)
    assert [f.path for f in r.frames] == [os.path.join(d, "frames", f"frame_{i:05d}.csv") for i in range(3)]
    assert r.frames[2].time == float(f"{rec.diagnostics['time'][2]:.12g}") and r.frames[2].step == 240
    with pytest.raises(eddy.FileError) as e:
        r.frame(1, format="vtk")
    p = os.path.join(d, "frames", "frame_00001")
    assert str(e.value) == f"frame 1: no '{p}.vtp' or '{p}.pvtp' (the run wrote this frame as '{p}.csv')"


def test_bad_folders_and_indices(written, tmp_path):
    out, _, _ = written
    r = eddy.read_run(out)
    with pytest.raises(IndexError) as e:
        r.frame(3)
    assert str(e.value) == f"frame: no frame 3 in '{out}': it has 3 frames (0 to 2)"
    assert r.frame(-1).step == 240
    with pytest.raises(TypeError) as e:
        r.frame(1.5)
    assert str(e.value) == "frame: i must be a whole number (a position in .frames), got float"
    with pytest.raises(eddy.FileError) as e:
        eddy.read_run(str(tmp_path))
    assert str(e.value) == (f"read_run: '{tmp_path}' is not a run's folder: it holds none of run.json, "
                            f"diagnostics.csv, frames.pvd (give the folder of a run: its --out, or the scene's "
                            f"output.dir)")
    with pytest.raises(eddy.FileError) as e:
        eddy.read_run(str(tmp_path / "nope"))
    assert str(e.value) == f"read_run: there is no folder '{tmp_path / 'nope'}'"
    with pytest.raises(ValueError) as e:
        eddy.read_frame(os.path.join(out, "run.json"))
    assert str(e.value) == f"read_frame: '{os.path.join(out, 'run.json')}' is not a frame file (expected .vtp, .pvtp or .csv)"


def damaged(src, tmp_path, edit):
    data = open(src, "rb").read()
    p = str(tmp_path / os.path.basename(src))
    with open(p, "wb") as f:
        f.write(edit(data))
    with pytest.raises(eddy.FileError) as e:
        eddy.read_frame(p) if not p.endswith("diagnostics.csv") else eddy.read_run(str(tmp_path))
    return p, str(e.value)


def test_damaged_vtp(written, tmp_path):
    out, _, _ = written
    src = os.path.join(out, "frames", "frame_00001.vtp")
    data = open(src, "rb").read()
    n = 3200
    cut = len(data) // 2   # expat's position is the end of what it got: line and column counted here
    p, msg = damaged(src, tmp_path, lambda d: d[:cut])
    line, col = data[:cut].count(b"\n") + 1, cut - (data[:cut].rfind(b"\n") + 1)
    assert msg == f"'{p}' is not whole XML (no element found: line {line}, column {col}; a file cut short?)"
    # 8 base64 characters (6 bytes) gone from the middle of the density's data: the XML is whole
    start = data.index(b'Name="density" format="binary">')
    mid = data.index(b"\n", start) + 2000
    p, msg = damaged(src, tmp_path, lambda d: d[:mid] + d[mid + 8:])
    assert msg == f"'{p}': DataArray 'density' says it holds {4 * n} bytes but holds {4 * n - 6} (a file cut short or edited?)"
    p, msg = damaged(src, tmp_path, lambda d: d[:mid] + b"!" + d[mid + 1:])
    assert msg == f"'{p}': DataArray 'density' is not valid base64 (Only base64 data is allowed)"
    p, msg = damaged(src, tmp_path, lambda d: d.replace(b'NumberOfPoints="3200"', b'NumberOfPoints="3199"'))
    assert msg == f"'{p}': DataArray 'id' holds 3200 values, expected 3199 points x 1 component = 3199"
    p, msg = damaged(src, tmp_path, lambda d: d.replace(b'type="PolyData"', b'type="UnstructuredGrid"'))
    assert msg == f"'{p}' is not a VTK PolyData file (its root is <VTKFile type=\"UnstructuredGrid\">)"


def test_damaged_tables(written, tmp_path):
    out, _, _ = written
    src = os.path.join(out, "frames", "frame_00001.csv")
    data = open(src, "rb").read()
    cut = len(data) // 2
    p, msg = damaged(src, tmp_path, lambda d: d[:cut])
    line = data[:cut].count(b"\n") + 1
    assert msg == f"'{p}' ends in the middle of line {line} (a file cut short?)"
    lines = data.split(b"\n")
    p, msg = damaged(src, tmp_path, lambda d: b"\n".join(lines[:5] + [lines[5].rsplit(b",", 2)[0]] + lines[6:]))
    assert msg == f"'{p}' line 6: expected 13 values (the header's columns), got 11"
    p, msg = damaged(src, tmp_path, lambda d: b"\n".join(lines[:3] + [lines[3].replace(b",", b",x", 1)] + lines[4:]))
    assert msg == f"'{p}' line 4, column 'x': expected a number, got 'x{lines[3].split(b',')[1].decode()}'"
    src = os.path.join(out, "diagnostics.csv")
    lines = open(src, "rb").read().split(b"\n")
    row = lines[2].split(b",")
    p, msg = damaged(src, tmp_path, lambda d: b"\n".join(lines[:2] + [b",".join(row[:2] + [b"abc"] + row[3:])] + lines[3:]))
    assert msg == f"'{p}' line 3, column 'kinetic_energy': expected a number, got 'abc'"


def mpi_env():
    return dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", OMP_NUM_THREADS="1",
                OMPI_MCA_rmaps_base_oversubscribe="1")


def test_pieces_of_two_processes(tmp_path):
    """`mpirun -np 2 eddy run` writes each frame as a .pvtp over two pieces and, from rank 0, a .csv of
    every particle: the pieces combined in id order equal the .csv bit for bit."""
    mpirun = os.environ.get("EDDY_MPIRUN") or shutil.which("mpirun")
    # An eddy without MPI says "processes: no MPI (...)", one with it "processes: MPI (...)".
    version = subprocess.run([eddy_exe(), "--version"], capture_output=True, text=True).stdout
    if not mpirun or not any(line.startswith("processes: MPI ") for line in version.splitlines()):
        pytest.skip("no mpirun, or eddy is built without MPI")
    out = str(tmp_path / "mpi")
    p = subprocess.run([mpirun, "-np", "2", eddy_exe(), "run", SCENE, "--until", "0.012", "--quiet", "--no-picture",
                        "--format", "vtk,csv", "--out", out], capture_output=True, text=True, env=mpi_env(), timeout=120)
    assert p.returncode == 0, p.stderr
    r = eddy.read_run(out)
    assert [os.path.basename(f.path) for f in r.frames] == [f"frame_{i:05d}.pvtp" for i in range(3)]
    for i in range(3):
        a, b = r.frame(i), r.frame(i, format="csv")
        counts = [len(eddy.read_frame(os.path.join(out, "frames", f"frame_{i:05d}_p{k}.vtp"))["id"]) for k in (0, 1)]
        assert min(counts) > 0 and sum(counts) == len(b["id"]) == 3200
        assert np.array_equal(a["id"], np.sort(a["id"])) and list(a) == list(b)
        for k in a:
            assert np.array_equal(a[k].view(f"u{a[k].itemsize}"), b[k].view(f"u{b[k].itemsize}")), k
        assert (a.time, a.step) == (r.frames[i].time, r.frames[i].step)
    piece = os.path.join(out, "frames", "frame_00001_p1.vtp")
    os.remove(piece)
    with pytest.raises(eddy.FileError) as e:
        r.frame(1)
    assert str(e.value) == f"'{os.path.join(out, 'frames', 'frame_00001.pvtp')}': its piece '{piece}' is missing"
