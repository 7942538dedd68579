"""DIR/run.json (host/drive/run_record.h) against what the test itself gave and knows: the command line,
the --set value, the scene file's own values, the particle count of the scene's block and lattice, the
vector path `eddy --version` names; a parameter left to the solver is null and what it derived is in the
log; `eddy resume` appends its command from the step it started at; a new
run starts the record again; a run.json that is not eddy's is left as it is, with a warning. The build's
provenance: the commit the build took (BUILD_INFO, the header cmake/eddy_build_info.cmake wrote; the
tree may have moved on since, so not git describe now), which must look like `git describe` output, the
compiler CMake found, the CPU model /proc/cpuinfo names.

usage: check_run_record.py EDDY SCENE OUT [BUILD_INFO COMPILER]
"""
import json
import os
import shutil
import subprocess
import sys

eddy, scene_path, out = sys.argv[1:4]
build_info, compiler = (sys.argv[4], sys.argv[5]) if len(sys.argv) > 5 else (None, None)
failures = []


def check(what, got, want):
    if got != want:
        failures.append(f"{what}: got {got!r}, expected {want!r}")


def run(*args):
    p = subprocess.run([eddy, *args], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"{' '.join(args)} failed ({p.returncode}): {p.stderr}")
    return p


def record():
    with open(os.path.join(out, "run.json")) as f:
        return json.load(f)


with open(scene_path) as f:
    scene = json.load(f)
shutil.rmtree(out, ignore_errors=True)
run_args = ["run", scene_path, "--steps", "5", "--out", out, "--quiet", "--no-picture",
            "--set", "materials[0].viscosity=0.2", "--set", "solvers.tait.sound_speed=null"]
run(*run_args)
r = record()
check("format", r.get("format"), "eddy.run/1")
check("scene.time.dt", r["scene"]["time"]["dt"], scene["time"]["dt"])
check("scene's overridden viscosity", r["scene"]["materials"][0]["viscosity"], 0.2)
check("scene's output.dir (--out)", r["scene"]["output"]["dir"], out)
check("commands", len(r["commands"]), 1)
c = r["commands"][0]
check("command", c["command"], "run")
check("argv", c["argv"], [eddy] + run_args)
check("from", c["from"], {"time": 0, "step": 0})
check("processes", c["processes"], 1)
# The block [0, 0.1] x [0, 0.2] on a lattice of spacing 0.0025: 40 x 80 particles.
box = scene["fluids"][0]["box"]
spacing = scene["materials"][0]["particle_spacing"]
n = round((box["max"][0] - box["min"][0]) / spacing) * round((box["max"][1] - box["min"][1]) / spacing)
check("particles", c["particles"], n)
version = subprocess.run([eddy, "--version"], capture_output=True, text=True).stdout
check("eddy.version in --version", f"eddy {c['eddy']['version']} (plugin ABI {c['eddy']['plugin_abi']})" in version, True)
check("eddy.simd in --version", f"simd: {c['eddy']['simd']} " in version, True)
if build_info:
    import re
    with open(build_info) as f:
        built = re.search(r'#define EDDY_BUILD_COMMIT "([^"]*)"', f.read()).group(1)
    check("eddy.commit (the build's)", c["eddy"]["commit"], built)
    check("eddy.commit looks like git describe", bool(re.fullmatch(r"unknown|[\w.-]*[0-9a-f]{12}(-dirty)?",
                                                                 c["eddy"]["commit"])), True)
    check("eddy.compiler", c["eddy"]["compiler"], compiler)
    check("eddy.build_type present", bool(c["eddy"]["build_type"]), True)
cpu = "unknown"
try:
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name") and ":" in line:
                cpu = line.split(":", 1)[1].strip()
                break
except OSError:
    pass
check("cpu (/proc/cpuinfo's model name)", c["cpu"], cpu)
check("solver.id", c["solver"]["id"], scene["solver"])
for key, value in scene["solvers"][scene["solver"]].items():
    if key != "sound_speed":
        check(f"solver.parameters.{key}", c["solver"]["parameters"].get(key), value)
# Left to the solver (--set ... =null): recorded as null, and what tait derived is in the log, which
# --quiet kept off the terminal.
check("solver.parameters.sound_speed (derived)", c["solver"]["parameters"].get("sound_speed", "absent"), None)
check("log: tait's derived sound speed",
      any(line.startswith("tait: sound speed c0 = 10 sqrt(2 |g| H) = ") for line in c["log"]), True)
check("grid.id", c["grid"]["id"], "cpu")
m = c["materials"][0]
check("material name", m["name"], scene["materials"][0]["name"])
check("rest_density", m["rest_density"], scene["materials"][0]["rest_density"])
check("particle_spacing", m["particle_spacing"], spacing)
check("material parameter viscosity (--set)", m["parameters"]["viscosity"], 0.2)
check("material parameter stiffness (scene)", m["parameters"]["stiffness"], scene["materials"][0]["stiffness"])

resume_args = ["resume", out, "--steps", "8", "--quiet", "--no-picture"]
run(*resume_args)
r = record()
check("commands after resume", [x["command"] for x in r["commands"]], ["run", "resume"])
check("run entry kept", r["commands"][0], c)
check("resume argv", r["commands"][1]["argv"], [eddy] + resume_args)
check("resume from step", r["commands"][1]["from"]["step"], 5)

run(*run_args)
check("a new run starts the record again", len(record()["commands"]), 1)

with open(os.path.join(out, "run.json"), "w") as f:
    f.write("my notes\n")
p = run("resume", out, "--steps", "8", "--quiet", "--no-picture")
want = (f"eddy: warning: '{out}/run.json' is not eddy's run record (format \"eddy.run/1\"): left as it is, "
        "and this command is not recorded in it")
check("warning for a foreign run.json", want in p.stderr, True)
with open(os.path.join(out, "run.json")) as f:
    check("foreign run.json kept", f.read(), "my notes\n")

# A run.json that cannot be read or written (a folder in its place) is said and left; the runs go on.
os.remove(os.path.join(out, "run.json"))
os.mkdir(os.path.join(out, "run.json"))
p = run("resume", out, "--steps", "10", "--quiet", "--no-picture")
check("warning for an unreadable run.json", f"eddy: warning: cannot read '{out}/run.json'" in p.stderr, True)
p = run(*run_args)
check("warning for an unwritable run.json",
      f"eddy: warning: cannot write '{out}/run.json'" in p.stderr and "the run goes on without its record" in p.stderr,
      True)
check("the run's frames written", os.path.isfile(os.path.join(out, "frames.pvd")), True)

if failures:
    sys.exit("\n".join(failures))
print("run.json checked")
