"""eddy compare writes DIR/<solver>/run.json as eddy run writes its own (host/drive/run_record.h): the
command "compare" with its command line (a researcher trial found it missing), the solver compared
there with its parameters, and what it derived (tait's sound speed, left to it here), which a --quiet
comparison showed nowhere.

usage: check_compare_record.py EDDY SCENE OUT
"""
import json
import os
import shutil
import subprocess
import sys

eddy, scene, out = sys.argv[1:4]
shutil.rmtree(out, ignore_errors=True)
argv = [eddy, "compare", scene, "--solvers", "tait,pbf", "--steps", "3", "--quiet", "--out", out,
        "--set", "solvers.tait.sound_speed=null"]
p = subprocess.run(argv, capture_output=True, text=True)
if p.returncode != 0:
    sys.exit(f"compare failed ({p.returncode}): {p.stderr}")
failures = []
for solver in ("tait", "pbf"):
    with open(os.path.join(out, solver, "run.json")) as f:
        r = json.load(f)
    c = r["commands"]
    if [x["command"] for x in c] != ["compare"]:
        failures.append(f"{solver}: commands {[x['command'] for x in c]}, expected ['compare']")
        continue
    if c[0].get("argv") != argv:
        failures.append(f"{solver}: argv {c[0].get('argv')}, expected {argv}")
    if c[0]["solver"]["id"] != solver or r["scene"]["solver"] != solver:
        failures.append(f"{solver}: the record names solver {c[0]['solver']['id']} / scene {r['scene']['solver']}")
    derived = [line for line in c[0]["log"] if line.startswith("tait: sound speed c0 = 10 sqrt(2 |g| H) = ")]
    if solver == "tait" and (not derived or c[0]["solver"]["parameters"]["sound_speed"] is not None):
        failures.append(f"tait: the derived sound speed is not recorded: {c[0]['log']}")
    if solver == "pbf" and derived:
        failures.append("pbf: tait's message in pbf's record")
    # How the solver's run ended, as eddy run records it (a reader could not tell a finished comparison
    # from a killed one: adversarial trial): 3 steps of the scene's dt.
    ended = c[0].get("ended")
    if not isinstance(ended, dict) or ended.get("outcome") != "finished" or ended.get("step") != 3:
        failures.append(f"{solver}: ended is {ended}, expected the finished outcome at step 3")
if failures:
    sys.exit("\n".join(failures))
print("compare's run.json checked")
