#!/usr/bin/env python3
"""Checks what `eddy compare` wrote, with readers written here and not in the code under test.

check_compare.py run DIR RUN_DIR
    DIR: `eddy compare scenes/dam_break_2d.json --solvers sph_mueller,tait --until 0.03
    --set output.format=["vtk","csv"]`; RUN_DIR: `eddy run` of the same scene with tait to the same time.
    - summary.csv has the documented columns and one row per solver in order: sph_mueller and tait
      ok at t = 0.03 with 3200 particles (the 40 x 80 column) and at least 600 steps (dt <= 5e-5);
      summary.md has the same rows and no errors;
    - each solver's diagnostics.csv has a row per sample time (0, 0.0075, ..., 0.03), and the summary's
      density errors, final kinetic energy, momentum drift, total energy change E(end) - E(0) and
      largest rise max(E(k) - E(0)) (>= 0) follow from those rows as documented (the two relative
      figures over one and the same scale);
    - the final frame's own particles give the last diagnostics row's density error (|rho/1000 - 1|)
      and the probes' last values, recomputed here by the documented rules: the front is the last x
      reached from the back through gaps of at most h = 0.005, plus half the spacing 0.0025; the
      height at the wall the same walk up the column x <= h from y = 0;
    - tait's final frame is identical to that of `eddy run` (the same stepping);
    - every plot is a valid PNG (signature, chunk CRCs, IHDR, inflated size of the 8-bit RGB rows).

check_compare.py explode DIR
    DIR: `--solvers exploding_solver,sph_mueller` with output every 0.0005 s to t = 0.003 s: the
    exploding solver is reported failed at step 30 with its frames and rows up to then kept, and
    sph_mueller still ran to the end.

check_compare.py pressure DIR
    DIR: `eddy compare scenes/hydrostatic_tank.json --solvers test_solver,pbf,tait --steps 20
    --set output.format=["csv"]`: the test plugin's solver (ballistic, no pressure) leaves the pressure
    field 0 on every particle of its frames (read here), so its pressure probe is nan in summary.csv and
    `n/a (no pressure)` in summary.md, although its probes.csv has the probe's 0; pbf's (the pressure of
    its constraint) and tait's frames have pressures, and their summary figure is their probes.csv value;
    the probe that reads depth is a number for all three, the one that reads density for pbf and tait.
"""
import csv
import math
import os
import struct
import sys
import zlib

H, HALF_SPACING = 0.005, 0.00125
SUMMARY_COLUMNS = ("solver,status,end_time,steps,particles,density_error_mean,density_error_max,"
                   "kinetic_energy_end,momentum_drift,ms_per_step,particle_steps_per_s,"
                   "density_compression_max,total_energy_change,total_energy_change_relative,"
                   "total_energy_rise_max,total_energy_rise_max_relative,particle_spacing,smoothing_radius,"
                   "density_error_p99_max,front,"
                   "height_left_wall,front_reference_rms,error").split(",")
# No momentum drift plot: with gravity and walls momentum is not conserved (check_energy.py has the
# scene without them).
PLOTS = ["kinetic_energy", "total_energy", "density_error_mean", "density_error_max", "density_error_p99", "max_speed",
         "probe_front", "probe_height_left_wall"]

failures = []


def check(cond, what):
    print(("ok      " if cond else "FAILED  ") + what)
    if not cond:
        failures.append(what)


def close(a, b, rel=1e-6, abs_=1e-9):
    return abs(a - b) <= max(abs_, rel * max(abs(a), abs(b)))


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def walk(coords, start, gap):
    """Farthest coordinate reached from `start` through sorted coordinates no more than gap apart."""
    reach, top = start, None
    for u in sorted(c for c in coords if c >= start):
        if u - reach > gap:
            break
        reach, top = u, u
    return top


def front_from_frame(rows):
    xs = [float(r["x"]) for r in rows]
    return walk(xs, min(xs), H) + HALF_SPACING


def height_from_frame(rows):
    ys = [float(r["y"]) for r in rows if abs(float(r["x"])) <= H]
    top = walk(ys, 0.0, H)
    return 0.0 if top is None else top + HALF_SPACING


def check_png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return "no PNG signature"
    pos, idat, ihdr, end = 8, b"", None, False
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        if zlib.crc32(kind + body) & 0xffffffff != crc:
            return "bad CRC in chunk %r" % kind
        if kind == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            end = True
        pos += 12 + length
    if not ihdr or not end:
        return "missing IHDR or IEND"
    w, h, depth, ctype = ihdr[0], ihdr[1], ihdr[2], ihdr[3]
    if depth != 8 or ctype != 2:
        return "not 8-bit RGB (depth %d, colour type %d)" % (depth, ctype)
    raw = zlib.decompress(idat)
    if len(raw) != h * (1 + 3 * w):
        return "image data of %d bytes, expected %d" % (len(raw), h * (1 + 3 * w))
    if w < 64 or h < 64:
        return "image too small (%d x %d)" % (w, h)
    return None


def last_frame_csv(solver_dir):
    frames = sorted(f for f in os.listdir(os.path.join(solver_dir, "frames")) if f.endswith(".csv"))
    return os.path.join(solver_dir, "frames", frames[-1]), frames


def check_run(d, run_dir):
    with open(os.path.join(d, "summary.csv"), newline="") as f:
        header = next(csv.reader(f))
    check(header == SUMMARY_COLUMNS, "summary.csv columns: %s" % ",".join(header))
    rows = read_csv(os.path.join(d, "summary.csv"))
    check([r["solver"] for r in rows] == ["sph_mueller", "tait"], "one summary row per solver, in order")
    by = {r["solver"]: r for r in rows}
    with open(os.path.join(d, "summary.md")) as f:
        md = f.read()
    check("| failed |" not in md and "## Errors" not in md, "summary.md lists no failure")
    check(md.count(" n/a (gravity) |") == 2, "momentum drift n/a (gravity) for the two solvers that ran")
    check(not os.path.exists(os.path.join(d, "plots", "momentum_drift.png")), "no momentum drift plot")

    sample_times = [0.0, 0.0075, 0.015, 0.0225, 0.03]
    for solver in ("sph_mueller", "tait"):
        r = by.get(solver, {})
        sd = os.path.join(d, solver)
        check(r.get("status") == "ok" and r.get("error") == "", "%s ok" % solver)
        check(close(float(r["end_time"]), 0.03) and r["particles"] == "3200" and int(r["steps"]) >= 600,
              "%s: t end %s, %s particles, %s steps" % (solver, r["end_time"], r["particles"], r["steps"]))
        check(md.count("| %s | ok | 0.03 |" % solver) == 1, "%s row in summary.md" % solver)
        # The resolution on every row: the scene's spacing (2 x HALF_SPACING) and h, as given.
        check(r.get("particle_spacing") == repr(2 * HALF_SPACING) and r.get("smoothing_radius") == repr(H),
              "%s: particle_spacing %s, smoothing_radius %s" % (solver, r.get("particle_spacing"),
                                                               r.get("smoothing_radius")))
        diag = read_csv(os.path.join(sd, "diagnostics.csv"))
        times = [float(x["time"]) for x in diag]
        check(len(times) == 5 and all(close(a, b) for a, b in zip(times, sample_times)),
              "%s: diagnostics at the sample times %s" % (solver, times))
        dem = sum(float(x["density_error_mean"]) for x in diag) / len(diag)
        dmax = max(float(x["density_error_max"]) for x in diag)
        drift = math.sqrt(sum((float(diag[-1]["momentum_" + a]) - float(diag[0]["momentum_" + a])) ** 2
                              for a in "xyz"))
        check(close(float(r["density_error_mean"]), dem, 1e-9), "%s: mean density error %s = mean of the rows %.12g"
              % (solver, r["density_error_mean"], dem))
        check(close(float(r["density_error_max"]), dmax, 1e-9), "%s: max density error = max of the rows" % solver)
        p99 = max(float(x["density_error_p99"]) for x in diag)
        check(close(float(r["density_error_p99_max"]), p99, 1e-9),
              "%s: the largest 99th percentile = max of the rows' %.9g" % (solver, p99))
        check(close(float(r["kinetic_energy_end"]), float(diag[-1]["kinetic_energy"]), 1e-9),
              "%s: final kinetic energy = last row" % solver)
        check(close(float(r["momentum_drift"]), drift, 1e-9), "%s: momentum drift |P(end) - P(0)| = %.6g" % (solver, drift))
        energy = [float(x["kinetic_energy"]) + float(x["potential_energy"]) for x in diag]
        change, rise = energy[-1] - energy[0], max(e - energy[0] for e in energy)
        tol = 1e-9 * max(1.0, abs(energy[0]))
        check(abs(float(r["total_energy_change"]) - change) <= tol,
              "%s: total energy change %s = E(end) - E(0) of the rows %.9g"
              % (solver, r["total_energy_change"], change))
        got = float(r.get("total_energy_rise_max", "nan"))
        check(abs(got - rise) <= tol and got >= 0,
              "%s: largest energy rise %s = max E(k) - E(0) of the rows %.9g" % (solver, got, rise))
        if rise > 0 and change != 0:
            check(close(float(r.get("total_energy_rise_max_relative", "nan")) / got,
                        float(r["total_energy_change_relative"]) / float(r["total_energy_change"]), 1e-6),
                  "%s: the rise and the change relative to the same energy" % solver)
        check(float(r["ms_per_step"]) > 0 and close(float(r["particle_steps_per_s"]),
                                                     3200 / (float(r["ms_per_step"]) * 1e-3), 1e-6),
              "%s: particle-steps/s = particles / (ms per step)" % solver)

        path, frames = last_frame_csv(sd)
        check(frames == ["frame_00000.csv", "frame_00004.csv"], "%s: first and last frame kept: %s" % (solver, frames))
        particles = read_csv(path)
        check(len(particles) == 3200, "%s: %d particles in the last frame" % (solver, len(particles)))
        err = sum(abs(float(p["density"]) / 1000.0 - 1) for p in particles) / len(particles)
        compression = max(max(float(p["density"]) / 1000.0 - 1 for p in particles), 0.0)
        check(float(r["density_compression_max"]) >= compression * (1 - 1e-6)
              and float(r["density_compression_max"]) <= float(r["density_error_max"]),
              "%s: compression max %s: at least the final frame's %.9g, at most the density error max"
              % (solver, r["density_compression_max"], compression))
        check(close(err, float(diag[-1]["density_error_mean"]), 1e-5),
              "%s: density error from the frame %.9g = diagnostics %s" % (solver, err, diag[-1]["density_error_mean"]))
        errors = sorted(abs(float(p["density"]) / 1000.0 - 1) for p in particles)
        p99_frame = errors[math.ceil(0.99 * len(errors)) - 1]
        check(close(p99_frame, float(diag[-1]["density_error_p99"]), 1e-9),
              "%s: the 99th percentile of the frame's errors %.9g = diagnostics %s"
              % (solver, p99_frame, diag[-1]["density_error_p99"]))
        probes = read_csv(os.path.join(sd, "probes.csv"))
        check([close(float(p["time"]), t) for p, t in zip(probes, sample_times)] == [True] * 5 and len(probes) == 5,
              "%s: probes.csv has a row per sample" % solver)
        front, height = front_from_frame(particles), height_from_frame(particles)
        check(close(float(probes[-1]["front"]), front, 1e-6) and close(float(r["front"]), front, 1e-6),
              "%s: front %s (probes.csv), %s (summary) = %.9g from the final frame"
              % (solver, probes[-1]["front"], r["front"], front))
        check(front > 0.1 + 0.5 * H, "%s: the front has moved (%.6g > 0.1025)" % (solver, front))
        check(close(float(probes[-1]["height_left_wall"]), height, 1e-6),
              "%s: height at the wall %s = %.9g from the final frame" % (solver, probes[-1]["height_left_wall"], height))

    mine, _ = last_frame_csv(os.path.join(d, "tait"))
    theirs = os.path.join(run_dir, "frames", "frame_00004.csv")
    with open(mine, "rb") as a, open(theirs, "rb") as b:
        check(a.read() == b.read(), "tait's final frame equals that of `eddy run --solver tait` (%s)" % theirs)

    for name in PLOTS:
        problem = check_png(os.path.join(d, "plots", name + ".png"))
        check(problem is None, "plots/%s.png is a valid PNG%s" % (name, "" if problem is None else ": " + problem))
        check("(plots/%s.png)" % name in md, "summary.md links plots/%s.png" % name)


def check_explode(d):
    rows = read_csv(os.path.join(d, "summary.csv"))
    by = {r["solver"]: r for r in rows}
    ex, ok = by.get("exploding_solver", {}), by.get("sph_mueller", {})
    check(ex.get("status") == "failed" and ex.get("error", "").startswith("simulation exploded at step 30 (t = 0.0015 s)"),
          "exploding_solver failed at step 30: %s" % ex.get("error"))
    check(ex.get("steps") == "30" and ex.get("kinetic_energy_end") == "nan", "the exploded state is summarised as NaN")
    check(ex.get("total_energy_rise_max") == "nan", "the exploded run's largest energy rise is nan, not a finite rise")
    diag = read_csv(os.path.join(d, "exploding_solver", "diagnostics.csv"))
    check([x["step"] for x in diag] == ["0", "10", "20", "30"], "its diagnostics rows up to the explosion are kept")
    check(os.path.exists(os.path.join(d, "exploding_solver", "frames", "frame_00003.vtp")), "its last frame is kept")
    check(ok.get("status") == "ok" and close(float(ok.get("end_time", "nan")), 0.003), "sph_mueller still ran to t = 0.003")
    for name in PLOTS:
        problem = check_png(os.path.join(d, "plots", name + ".png"))
        check(problem is None, "plots/%s.png is a valid PNG%s" % (name, "" if problem is None else ": " + problem))


def check_pressure(d):
    rows = read_csv(os.path.join(d, "summary.csv"))
    by = {r["solver"]: r for r in rows}
    solvers = (("test_solver", False), ("pbf", True), ("tait", True))
    check(sorted(by) == sorted(s for s, _ in solvers) and all(r["status"] == "ok" for r in rows),
          "test_solver, pbf and tait ran")
    with open(os.path.join(d, "summary.md")) as f:
        md = f.read()
    md_rows = {line.split("|")[1].strip(): line for line in md.splitlines()
               if any(line.startswith("| %s |" % s) for s, _ in solvers)}
    for solver, has in solvers:
        sd = os.path.join(d, solver)
        frames = sorted(f for f in os.listdir(os.path.join(sd, "frames")) if f.endswith(".csv"))
        pressures = [float(p["pressure"]) for f in frames for p in read_csv(os.path.join(sd, "frames", f))]
        check(len(frames) == 2 and len(pressures) == 12000, "%s: two frames of 6000 particles" % solver)
        check(any(p != 0 for p in pressures) == has,
              "%s: %s pressure in its frames" % (solver, "a non-zero" if has else "no non-zero"))
        probes = read_csv(os.path.join(sd, "probes.csv"))
        r_value = by[solver].get("pressure_bottom")
        f_value = by[solver].get("floor_force")
        m_value = by[solver].get("left_wall_moment")
        if has:
            check(f_value not in ("", "nan") and float(f_value) > 0, "%s: floor_force %s is a load" % (solver, f_value))
            check(m_value not in ("", "nan") and float(m_value) > 0,
                  "%s: left_wall_moment %s turns the wall outward" % (solver, m_value))
            check(r_value != "nan" and close(float(r_value), float(probes[-1]["pressure_bottom"]), 1e-9),
                  "%s: pressure_bottom %s in summary.csv = probes.csv's %s"
                  % (solver, r_value, probes[-1]["pressure_bottom"]))
            check("n/a (no pressure)" not in md_rows.get(solver, ""), "%s: summary.md gives its pressure" % solver)
        else:
            check(float(probes[-1]["pressure_bottom"]) == 0, "%s: probes.csv reads the zero field as 0" % solver)
            check(r_value == "nan", "%s: pressure_bottom in summary.csv is nan, not 0 (got %s)" % (solver, r_value))
            # (a force integrates that field: a structure under no load, read so by a user trial)
            check(f_value == "nan", "%s: floor_force in summary.csv is nan, not 0 (got %s)" % (solver, f_value))
            check(m_value == "nan", "%s: left_wall_moment in summary.csv is nan, not 0 (got %s)" % (solver, m_value))
            check([c.strip() for c in md_rows.get(solver, "").split("|")].count("n/a (no pressure)") == 3,
                  "%s: summary.md says n/a (no pressure) for the pressure, the force and the moment" % solver)
            check("| n/a (no pressure) |" in md_rows.get(solver, ""), "%s: summary.md says n/a (no pressure)" % solver)
        # (the test plugin's solver sums no density: its density field stays the zero fill)
        for name in ("density_lower_half", "depth_middle") if has else ("depth_middle",):
            check(by[solver][name] not in ("", "nan") and float(by[solver][name]) > 0,
                  "%s: %s %s is a number" % (solver, name, by[solver][name]))
    check("`n/a (no pressure)`: the solver's pressure field was 0 on every particle at every sample" in md,
          "summary.md says what n/a (no pressure) means")
    problem = check_png(os.path.join(d, "plots", "probe_pressure_bottom.png"))
    check(problem is None, "the pressure probe's plot is drawn%s" % ("" if problem is None else ": " + problem))


if __name__ == "__main__":
    if sys.argv[1] == "run":
        check_run(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "pressure":
        check_pressure(sys.argv[2])
    else:
        check_explode(sys.argv[2])
    if failures:
        print("%d check(s) failed" % len(failures))
        sys.exit(1)
