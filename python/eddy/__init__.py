"""eddy from Python: run, inspect and compare the particle fluid solvers of the eddy framework.

The package wraps the host's session C API (host/session/session.h) rather than re-implementing the
``eddy`` command, so a simulation stepped here reaches the same states (and state hashes) as
``eddy run`` and reports the same error messages. See docs/python.md.

    >>> import eddy
    >>> sim = eddy.Simulation("scenes/tait_dam_break_2d.json", set={"time.end": 0.03})
    >>> rec = sim.run()                       # frames at multiples of output_interval, then time.end
    >>> rec.probes["front"][-1]               # the surge front of the last frame, m
    >>> x = sim.field("position")             # a zero-copy, read-only view, shape (count, 3)

Errors raise :class:`eddy.Error` subclasses whose ``str()`` is the message ``eddy`` prints after
``eddy: error:`` (file, line:column, key). Ctrl-C during :meth:`Simulation.run` or
:meth:`Simulation.step` finishes the step under way and raises :class:`KeyboardInterrupt`.
"""
from __future__ import annotations

import csv
import json
import math
import os
import re
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple, Union


def _spin_briefly_by_default() -> None:
    """GOMP_SPINCOUNT=1000 in the environment unless OMP_WAIT_POLICY or GOMP_SPINCOUNT is there (set,
    even to ""), the rule of the ``eddy`` command (host/cli/main.c, spin_briefly_by_default)."""
    # libgomp's default of 300 000 spins at every barrier made a script stepping on a shared 2-core
    # machine 3.5 to 5 times as slow as `eddy` (which spins 1000 times), docs/performance.md. libgomp
    # reads its environment once, when it is loaded: the command starts itself again to get it read;
    # here setting it before the extension (which loads libgomp) is imported is enough. (The command's
    # exception for valgrind is about that restart, which the package does not do.) Before NumPy too:
    # a NumPy built on OpenMP loads libgomp itself.
    if "OMP_WAIT_POLICY" in os.environ or "GOMP_SPINCOUNT" in os.environ:
        return
    os.environ["GOMP_SPINCOUNT"] = "1000"
    try:
        with open("/proc/self/maps") as f:
            loaded = "/libgomp" in f.read()
    except OSError:   # (no /proc: not Linux; nothing to tell)
        return
    if loaded:
        # Another extension imported first (torch, scikit-learn, an OpenMP NumPy) loaded libgomp, which
        # has read its environment already: the setting reaches only the child processes.
        warnings.warn("eddy: OpenMP (libgomp) was loaded before eddy by a module imported earlier, so "
                      "GOMP_SPINCOUNT=1000, which eddy sets as the eddy command does, has no effect in this "
                      "process: its threads spin at every barrier before they sleep, which makes runs on a "
                      "shared machine several times slower; start Python with GOMP_SPINCOUNT=1000 (or "
                      "OMP_WAIT_POLICY) in its environment, or import eddy before that module "
                      "(docs/python.md, \"OpenMP's wait policy\")", RuntimeWarning, stacklevel=3)


_spin_briefly_by_default()

import numpy as np  # noqa: E402  (after the environment is set: see above)

from . import _eddy  # noqa: E402
from ._eddy import (DeviceError, Error, FileError, NotFoundError, PluginError, SceneError,  # noqa: E402
                    UnstableError)

__version__ = "0.1.0"
__all__ = [
    "Component", "DeviceError", "Error", "FileError", "FrameData", "FrameEntry", "NotFoundError", "Param",
    "PluginError", "Probe", "Record", "RunFolder", "SceneError", "Simulation", "UnstableError", "compare",
    "components", "describe", "load_plugin", "read_frame", "read_run", "refused_plugins", "set_quiet",
]

_HERE = os.path.dirname(os.path.abspath(__file__))
# Where the `eddy` command looks at <exe>/../lib/eddy/plugins, the package looks next to itself:
# <package>/plugins in an installed package (pip install .), <package>/../../lib/eddy/plugins in the
# build tree (<build>/python/eddy). EDDY_PLUGIN_PATH comes first and the install folder last, as
# for the command.
_eddy._set_plugin_dirs([
    os.path.join(_HERE, "plugins"),
    os.path.normpath(os.path.join(_HERE, "..", "..", "lib", "eddy", "plugins")),
])

def set_quiet(quiet: bool = True) -> bool:
    """Hide (True) or show (False) the information lines solvers and sessions print on stderr, as
    ``eddy --quiet`` does (tait's derived sound speed, for example); warnings and errors always show.
    The setting is the process's, for every simulation; :func:`compare` runs quietly and leaves it as
    it was. Returns the previous setting. ``quiet`` is a flag as every flag of the package: True or
    False, a NumPy bool, 0 or 1."""
    return _eddy.set_quiet(_flag(quiet, "set_quiet: quiet"))


SceneLike = Union[str, "os.PathLike[str]", Mapping[str, Any]]
Overrides = Union[None, Mapping[str, Any], Sequence[str]]


# --------------------------------------------------------------------------------------------------
# Components
# --------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Param:
    """One entry of a component's parameter table (the scene key ``solvers.<id>.<param>``)."""
    id: str
    type: str            #: "real", "int", "bool", "enum", "string" or "vector"
    default: Any         #: None for a derived parameter (computed from the scene when absent)
    min: float
    max: float
    unit: str
    doc: str
    choices: Tuple[str, ...]
    derived: bool


@dataclass(frozen=True)
class Component:
    """A registered component: a solver, grid, writer, probe or a plugin's own kind."""
    id: str
    kind: str            #: "solver", "grid", "writer", "probe", or the interface id
    interface: str
    version: str
    description: str
    file: str            #: the plugin's shared object, or "(built-in)"
    plugin: str
    params: Tuple[Param, ...]
    material_params: Tuple[Param, ...]

    def param(self, id: str) -> Param:
        """The parameter ``id``; NotFoundError naming the available ones otherwise."""
        return self._find(id, self.params, "parameter", self.material_params, "a material parameter",
                          "material_param")

    def material_param(self, id: str) -> Param:
        """The material parameter ``id`` (the scene key ``materials[i].<id>``); NotFoundError naming
        the available ones otherwise."""
        return self._find(id, self.material_params, "material parameter", self.params, "a parameter", "param")

    def _find(self, id: str, table: Tuple[Param, ...], what: str, others: Tuple[Param, ...],
              other_what: str, other_method: str) -> Param:
        for p in table:
            if p.id == id:
                return p
        raise NotFoundError(f"{self.kind} '{self.id}' has no {what} '{id}' (available: "
                            f"{', '.join(p.id for p in table) or 'none'})"
                            + self._other(id, others, other_what, other_method))

    def _other(self, id: str, params: Tuple[Param, ...], what: str, method: str) -> str:
        # The two tables are easily taken for each other (tait's viscosity is a material's): a plain
        # "no parameter 'viscosity'" read as if tait had none.
        if any(p.id == id for p in params):
            return f"; '{id}' is {what} of {self.id}: use .{method}({id!r})"
        return ""


def _param(d: Dict[str, Any]) -> Param:
    return Param(d["id"], d["type"], d["default"], d["min"], d["max"], d["unit"], d["doc"],
                 tuple(d["choices"]), d["derived"])


def components(kind: Optional[str] = None) -> List[Component]:
    """Every registered component (the built-ins and the plugins found), or those of one ``kind``
    ("solver", "grid", "writer", "probe"), in registration order: what ``eddy list`` shows. A kind
    that is none of those and that no component has raises ValueError, one that is not a str
    TypeError."""
    if kind is not None and not isinstance(kind, str):   # components(5) said "unknown kind 5"
        raise TypeError(f"components: kind must be a str or None, got {type(kind).__name__} {kind!r}")
    every = _eddy.components()
    kinds = sorted({"solver", "grid", "writer", "probe"} | {d["kind"] for d in every})
    if kind is not None and kind not in kinds:   # a typo ("solvers") is not "no component"
        raise ValueError(f"components: unknown kind {kind!r} (kinds: {', '.join(kinds)})")
    out = []
    for d in every:
        if kind is None or d["kind"] == kind:
            out.append(Component(d["id"], d["kind"], d["interface"], d["version"], d["description"],
                                 d["file"], d["plugin"], tuple(_param(p) for p in d["params"]),
                                 tuple(_param(p) for p in d["material_params"])))
    return out


def describe(id: str) -> Component:
    """The component ``id`` (``eddy describe ID``); NotFoundError listing the ids otherwise (with "did
    you mean" the nearest one, as the command says it, when ``id`` looks like its typo)."""
    if not isinstance(id, str):   # describe(None) was "unknown component 'None'"
        raise TypeError(f"describe: id must be a str, got {type(id).__name__} {id!r}")
    every = components()
    for c in every:
        if c.id == id:
            return c
    near = _eddy.nearest_id(id)
    mean = f"; did you mean '{near}'?" if near else ""
    raise NotFoundError(f"unknown component '{id}' (available: {', '.join(c.id for c in every)}){mean}")


def refused_plugins() -> List[Tuple[str, str]]:
    """(file, reason) of every plugin file the registry refused (a wrong ABI, a missing entry...)."""
    return list(_eddy.refusals())


def load_plugin(path: Union[str, "os.PathLike[str]"]) -> None:
    """Loads one plugin file into the process's registry; PluginError with the refusal's reason."""
    p = _path(path, "load_plugin: path")
    if not p:   # dlopen("") opens the program itself: the refusal named no file
        raise ValueError("load_plugin: path is empty (give a plugin's shared object file)")
    _eddy.load_plugin(p)


# --------------------------------------------------------------------------------------------------
# Records: diagnostics and probes as structured arrays
# --------------------------------------------------------------------------------------------------

_DIAGNOSTICS = np.dtype([
    ("time", "f8"), ("step", "i8"), ("frame", "i8"), ("kinetic_energy", "f8"), ("momentum", "f8", (3,)),
    ("mass", "f8"), ("density_error_mean", "f8"), ("density_error_max", "f8"), ("max_speed", "f8"),
    ("particles", "i8"), ("potential_energy", "f8"), ("total_energy", "f8"), ("density_error_p99", "f8"),
])
_FIXED = _eddy.RECORD_FIXED_COLUMNS


@dataclass(frozen=True)
class Probe:
    """A probe of the scene's "probes" section and its reference data (None when it has none)."""
    name: str
    kind: str
    unit: str
    reference: Optional["Reference"]


@dataclass(frozen=True)
class Reference:
    """A probe's reference data as the file gives it: ``x`` in the reference's time unit (t /
    time_scale), ``y`` in its value unit ((value - value_offset) / value_scale)."""
    file: str
    label: str
    x_label: str
    y_label: str
    x: np.ndarray
    y: np.ndarray
    time_scale: float
    value_scale: float
    value_offset: float


@dataclass
class Record:
    """What a run measured at every output frame it landed on (the frame it started from too, when
    that is frame 0), then at its final state when the run ended between frame times (an end time
    that is not a multiple of output_interval, a step count, a stop or an explosion), numbered as the
    next regular frame: the frames ``eddy run`` writes.

    ``diagnostics`` has the columns time, step, frame, kinetic_energy, momentum (shape (3,)), mass,
    density_error_mean, density_error_max, max_speed, particles, potential_energy, total_energy,
    density_error_p99, in
    simulation units (energies per unit depth in 2D: J/m; potential_energy is -sum m (g . x), relative
    to the origin). They are the
    values of diagnostics.csv's rows, not its layout: ``momentum[:, 0..2]`` is its momentum_x/y/z;
    ``frame`` (the index of the frame file) and ``mass`` (the total, kg; kg/m in 2D)
    are not in diagnostics.csv; its wall_ms (wall time) is not here.
    Read diagnostics.csv by column name (csv.DictReader), not by position. ``to_pandas()`` names
    the momentum columns as diagnostics.csv does.

    ``probes``: time, step, frame and one column per probe, named as in the scene, in the probe's unit
    (lengths in world units), as probes.csv. ``completed`` is False when the run stopped early (a
    cancel)."""
    diagnostics: np.ndarray
    probes: np.ndarray
    completed: bool = True

    def to_pandas(self):  # pragma: no cover - pandas is optional
        """The two tables as pandas DataFrames (needs pandas)."""
        import pandas as pd
        d = self.diagnostics
        cols = {n: d[n] for n in d.dtype.names if n != "momentum"}
        for i, a in enumerate("xyz"):
            cols[f"momentum_{a}"] = d["momentum"][:, i]
        return pd.DataFrame(cols), pd.DataFrame({n: self.probes[n] for n in self.probes.dtype.names})


def _record(rows: bytes, width: int, probe_names: Sequence[str], completed: bool = True) -> Record:
    a = np.frombuffer(rows, dtype="f8").reshape(-1, width)
    d = np.zeros(len(a), dtype=_DIAGNOSTICS)
    d["time"], d["step"], d["frame"] = a[:, 0], a[:, 1], a[:, 2]
    d["kinetic_energy"], d["momentum"], d["mass"] = a[:, 3], a[:, 4:7], a[:, 7]
    d["density_error_mean"], d["density_error_max"] = a[:, 8], a[:, 9]
    d["max_speed"], d["particles"] = a[:, 10], a[:, 11]
    d["potential_energy"], d["total_energy"], d["density_error_p99"] = a[:, 12], a[:, 13], a[:, 14]
    p = np.zeros(len(a), dtype=[("time", "f8"), ("step", "i8"), ("frame", "i8")] +
                 [(n, "f8") for n in probe_names])
    p["time"], p["step"], p["frame"] = a[:, 0], a[:, 1], a[:, 2]
    for i, n in enumerate(probe_names):
        p[n] = a[:, _FIXED + i]
    return Record(d, p, completed)


def _short(v: Any) -> Any:
    """A NumPy float narrower than a double as the double its shortest repr reads as: float32's 0.01 is
    0.00999999977648258 as a double, which made time.end 0.009999999776 and until one step longer. Any
    other value as it is."""
    if isinstance(v, np.floating) and v.dtype.itemsize < 8:
        if not np.isfinite(v):
            return float(v)
        # (format_float_scientific(unique=True): the shortest text that reads back as the same value,
        # whatever NumPy's print options; str() follows them. The largest float32's text reads back
        # above it, where a scene refuses the value the float32 holds exactly: that one stays exact.)
        d = float(np.format_float_scientific(v, unique=True))
        return d if abs(d) <= float(np.finfo(v.dtype).max) else float(v)
    return v


def _json_value(v: Any) -> Any:
    """NumPy scalars and arrays as the Python numbers and lists JSON knows (json.dumps' default)."""
    if isinstance(v, np.generic):
        return _short(v) if isinstance(v, np.floating) and v.dtype.itemsize < 8 else v.item()
    if isinstance(v, np.ndarray):
        if v.dtype.kind == "f" and v.dtype.itemsize < 8:
            return np.array([_short(x) for x in v.ravel()], dtype="f8").reshape(v.shape).tolist()
        return v.tolist()
    raise TypeError(f"a {type(v).__name__} is not a JSON value (numbers, strings, lists, dicts, bools, None)")


def _json(v: Any, what: str) -> str:
    try:
        return json.dumps(v, default=_json_value)
    except (TypeError, ValueError) as e:
        raise TypeError(f"{what}: {e}") from None


def _scalar(v: Any) -> Any:
    """A 0-d NumPy array (what indexing or reducing an array often gives) as its scalar, so that it is
    taken as that NumPy number is; anything else as it is."""
    return v[()] if isinstance(v, np.ndarray) and v.ndim == 0 else v


def _whole(n: Any, what: str) -> int:
    """A whole number (an int, or a float or NumPy number without a fraction); 2.7 steps is an error."""
    n = _scalar(n)
    if isinstance(n, bool) or not isinstance(n, (int, float, np.integer, np.floating)):
        raise TypeError(f"{what} must be a whole number, got {type(n).__name__}")
    if isinstance(n, (float, np.floating)) and not (math.isfinite(n) and float(n).is_integer()):
        raise ValueError(f"{what} must be a whole number, got {n}")
    v = int(n)
    # The C side's 64-bit counts (every count here is >= 0): an OverflowError would not name the value.
    if v >= 2**63:
        raise ValueError(f"{what} must be a whole number below 2**63, got {n}")
    if v < -2**63:
        raise ValueError(f"{what} must be >= 0, got {n}")
    return v


def _threads(n: Any) -> int:
    """A thread count as --threads takes it: 0 (OpenMP's default) or 1 to 4096."""
    v = _whole(n, "threads")
    if not 0 <= v <= 4096:
        raise ValueError(f"threads must be 0 (the default) or 1 to 4096, got {v}")
    return v


def _time(t: Any, what: str) -> float:
    """A simulated time in seconds, finite and >= 0, as --until takes it; a float32 by its shortest
    repr (_short)."""
    t = _short(_scalar(t))
    if isinstance(t, bool) or not isinstance(t, (int, float, np.integer, np.floating)):
        raise TypeError(f"{what} must be a time in seconds (a number), got {type(t).__name__}")
    try:
        v = float(t)
    except OverflowError:   # "int too large to convert to float" named nothing
        raise ValueError(f"{what} must be a finite time >= 0 in seconds, got an int of "
                         f"{len(str(abs(int(t))))} digits") from None
    if not (math.isfinite(v) and v >= 0):
        raise ValueError(f"{what} must be a finite time >= 0 in seconds, got {t}")
    return v


def _sets(overrides: Overrides) -> List[str]:
    if overrides is None:
        return []
    if isinstance(overrides, Mapping):
        # A value is JSON text (`eddy run --set key=value` reads it as JSON, else as a string).
        for k in overrides:
            if not isinstance(k, str):   # b"time.end" became "b'time.end'", None "None"
                raise TypeError(f"set: expected str keys (dotted paths), got {type(k).__name__} {k!r}")
        for k, v in overrides.items():   # (json.dumps' NaN became the string "NaN")
            _finite(v, f"set[{json.dumps(k, ensure_ascii=False)}]")
        return [f"{k}={_json(v, f'set {k!r}')}" for k, v in overrides.items()]
    if isinstance(overrides, str):
        return [overrides]
    # bytes were taken byte by byte ("--set '116'"): iterable, but not a list of overrides
    if isinstance(overrides, (bytes, bytearray, memoryview)) or not _iterable(overrides):
        raise TypeError(f"set must be a dict {{'dotted.path': value}} or a list of 'path=value' strings, "
                        f"got {type(overrides).__name__}")
    items = list(overrides)
    for item in items:
        if not isinstance(item, str):   # str() made b'a=1' "b'a=1'" and None "None"
            raise TypeError(f"set: expected str items ('path=value'), got {type(item).__name__} {item!r}")
    return items


def _finite(v: Any, where: str) -> None:
    """ValueError naming the key path (scene["time"]["dt"]) of the first NaN or infinity in v: JSON has
    none, and json.dumps' NaN made the scene's message "scene.json:1:332: malformed JSON near 'NaN, ...'",
    which named neither the key nor the value."""
    v = _scalar(v)
    if isinstance(v, Mapping):
        for k, x in v.items():
            _finite(x, f"{where}[{json.dumps(k, ensure_ascii=False) if isinstance(k, str) else repr(k)}]")
    elif isinstance(v, (list, tuple)):
        for i, x in enumerate(v):
            _finite(x, f"{where}[{i}]")
    elif isinstance(v, np.ndarray) and v.dtype.kind == "f":
        bad = np.argwhere(~np.isfinite(v))
        if len(bad):
            at = tuple(int(i) for i in bad[0])
            raise ValueError(f"{where}{''.join(f'[{i}]' for i in at)}: expected a finite number, got {float(v[at])!r}")
    elif isinstance(v, (float, np.floating)) and not math.isfinite(v):
        raise ValueError(f"{where}: expected a finite number, got {float(v)!r}")


def _scene_text(scene: Mapping[str, Any], what: str) -> str:
    """A dict scene as the JSON text the session parses (_json), its numbers checked finite first."""
    _finite(scene, what)
    return _json(scene, what)


def _scene_path(scene: Any, what: str) -> str:
    """A scene file's path (_path), or ValueError for JSON text given where a path goes: it was read as a
    file name, and the message repeated the whole text."""
    p = _path(scene, what)
    if isinstance(scene, str) and scene.lstrip().startswith("{") and not os.path.exists(p):
        raise ValueError(f"{what}: got JSON text; pass a dict (json.loads(text)) or a path")
    return p


def _relative_note(e: BaseException, name: Optional[str]) -> None:
    """Adds to the message of a dict scene's file that cannot be read, named relative, where such names
    start from and how to choose it: a dict has no folder, so a probe's reference file was looked for
    in the current folder, and the message did not say so."""
    m = re.search(r"\.file: cannot read '([^']*)'", str(e))
    if not m or os.path.isabs(m.group(1)):
        return
    if name is None:
        start = f"the current folder, '{os.path.abspath(os.curdir)}', as no name= was given"
    else:
        start = f"the folder of its name= {name!r}, '{os.path.abspath(os.path.dirname(name) or os.curdir)}'"
    e.args = (f"{e} (a dict scene's relative file names start from {start}; pass as name= the path of the "
              f"file the dict was read from, or give absolute file names)",) + tuple(e.args[1:])


def _iterable(v: Any) -> bool:
    try:
        iter(v)
    except TypeError:
        return False
    return True


def _path(p: Any, what: str) -> str:
    """A file or folder name (str, bytes or os.PathLike) as the str the C side takes, or TypeError /
    ValueError naming the argument: C's own messages named its position ("argument 7 must be str"),
    refused a pathlib.Path, and said "embedded null character" without saying where."""
    try:
        v = os.fspath(p)
    except TypeError:
        raise TypeError(f"{what} must be a path (str or os.PathLike), got {type(p).__name__}") from None
    if isinstance(v, bytes):
        v = os.fsdecode(v)
    if "\0" in v:
        raise ValueError(f"{what}: embedded null character in {v!r}")
    return _utf8(v, what)


def _utf8(v: str, what: str) -> str:
    """v, or ValueError naming the argument where v is not UTF-8 text (a lone surrogate, which is what
    os.fsdecode makes of a file name's non-UTF-8 bytes): the C side's "'utf-8' codec can't encode
    character '\\udcff' in position 0: surrogates not allowed" named nothing."""
    try:
        v.encode("utf-8")
    except UnicodeEncodeError:
        raise ValueError(f"{what}: {v!r} is not valid UTF-8 text") from None
    return v


def _name(v: Any, what: str) -> str:
    """A field name (str), or TypeError / ValueError naming the argument (C said "argument 1 must be
    str, not None")."""
    if not isinstance(v, str):
        raise TypeError(f"{what} must be a str, got {type(v).__name__} {v!r}")
    if "\0" in v:
        raise ValueError(f"{what}: embedded null character in {v!r}")
    return _utf8(v, what)


def _flag(v: Any, what: str) -> bool:
    """True or False (also a NumPy bool, 0 or 1), or TypeError naming the argument: a flag was read by
    its truth, so run(write="false") wrote frames. Every flag argument of the package goes through
    here, so that they all take the same values."""
    v = _scalar(v)
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)) and v in (0, 1):
        return bool(v)
    raise TypeError(f"{what} must be True or False, got {type(v).__name__} {v!r}")


def _make_dirs(d: str) -> List[str]:
    """os.makedirs(d, exist_ok=True), returning the folders it made, outermost first, so that a call
    that is then refused can take them away again (_remove_dirs)."""
    head, tail = os.path.split(d)
    if not tail:
        head, tail = os.path.split(head)
    made: List[str] = []
    if head and tail and not os.path.exists(head):
        made = _make_dirs(head)
        if tail == os.curdir:
            return made
    try:
        os.mkdir(d)
        made.append(d)
    except OSError:
        if not os.path.isdir(d):
            _remove_dirs(made)
            raise
    return made


def _remove_dirs(made: List[str]) -> None:
    """Removes the folders _make_dirs made, innermost first, where they are still empty."""
    for d in reversed(made):
        try:
            os.rmdir(d)
        except OSError:
            pass


def _text(v: Any, what: str) -> Optional[str]:
    """An optional id or name (str or None), or TypeError / ValueError naming the argument."""
    if v is None:
        return None
    if not isinstance(v, str):
        raise TypeError(f"{what} must be a str or None, got {type(v).__name__} {v!r}")
    if "\0" in v:
        raise ValueError(f"{what}: embedded null character in {v!r}")
    return _utf8(v, what)


def _formats(formats: Any) -> Optional[List[str]]:
    if formats is None:
        return None
    if isinstance(formats, str):
        raise TypeError(f"formats must be a list of writer ids, got the string {formats!r} "
                        f"(for one writer: [{formats!r}])")
    if not _iterable(formats):
        raise TypeError(f"formats must be a list of writer ids or None, got {type(formats).__name__}")
    return list(formats)


# --------------------------------------------------------------------------------------------------
# Simulation
# --------------------------------------------------------------------------------------------------

class Simulation:
    """One simulation: a scene opened with a solver and a grid, stepped the way ``eddy run`` steps.

    ``scene`` is a scene file or a dict (the scene's JSON). ``set`` holds ``--set`` overrides, as
    {"dotted.path": value} (values encoded as JSON) or ["path=value", ...]; ``solver``, ``grid``,
    ``out`` and ``formats`` are ``--solver``, ``--grid``, ``--out`` and ``--format``; ``threads``
    ``--threads``; ``particles`` refills the scene at about that many particles (``eddy bench``).
    ``name`` is the file name a dict scene is taken to have: messages name it ("NAME:LINE:COL: ..."),
    its relative file names (a probe's reference file) start from its folder, and ``info["name"]``
    is its stem where the scene has no "name" (default "scene.json"). A scene file is named by its
    path: a ``name`` with one is a ValueError.

    Lifetime: the session's memory (which the arrays of :meth:`field` view) is freed when the last
    reference to it goes: :meth:`close` drops the Simulation's, and every array holds its own, so an
    array stays valid after close() or after the Simulation is deleted.

    Threads: use a Simulation from one thread at a time; one steps at a time per process (the thread
    count and the stop flag are the process's, session.h).

    Processes: a child made by ``os.fork()`` (multiprocessing's fork start method) reads its copy of
    a Simulation, but stepping or writing it raises eddy.Error, and it holds none of the parent's
    output folders (docs/python.md, "Forked processes").
    """

    def __init__(self, scene: SceneLike, *, solver: Optional[str] = None, grid: Optional[str] = None,
                 set: Overrides = None, out: Optional[str] = None, formats: Optional[Sequence[str]] = None,
                 threads: int = 0, particles: int = 0, name: Optional[str] = None,
                 _core: Any = None) -> None:
        # Checked whatever the scene: name=5 was accepted, and a name given with a scene file did
        # nothing (a file is named by its path).
        name = _text(name, "name")
        if name is not None and _core is None and not isinstance(scene, Mapping):
            raise ValueError(f"name: only a dict scene takes a name (a scene file is named by its path), "
                             f"got name={name!r} with a scene file")
        if _core is not None:
            self._core = _core
        else:
            kw: Dict[str, Any] = dict(sets=_sets(set), solver=_text(solver, "solver"), grid=_text(grid, "grid"),
                                      out_dir=None if out is None else _path(out, "out"),
                                      formats=_formats(formats), threads=_threads(threads),
                                      particle_target=_whole(particles, "particles"))
            if isinstance(scene, Mapping):
                kw.update(scene_text=_scene_text(scene, "scene"), scene_name=name or "scene.json")
            else:
                kw.update(scene_path=_scene_path(scene, "scene"))
            try:
                self._core = _eddy.open(**kw)
            except Error as e:
                if isinstance(scene, Mapping):
                    _relative_note(e, name)
                raise
            # (valid, so that one scene serves every method, and ignored: `eddy run` warns of them too)
            for item in kw["sets"] or []:
                why = self._core.set_unused(item)
                if why is not None:
                    warnings.warn(f"set {item!r} has no effect on this simulation: {why}", stacklevel=2)
        self._probes = [Probe(p["name"], p["kind"], p["unit"],
                              None if p["reference"] is None else Reference(
                                  **{**p["reference"],
                                     "x": np.frombuffer(p["reference"]["x"], dtype="f8"),
                                     "y": np.frombuffer(p["reference"]["y"], dtype="f8")}))
                        for p in self._core.probes()]

    @classmethod
    def resume(cls, dir: Union[str, "os.PathLike[str]"], *, threads: int = 0) -> "Simulation":
        """The simulation a checkpoint folder continues (``eddy resume DIR``): the checkpoint's
        scene, solver, grid and state; frames continue in ``dir``. Its :meth:`run` takes ``steps``
        and ``until`` as totals from t = 0, as ``eddy resume --steps/--until`` does."""
        return cls(None, _core=_eddy.resume(_path(dir, "resume: dir"), threads=_threads(threads)))  # type: ignore[arg-type]

    # -- state ------------------------------------------------------------------------------------
    def _live(self):
        core = self._core
        if core is None:
            raise Error("the simulation is closed")
        return core

    def _state(self) -> Dict[str, Any]:
        return self._live().state()

    @property
    def time(self) -> float:
        """Simulated time, s."""
        return self._state()["time"]

    @property
    def steps(self) -> int:
        """Steps taken since t = 0."""
        return self._state()["step"]

    @property
    def next_frame(self) -> int:
        """Index of the next output frame, at next_frame * output_interval."""
        return self._state()["next_frame"]

    @property
    def count(self) -> int:
        """Particles (the length of every field array)."""
        return self._state()["count"]

    @property
    def info(self) -> Dict[str, Any]:
        """Solver and grid ids, scene name and file, output folder, dt, end time, output interval,
        simulation scale, thread count, the last step's dt and the limit that set it."""
        return self._state()

    @property
    def solver(self) -> str:
        return self._state()["solver"]

    @property
    def grid(self) -> str:
        return self._state()["grid"]

    @property
    def dimensions(self) -> int:
        return self._state()["dimensions"]

    @property
    def probes(self) -> List[Probe]:
        """The scene's probes, in the order of the record's columns."""
        return list(self._probes)

    # -- stepping ---------------------------------------------------------------------------------
    def step(self, n: int = 1) -> bool:
        """``n`` more steps from where the simulation is (unlike :meth:`run`'s total ``steps``), as
        ``eddy run`` takes them (landing exactly on every output time).
        Returns False when stopped early by a stop request. Raises UnstableError on an explosion
        and KeyboardInterrupt on Ctrl-C (after the step under way; the state stays consistent), or
        the exception of a Python signal handler, run at frames and about every 0.1 s as in
        :meth:`run`."""
        return self._live().step(_whole(n, "step: n"))

    def run(self, steps: Optional[int] = None, until: Optional[float] = None, *,
            on_frame: Optional[Callable[[int], Any]] = None, record: bool = True,
            write: bool = False) -> Record:
        """Steps to a total step count (``steps``: ``eddy run --steps N``, counted from t = 0, not
        from where the simulation is now), an absolute time (``until``: ``--until T``, s since t = 0)
        or the scene's time.end: the same stepping plan as the command. Both are totals, as the
        command's are on ``eddy resume``: for N *more* steps use ``run(steps=sim.steps + N)`` (or
        ``step(N)``, which records nothing), for T s more ``run(until=sim.time + T)``. A simulation
        that has stepped and is already at or past that end raises ValueError saying so and what
        total would go on (the frame-0 row of a simulation at step 0 is still recorded). At every
        output frame landed on, measures the diagnostics and probes (``record``),
        writes the frame, a diagnostics.csv row and a probes.csv row into the output folder (``write``:
        the scene's output.format writers; the first write deals with what the folder holds as
        ``eddy run`` does, or ``eddy resume`` for a resumed simulation: a stopped run there is refused
        with FileError, a finished one replaced whole, a resumed run's files continued), then calls
        ``on_frame(frame_index)``, which may read the arrays.
        A run that ends between frame times measures and writes its final state too, as one more
        frame numbered as the next regular one (what ``eddy run`` writes; no ``on_frame`` call).
        The GIL is released while stepping. Ctrl-C raises KeyboardInterrupt at a step boundary (a
        writing run, ``write=True``, first writes its checkpoint into its folder, as ``eddy run`` does);
        Python's other signal handlers run at every frame and about every 0.1 s between frames (in
        the main thread), and one that raises (an alarm's TimeoutError) stops the run there too. An
        exception that ends the run (an explosion, Ctrl-C, a signal handler's, the callback's) carries the frames
        recorded before it as ``e.record`` (a Record with ``completed`` False; after an explosion
        or Ctrl-C its last row is the state the run stopped at)."""
        if steps is not None and until is not None:
            raise ValueError("run: give steps or until, not both")
        end_steps = -1 if steps is None else _whole(steps, "run: steps")
        if steps is not None and end_steps < 0:
            raise ValueError(f"run: steps must be >= 0, got {steps}")
        end_time = math.nan if until is None else _time(until, "run: until")
        record, write = _flag(record, "run: record"), _flag(write, "run: write")
        names = [p.name for p in self._probes]
        try:
            completed, _, rows, width = self._live().run(end_steps=end_steps, end_time=end_time,
                                                         on_frame=on_frame, record=record, write=write)
        except BaseException as e:
            # The frames measured before an explosion, Ctrl-C or the callback's exception: e.record.
            if getattr(e, "_eddy_rows", None) is not None:
                e.record = _record(e._eddy_rows, e._eddy_width, names, False)  # type: ignore[attr-defined]
            raise
        return _record(rows, width, names, completed)

    # -- particles --------------------------------------------------------------------------------
    @property
    def fields(self) -> Dict[str, int]:
        """Field name -> component count, built-in (position, velocity, density, pressure, mass)
        and registered by the solver or grid."""
        return dict(self._live().fields())

    def field(self, name: str, writable: bool = False) -> np.ndarray:
        """A view of the field's memory, without a copy: float32, shape (count,) for a scalar or
        (count, components) for a vector (in 2D position and velocity keep z = 0), in *storage*
        order, which the grid's sort changes every step: pair it with :attr:`ids` from the same
        moment, or use :meth:`by_id`. Read-only unless ``writable``; writes are allowed between
        steps (the next step sees them). The array keeps the session's memory alive.

        Values are in *simulation units*, as the core stores them, not the world units of the
        scene's geometry and of the written frames: "position" is world m * s and "velocity" world
        m/s * s, where s = ``info["simulation_scale"]`` (``world.simulation_scale``, default 1), so
        ``field("position") / s`` is what the .vtp/.csv frames and the probes show; "density"
        (kg/m^3), "pressure" (Pa) and the solver's fields are in simulation units as written in the
        frames too; "mass" is kg (kg/m per unit depth in 2D). Writes take the same units."""
        return self._live().field(_name(name, "field: name"), _flag(writable, "field: writable"))

    @property
    def ids(self) -> np.ndarray:
        """Particle ids (uint64), a read-only view in storage order."""
        return self._live().ids()

    @property
    def materials(self) -> np.ndarray:
        """Material indices (uint32), a read-only view in storage order."""
        return self._live().materials()

    def by_id(self, name: str) -> np.ndarray:
        """A copy of the field with the owned particles in increasing id order (the order of the
        frames the writers write and of the state hash); stable across steps. Simulation units, as
        :meth:`field` (position and velocity / ``info["simulation_scale"]`` are the frames')."""
        name = _name(name, "by_id: name")
        core = self._live()
        return core.field(name, False)[core.order()]

    # -- measurements and output ------------------------------------------------------------------
    def measure(self, write: bool = False) -> Record:
        """The diagnostics and probes of the current state (one row each); ``write`` also writes it
        as a frame, numbered as ``eddy run`` numbers its final frame: the last frame landed on when
        the state is at that frame's time, else the next regular frame."""
        return _record(self._live().measure(_flag(write, "measure: write")), _FIXED + len(self._probes),
                       [p.name for p in self._probes])

    def diagnostics(self) -> np.ndarray:
        """The current state's diagnostics as a one-row structured array (see :class:`Record`)."""
        return self.measure().diagnostics

    def write_frame(self) -> None:
        """Writes the current state with the scene's writers into the output folder, with its
        diagnostics.csv and probes.csv rows (the folder dealt with as in :meth:`run`)."""
        self._live().measure(True)

    def hash(self) -> int:
        """The state hash ``eddy run --hash`` prints (``f"{h:016x}"``): ids, fields and clock."""
        return self._live().hash()

    def checkpoint(self, dir: Optional[Union[str, "os.PathLike[str]"]] = None) -> str:
        """Writes DIR/checkpoint.eddy (default: the output folder), which ``eddy resume DIR`` and
        :meth:`Simulation.resume` continue to the scene's time.end. Returns DIR. A refused call
        leaves no folder it made behind."""
        path = _path(dir, "checkpoint: dir") if dir is not None else None
        if path == "":   # os.mkdir('') said "No such file or directory: ''"
            raise ValueError("checkpoint: dir is empty (give the folder to write checkpoint.eddy into)")
        core = self._live()
        d: str = path if path is not None else core.state()["out_dir"]
        try:
            made = _make_dirs(d)
        except OSError as e:
            # "FileExistsError: [Errno 17] File exists" for a file where the folder goes
            if os.path.exists(d) and not os.path.isdir(d):
                raise FileError(f"checkpoint: '{d}' is not a folder (give the folder to write "
                                f"checkpoint.eddy into)") from e
            raise FileError(f"checkpoint: cannot make the folder '{d}': {e.strerror or e}") from e
        try:
            core.checkpoint(d)
        except BaseException:
            # A refused checkpoint (a forked child, a simulation stepping in another thread, a folder
            # another run holds) leaves no new folder behind.
            _remove_dirs(made)
            raise
        return d

    def __reduce__(self) -> Any:
        # pickle's own refusal named the extension's Core, not what to do instead.
        raise TypeError("a Simulation cannot be pickled (its state lives in eddy's memory, with open "
                        "files and a folder lock): send the scene and settings to the worker and open a "
                        "Simulation there, or checkpoint() here and resume() there")

    def close(self) -> None:
        """Closes the output files, lets the output folder go (another run may write into it now) and
        drops the Simulation's reference to the session (arrays still viewing it keep it alive).
        Idempotent. Refused (eddy.Error) while the simulation steps: from another thread, or from the
        on_frame callback of its own run."""
        if self._core is not None:
            self._core.close_output()
            self._core = None

    def __del__(self) -> None:
        # A Simulation dropped without close() closes its files and lets its output folder go, as
        # close() does: an array that still views the session keeps only the memory alive.
        core = getattr(self, "_core", None)
        if core is not None:
            try:
                core.close_output()
            except Exception:
                pass

    def __enter__(self) -> "Simulation":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __repr__(self) -> str:
        if self._core is None:
            return "<eddy.Simulation (closed)>"
        s = self._state()
        return (f"<eddy.Simulation {s['name']!r} solver={s['solver']!r} grid={s['grid']!r} "
                f"particles={s['count']} t={s['time']:.6g} s step={s['step']}>")


# --------------------------------------------------------------------------------------------------
# compare
# --------------------------------------------------------------------------------------------------

def compare(scene: SceneLike, solvers: Sequence[str], *, out: Optional[str] = None,
            steps: Optional[int] = None, until: Optional[float] = None, set: Overrides = None,
            grid: Optional[str] = None, threads: int = 0, name: Optional[str] = None) -> np.ndarray:
    """``eddy compare``: the scene through every solver with the same stepping and measurements;
    writes OUT (default out/compare/<scene file stem>) as the command does and returns its summary
    table (summary.csv) as a structured array, one row per solver (the report, summary.md, is written,
    not printed): solver, status, end_time, steps,
    particles, density_error_mean/max, kinetic_energy_end, momentum_drift, ms_per_step,
    particle_steps_per_s, density_compression_max, total_energy_change(_relative),
    total_energy_rise_max(_relative), each probe's final value (NaN for a pressure probe of a solver
    without a pressure field), <probe>_reference_rms, error (docs/compare.md). A solver that fails
    as it runs is a row with status "failed" and its error; one whose run ended but made energy (the
    rule `eddy run` warns by: an unstable run, warned of on stderr) "made energy"; the others "ok"
    (or "interrupted", "not run"). A scene that cannot be loaded, an unknown
    solver or grid, or a bad value for a listed solver's parameter raises before any solver runs, as the
    command refuses them. An override none of the solvers reads gives a UserWarning, as the command
    warns. A dict scene is taken as :class:`Simulation` takes one, ``name`` the file name its messages
    and relative file names go by (default out: out/compare/<its "name", else the name's stem>)."""
    name = _text(name, "compare: name")
    if isinstance(scene, Mapping):
        scene_text, scene_path = _scene_text(scene, "compare: scene"), None
        scene_name = name or "scene.json"
        # (the scene's name is checked only when the scene is parsed: one with a "/" or ".." must not
        # put the default folder outside out/compare)
        given = os.path.basename(scene["name"]) if isinstance(scene.get("name"), str) else ""
        stem = given if given not in ("", ".", "..") else os.path.basename(scene_name)
    else:
        if name is not None:
            raise ValueError(f"compare: name: only a dict scene takes a name (a scene file is named by its "
                             f"path), got name={name!r} with a scene file")
        scene_text, scene_name = None, None
        scene = scene_path = _scene_path(scene, "compare: scene")
        stem = os.path.basename(scene_path)
    if isinstance(solvers, str):
        raise TypeError(f"compare: solvers must be a list of solver ids, got the string {solvers!r} "
                        f"(for one solver: [{solvers!r}])")
    if not _iterable(solvers):
        raise TypeError(f"compare: solvers must be a list of solver ids, got {type(solvers).__name__}")
    solvers = list(solvers)
    for s in solvers:
        if not isinstance(s, str):
            raise TypeError(f"compare: solvers must be a list of solver ids (str), got {type(s).__name__} {s!r}")
        if "\0" in s:   # (the first id was named as Simulation's `solver`)
            raise ValueError(f"compare: solvers: embedded null character in {s!r}")
        _utf8(s, "compare: solvers")
        if solvers.count(s) > 1:   # (as the command refuses it: the two would share one folder)
            raise ValueError(f"compare: solvers lists {s!r} twice")
    if steps is not None and until is not None:
        raise ValueError("compare: give steps or until, not both")
    threads = _threads(threads)
    if steps is not None and _whole(steps, "compare: steps") < 0:
        raise ValueError(f"compare: steps must be >= 0, got {steps}")
    grid = _text(grid, "compare: grid")
    # Read once: an iterator given as `set` was used up by the scene check below, and the comparison
    # ran without the overrides.
    sets = _sets(set)
    if out is None:
        out = os.path.join("out", "compare", stem[:-5] if stem.endswith(".json") else stem)
    out = _path(out, "compare: out")
    if not out:
        raise ValueError("compare: out is empty (give the folder of the report)")
    # The scene is opened first, so that its error is an exception with the core's message; a
    # component the solver or grid lacks is left to the comparison, which refuses it before any run.
    # Quietly, as the comparison itself runs: its first solver's information lines are not the user's.
    # Its overrides are not all the first solver's: a setting of the second is no mistake here. Those
    # that no compared solver reads are warned of after, as `eddy compare` warns (which says nothing,
    # quiet as the comparison runs here): by the command's rule, with every solver.
    was_quiet = _eddy.set_quiet(True)
    unused = []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            sim = Simulation(scene, set=sets, grid=grid, formats=[], solver=solvers[0] if solvers else None,
                             threads=threads, name=name if scene_text is not None else None)
        try:
            for item in sets:
                why = sim._core.set_unused(item, solvers)
                if why is not None:
                    unused.append((item, why))
        finally:
            sim.close()
    except (NotFoundError, PluginError):
        pass
    finally:
        _eddy.set_quiet(was_quiet)
    for item, why in unused:
        warnings.warn(f"set {item!r} has no effect on this comparison: {why}", stacklevel=2)
    summary = os.path.join(out, "summary.csv")
    # The summary an earlier comparison left is told from this one's by its file, which every write
    # replaces (a new file renamed over it): removing it here, before the comparison holds the folder,
    # removed the summary of a comparison still writing there.
    def identity(path: str) -> Optional[Tuple[int, int]]:
        try:
            st = os.stat(path)
        except OSError:
            return None
        return (st.st_dev, st.st_ino)
    before = identity(summary)
    try:
        _eddy.compare(scene_path, list(solvers), out, steps=-1 if steps is None else _whole(steps, "compare: steps"),
                      until=math.nan if until is None else _time(until, "compare: until"), sets=sets, grid=grid,
                      threads=threads, scene_text=scene_text, scene_name=scene_name)
    except Error as e:
        if scene_text is not None:
            _relative_note(e, name)
        raise
    if identity(summary) in (None, before):
        raise FileError(f"compare: '{summary}' was not written")
    with open(summary, newline="") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    text = {"solver", "status", "error"}
    # As wide as the longest value: a fixed U256 cut a long error message (one naming a deep path) short.
    width = {h: max([1] + [len(r[i]) for r in body if i < len(r)]) for i, h in enumerate(header)}
    dtype = [(h, f"U{width[h]}" if h in text else "f8") for h in header]
    table = np.zeros(len(body), dtype=dtype)
    for i, r in enumerate(body):
        for h, v in zip(header, r):
            table[i][h] = v if h in text else (float(v) if v not in ("", "nan") else math.nan)
    return table


# The run-folder reader lives in its own module; imported here, after the helpers it uses.
from ._runfolder import FrameData, FrameEntry, RunFolder, read_frame, read_run  # noqa: E402
