#!/usr/bin/env python3
"""residency.py MODE EDDY SCENE DIR: the host against a device-resident solver's test double (issue 16).

residency_double (residency_double.c) keeps its particles in private storage and poisons the host copy
after every step; residency_reference runs the same method on the host arrays. EDDY_PLUGIN_PATH must
name the folder of the double's plugin. Modes:

  outputs  `eddy run` of both with frames, diagnostics, probes, rendered frames, checkpoints and --hash:
           every output byte-identical (diagnostics without the wall-time column), the same state hash;
           the double downloads each of its fields exactly once at each diagnostics row (the output
           frames) and nowhere else, and uploads only at creation.
  quiet    a run whose only outputs are the first and last diagnostics rows (no frame format, no probe,
           no picture, no hash, one output interval beyond the end): downloads at those two steps only;
           and `eddy bench`: downloads at its start and end only, and its figures read from the
           particles (the share near walls) equal to the reference's.
  resume   a run to step 40 resumed to the end equals an uninterrupted one (hash, diagnostics, series,
           probes) and the reference's hash; the resumed run uploads the layout and every field once,
           before its first step (the host restored them), and nothing after.
  compare  `eddy compare` of both: the two solvers' folders hold byte-identical outputs.
  gpu      (label gpu) the real device-resident solver, sph_mueller_cuda (plugins/cuda_grid), which
           writes the same EDDY_RESIDENCY_LOG lines: run as in `outputs`, it downloads each of its device
           fields exactly once at each diagnostics row and nowhere else, and uploads only before its
           first step; and every output (diagnostics without the wall-time column) and the state hash
           equal byte for byte those of the same run with EDDY_CUDA_HOST_COPY=every_step, which
           downloads every field after every step (checked in its log) and takes the core's reduction
           over the host arrays instead of the device's. Exit 77 (skipped) where nvidia-smi lists no GPU
           and the solver reports "no CUDA device"; EDDY_PLUGIN_PATH is not needed.

Exit 0 when every check passes; otherwise 1, with one line per failed check on stdout.
"""
import collections
import os
import subprocess
import sys

REF, DEV = "residency_reference", "residency_double"
FIELDS = ["position", "velocity", "density", "pressure", "mass", "neighbors"]
GPU = "sph_mueller_cuda"
GPU_FIELDS = ["position", "velocity", "density", "pressure", "acceleration"]  # mass stays on the host
GPU_UPLOADS = ["position", "velocity", "mass", "layout"]

failures = []


def fail(msg):
    failures.append(msg)
    print("residency.py: " + msg)


def run_process(eddy, args, log=None, env_extra=None):
    env = dict(os.environ)
    env.pop("EDDY_RESIDENCY_LOG", None)
    env.pop("EDDY_CUDA_HOST_COPY", None)
    if log:
        env["EDDY_RESIDENCY_LOG"] = log
        if os.path.exists(log):
            os.remove(log)
    if env_extra:
        env.update(env_extra)
    return subprocess.run([eddy] + args, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def run(eddy, args, log=None, env_extra=None):
    p = run_process(eddy, args, log, env_extra)
    if p.returncode != 0:
        print(p.stdout)
        fail("eddy %s exited %d: %s" % (" ".join(args[:1]), p.returncode, p.stdout.strip().splitlines()[-1:]))
    return p.stdout


def state_hash(out):
    lines = [l for l in out.splitlines() if l.startswith("state-hash:")]
    return lines[-1] if lines else None


def events(log, kind):
    """(step, field) of every `kind` line of the double's log, as a multiset."""
    c = collections.Counter()
    if os.path.exists(log):
        for line in open(log):
            k, step, field = line.split()
            if k == kind:
                c[(int(step), field)] += 1
    return c


def expect_events(log, kind, steps, fields, what):
    want = collections.Counter({(s, f): 1 for s in steps for f in fields})
    got = events(log, kind)
    if got != want:
        extra = sorted((got - want).items())[:6]
        missing = sorted((want - got).items())[:6]
        fail("%s: %ss differ from the schedule (steps %s): unexpected %s, missing %s" %
             (what, kind, sorted(steps), extra, missing))


def diagnostics_rows(path):
    """Rows of diagnostics.csv without the wall_ms column, and the steps of the rows."""
    rows, steps = [], []
    with open(path) as f:
        header = f.readline().strip().split(",")
        wall = header.index("wall_ms")
        step = header.index("step")
        for line in f:
            cells = line.strip().split(",")
            steps.append(int(cells[step]))
            rows.append(cells[:wall] + cells[wall + 1:])
    return rows, steps


def same_folders(a, b, what, skip=("checkpoint.eddy", "run.json"), names=(REF, DEV)):
    """Every file of a and b byte-identical, diagnostics.csv without its wall-time column (run.json records
    each run's own solver, command line and start time)."""
    def files(d):
        out = set()
        for root, _, names in os.walk(d):
            for n in names:
                rel = os.path.relpath(os.path.join(root, n), d)
                if n not in skip:
                    out.add(rel)
        return out
    fa, fb = files(a), files(b)
    if fa != fb:
        fail("%s: the folders hold different files: only in %s: %s; only in %s: %s" %
             (what, names[0], sorted(fa - fb)[:5], names[1], sorted(fb - fa)[:5]))
    for rel in sorted(fa & fb):
        pa, pb = os.path.join(a, rel), os.path.join(b, rel)
        if os.path.basename(rel) == "diagnostics.csv":
            if diagnostics_rows(pa)[0] != diagnostics_rows(pb)[0]:
                fail("%s: %s differs between %s and %s" % (what, rel, names[0], names[1]))
        elif open(pa, "rb").read() != open(pb, "rb").read():
            fail("%s: %s differs between %s and %s" % (what, rel, names[0], names[1]))
    return len(fa & fb)


def mode_outputs(eddy, scene, d):
    common = ["run", scene, "--hash", "--render", "--checkpoint-every", "0.005", "--quiet"]
    ref = run(eddy, common + ["--solver", REF, "--out", os.path.join(d, REF)])
    log = os.path.join(d, DEV + ".log")
    dev = run(eddy, common + ["--solver", DEV, "--out", os.path.join(d, DEV)], log=log)
    if failures:
        return
    if state_hash(ref) is None or state_hash(ref) != state_hash(dev):
        fail("run: state hashes differ: %s %s, %s %s" % (REF, state_hash(ref), DEV, state_hash(dev)))
    n = same_folders(os.path.join(d, REF), os.path.join(d, DEV), "run")
    _, steps = diagnostics_rows(os.path.join(d, REF, "diagnostics.csv"))
    expect_events(log, "download", set(steps), FIELDS, "run")
    expect_events(log, "upload", {0}, FIELDS + ["layout"], "run")
    if not failures:
        print("run: %d files identical, %s; downloads at steps %s only" % (n, state_hash(dev), sorted(set(steps))))


def mode_quiet(eddy, scene, d):
    log = os.path.join(d, "quiet.log")
    run(eddy, ["run", scene, "--solver", DEV, "--steps", "120", "--set", "output.format=[]", "--set", "probes=[]",
               "--set", "time.output_interval=1", "--no-picture", "--quiet", "--out", os.path.join(d, "quiet")], log=log)
    expect_events(log, "download", {0, 120}, FIELDS, "quiet run")
    # eddy bench: 10 warm-up steps and 2 x 5 timed ones (bench.c); the particles are read before and after.
    bench = ["bench", scene, "--steps", "5", "--repeats", "2"]
    blog = os.path.join(d, "bench.log")
    out_dev = run(eddy, bench + ["--solver", DEV], log=blog)
    out_ref = run(eddy, bench + ["--solver", REF])
    expect_events(blog, "download", {0, 20}, FIELDS, "bench")
    near = [[l for l in o.splitlines() if "within h of a wall" in l] for o in (out_ref, out_dev)]
    if not near[0] or near[0] != near[1]:
        fail("bench: the share of particles near walls differs: %s %s, %s %s" % (REF, near[0], DEV, near[1]))
    if not failures:
        print("quiet run and bench: downloads only at their first and last steps; %s" % near[1][0].strip())


def mode_resume(eddy, scene, d):
    ref = run(eddy, ["run", scene, "--solver", REF, "--hash", "--quiet", "--no-picture", "--out", os.path.join(d, "ref")])
    opts = ["--quiet", "--no-picture"]
    full = run(eddy, ["run", scene, "--solver", DEV, "--hash", "--out", os.path.join(d, "full")] + opts)
    run(eddy, ["run", scene, "--solver", DEV, "--steps", "40", "--out", os.path.join(d, "split")] + opts)
    log = os.path.join(d, "resume.log")
    part = run(eddy, ["resume", os.path.join(d, "split"), "--until", "0.015", "--hash"] + opts, log=log)
    if failures:
        return
    hashes = {state_hash(ref), state_hash(full), state_hash(part)}
    if len(hashes) != 1 or None in hashes:
        fail("resume: hashes differ: %s %s, %s uninterrupted %s, resumed %s" %
             (REF, state_hash(ref), DEV, state_hash(full), state_hash(part)))
    for name in ("frames.pvd", "probes.csv"):
        if open(os.path.join(d, "full", name), "rb").read() != open(os.path.join(d, "split", name), "rb").read():
            fail("resume: %s differs between the uninterrupted and the resumed run" % name)
    if diagnostics_rows(os.path.join(d, "full", "diagnostics.csv"))[0] != \
            diagnostics_rows(os.path.join(d, "split", "diagnostics.csv"))[0]:
        fail("resume: diagnostics.csv differs between the uninterrupted and the resumed run")
    # The 2.0 resume order creates the solver on the scene's world, then writes every field and the
    # layout through write mappings: the double must upload all of them before its first step, once.
    expect_events(log, "upload", {0, 40}, FIELDS + ["layout"], "resume")
    if not failures:
        print("resume: %s; the resumed run uploaded the restored layout and fields once" % state_hash(part))


def mode_compare(eddy, scene, d):
    run(eddy, ["compare", scene, "--solvers", REF + "," + DEV, "--quiet", "--out", d], log=os.path.join(d + ".log"))
    if failures:
        return
    n = same_folders(os.path.join(d, REF), os.path.join(d, DEV), "compare")
    _, steps = diagnostics_rows(os.path.join(d, REF, "diagnostics.csv"))
    expect_events(d + ".log", "download", set(steps), FIELDS, "compare")
    if not failures:
        print("compare: %d files identical; downloads at the %d samples only" % (n, len(steps)))


def gpu_listed():
    """nvidia-smi lists a GPU (tests/cuda_grid/gpu_present.sh): independent of the plugin, so a plugin
    that wrongly reports no device on a GPU machine fails instead of skipping."""
    try:
        p = subprocess.run(["nvidia-smi", "-L"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    except OSError:
        return False
    return any(line.startswith("GPU ") for line in p.stdout.splitlines())


def mode_gpu(eddy, scene, d):
    common = ["run", scene, "--solver", GPU, "--hash", "--render", "--checkpoint-every", "0.005", "--quiet"]
    log = os.path.join(d, "frames.log")
    p = run_process(eddy, common + ["--out", os.path.join(d, "frames")], log=log)
    if p.returncode != 0 and not gpu_listed() and "solver '" + GPU + "': no CUDA device (cudaGetDeviceCount: " in p.stdout:
        print(p.stdout.strip())
        print("residency.py: no GPU here (nvidia-smi lists none, %s reports no CUDA device): skipped" % GPU)
        sys.exit(77)
    if p.returncode != 0:
        print(p.stdout)
        fail("eddy run --solver %s exited %d: %s" % (GPU, p.returncode, p.stdout.strip().splitlines()[-1:]))
        return
    every_log = os.path.join(d, "every_step.log")
    every = run(eddy, common + ["--out", os.path.join(d, "every_step")], log=every_log,
                env_extra={"EDDY_CUDA_HOST_COPY": "every_step"})
    if failures:
        return
    if state_hash(p.stdout) is None or state_hash(p.stdout) != state_hash(every):
        fail("gpu: state hashes differ: downloads at frames %s, every step %s" % (state_hash(p.stdout), state_hash(every)))
    n = same_folders(os.path.join(d, "frames"), os.path.join(d, "every_step"), "gpu",
                     names=("the run downloading at frames", "the run downloading every step"))
    _, steps = diagnostics_rows(os.path.join(d, "frames", "diagnostics.csv"))
    expect_events(log, "download", set(steps), GPU_FIELDS, "gpu run")
    expect_events(log, "upload", {0}, GPU_UPLOADS, "gpu run")
    # The reference must really have read every step back, or the comparison above shows nothing.
    expect_events(every_log, "download", set(range(0, max(steps) + 1)), GPU_FIELDS, "gpu run with every_step")
    if not failures:
        print("gpu: %d files identical with every_step, %s; downloads at steps %s only" %
              (n, state_hash(p.stdout), sorted(set(steps))))


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in ("outputs", "quiet", "resume", "compare", "gpu"):
        print(__doc__)
        return 2
    mode, eddy, scene, d = sys.argv[1:]
    subprocess.run(["rm", "-rf", d])
    os.makedirs(d)
    globals()["mode_" + mode](eddy, scene, d)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
