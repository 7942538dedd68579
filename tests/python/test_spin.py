"""The package's OpenMP wait policy (docs/python.md, "OpenMP's wait policy"): GOMP_SPINCOUNT=1000 set
before libgomp is loaded unless OMP_WAIT_POLICY or GOMP_SPINCOUNT is set, the rule of the `eddy`
command (host/cli/main.c); a warning where libgomp was loaded before eddy. Each case is a fresh
interpreter, since libgomp reads its environment once per process; OMP_DISPLAY_ENV=verbose has libgomp
print what it read, so the tests see what OpenMP uses, not only os.environ."""
import os
import re
import subprocess
import sys

WARNING = ("eddy: OpenMP (libgomp) was loaded before eddy by a module imported earlier, so GOMP_SPINCOUNT=1000, "
           "which eddy sets as the eddy command does, has no effect in this process: its threads spin at every "
           "barrier before they sleep, which makes runs on a shared machine several times slower; start Python "
           "with GOMP_SPINCOUNT=1000 (or OMP_WAIT_POLICY) in its environment, or import eddy before that module "
           "(docs/python.md, \"OpenMP's wait policy\")")


def child(code, **env):
    """(stdout, stderr) of a fresh interpreter with neither variable set but those given."""
    e = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    e.update(env, OMP_DISPLAY_ENV="verbose")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=e, timeout=60)
    assert p.returncode == 0, p.stderr
    return p.stdout, p.stderr


def shown(err, name):
    """The values OMP_DISPLAY_ENV printed for the variable NAME as the host's: GCC 12's libgomp prints
    "  NAME = 'value'", GCC 13's "  [host] NAME = 'value'" (with lines for devices, "[device]", "[all]"
    or "[N]", besides)."""
    return re.findall(rf"^  (?:\[host\] )?{name} = '([^']*)'$", err, re.M)


SHOW = "import os, eddy; print(repr(os.environ.get('GOMP_SPINCOUNT')), repr(os.environ.get('OMP_WAIT_POLICY')))"


def test_clean_environment_spins_briefly():
    out, err = child(SHOW)
    assert out == "'1000' None\n"
    assert shown(err, "GOMP_SPINCOUNT") == ["1000"]   # what libgomp read when the extension loaded it
    assert "Warning" not in err


def test_a_wait_policy_is_left_alone():
    out, err = child(SHOW, OMP_WAIT_POLICY="active")
    assert out == "None 'active'\n"
    assert shown(err, "OMP_WAIT_POLICY") == ["ACTIVE"]
    spin = shown(err, "GOMP_SPINCOUNT")
    assert len(spin) == 1 and spin != ["1000"]


def test_a_spin_count_is_left_alone_even_empty():
    out, err = child(SHOW, GOMP_SPINCOUNT="5000")
    assert out == "'5000' None\n" and shown(err, "GOMP_SPINCOUNT") == ["5000"]
    # set to nothing counts as set, as the command's getenv() sees it
    out, _ = child(SHOW, GOMP_SPINCOUNT="")
    assert out == "'' None\n"


def test_libgomp_loaded_first_warns():
    code = ("import ctypes, os, warnings\n"
            "ctypes.CDLL('libgomp.so.1')\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    import eddy\n"
            "print([(x.category.__name__, str(x.message)) for x in w])\n"
            "print(os.environ.get('GOMP_SPINCOUNT'))\n")
    out, err = child(code)
    assert out == f"{[('RuntimeWarning', WARNING)]!r}\n1000\n"
    assert shown(err, "GOMP_SPINCOUNT") == ["300000"]   # libgomp's default: read before eddy set it
