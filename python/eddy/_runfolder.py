"""Reading the output folder of a run (``eddy run``, ``eddy resume`` or a Simulation's ``run(write=True)``):
its tables, run.json and frames in either written format, as NumPy arrays (docs/python.md, "Reading a
run's folder"). Pure Python and NumPy: it reads the files, not the run."""
from __future__ import annotations

import base64
import binascii
import io
import json
import os
import re
import xml.etree.ElementTree as ET
from typing import Any, Dict, List, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

# (imported at the end of the package's __init__, after the argument helpers it shares)
from . import _path, _scalar
from ._eddy import FileError

# --------------------------------------------------------------------------------------------------
# Reading a run's output folder
# --------------------------------------------------------------------------------------------------

class FrameEntry(NamedTuple):
    """One frame of a run's folder: ``time`` (s) and ``step`` as the frame file says them (a .vtp's or
    .pvtp's TimeValue and step, the exact double), else as diagnostics.csv's row of the frame (a .csv
    frame, which holds no clock: 12 digits) or frames.pvd's entry, None where none says; ``path`` its
    file (.vtp, .pvtp over pieces, or .csv); ``index`` the NNNNN of frames/frame_NNNNN."""
    time: Optional[float]
    step: Optional[int]
    path: str
    index: int


class FrameData(dict):
    """A frame's particles, a dict of NumPy arrays in increasing id order: ``id`` (uint64), ``material``
    (uint32), ``position`` and ``velocity`` (float32, shape (n, 3), world units as written; z = 0 in
    2D), ``density``, ``pressure`` (float32) and the solver's fields (shape (n,) or (n, components)),
    with ``time``, ``step`` and ``path`` as attributes (time and step None for a .csv read alone)."""
    time: Optional[float] = None
    step: Optional[int] = None
    path: str = ""


_FRAME_CSV_HEAD = ["id", "x", "y", "z", "vx", "vy", "vz", "density", "pressure", "material"]
_VTK_TYPES = {"Int8": "i1", "UInt8": "u1", "Int16": "i2", "UInt16": "u2", "Int32": "i4", "UInt32": "u4",
              "Int64": "i8", "UInt64": "u8", "Float32": "f4", "Float64": "f8"}
_FRAME_NAME = re.compile(r"frame_(\d{5,})\.(vtp|pvtp|csv)\Z")


def _read_bytes(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError as e:
        raise FileError(f"cannot read '{path}': {e.strerror or e}") from e


def _whole_text(path: str) -> str:
    """The text of a file eddy writes line by line; FileError where it is not UTF-8 or ends inside a
    line (every line eddy writes ends with a newline, so a last line without one was cut short: its
    last number may read as another, 0.0123 for 0.01234567)."""
    data = _read_bytes(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise FileError(f"'{path}' is not text (byte {e.start} is not UTF-8): not a file eddy wrote") from None
    if text and not text.endswith("\n"):
        raise FileError(f"'{path}' ends in the middle of line {text.count(chr(10)) + 1} (a file cut short?)")
    return text


def _read_table(path: str, ints: Sequence[str], required: Sequence[str]) -> np.ndarray:
    """diagnostics.csv or probes.csv as a structured array, a column per header name: ``ints`` int64,
    the others float64."""
    lines = _whole_text(path).split("\n")[:-1]
    if not lines:
        raise FileError(f"'{path}' is empty (no header line)")
    header = lines[0].split(",")
    if len(set(header)) != len(header) or not all(header):
        raise FileError(f"'{path}' line 1: expected a header of distinct column names, got '{lines[0]}'")
    missing = [c for c in required if c not in header]
    if missing:
        raise FileError(f"'{path}' line 1: no column {', '.join(repr(c) for c in missing)} in its header "
                        f"'{lines[0]}' (not a table eddy wrote?)")
    columns: List[List[Any]] = [[] for _ in header]
    for r, line in enumerate(lines[1:]):
        values = line.split(",")
        if len(values) != len(header):
            raise FileError(f"'{path}' line {r + 2}: expected {len(header)} values (the header's columns), "
                            f"got {len(values)}")
        for h, v, col in zip(header, values, columns):
            try:
                col.append(int(v) if h in ints else float(v))
            except ValueError:
                what = "a whole number" if h in ints else "a number"
                raise FileError(f"'{path}' line {r + 2}, column '{h}': expected {what}, got '{v}'") from None
    table = np.zeros(len(lines) - 1, dtype=[(h, "i8" if h in ints else "f8") for h in header])
    for h, col in zip(header, columns):
        table[h] = col
    return table


def _xml_root(path: str) -> Any:
    try:
        return ET.fromstring(_read_bytes(path))
    except ET.ParseError as e:
        raise FileError(f"'{path}' is not whole XML ({e}; a file cut short?)") from None


def _vtk_array(path: str, el: Any, count: int, order: str, header: str) -> np.ndarray:
    """One DataArray of `count` tuples: inline binary as eddy writes it (two base64 blocks, the
    byte count and then the data, VTK's layout; one block over both is read too) or ascii."""
    name = el.get("Name", "")
    kind = el.get("type", "")
    if kind not in _VTK_TYPES:
        raise FileError(f"'{path}': DataArray '{name}' has type '{kind}', expected one of {', '.join(_VTK_TYPES)}")
    dtype = np.dtype(_VTK_TYPES[kind]).newbyteorder(order)
    try:
        comps = int(el.get("NumberOfComponents", "1"))
    except ValueError:
        comps = 0
    if comps < 1:
        raise FileError(f"'{path}': DataArray '{name}' has NumberOfComponents "
                        f"'{el.get('NumberOfComponents')}', expected a whole number >= 1")
    fmt = el.get("format", "")
    text = "".join((el.text or "").split())
    if fmt == "binary":
        hsize = np.dtype(header).itemsize
        hchars = 4 * ((hsize + 2) // 3)
        try:
            # Encoded apart, the byte count ends in padding: neither 4 nor 8 bytes fill base64's 3-byte groups.
            if len(text) >= hchars and text[hchars - 1] == "=":
                head, data = base64.b64decode(text[:hchars], validate=True), base64.b64decode(text[hchars:], validate=True)
            else:
                whole = base64.b64decode(text, validate=True)
                head, data = whole[:hsize], whole[hsize:]
        except (binascii.Error, ValueError) as e:
            raise FileError(f"'{path}': DataArray '{name}' is not valid base64 ({e})") from None
        if len(head) != hsize:
            raise FileError(f"'{path}': DataArray '{name}' has no byte count (its data is empty)")
        said = int(np.frombuffer(head, dtype=np.dtype(header).newbyteorder(order))[0])
        if said != len(data):
            raise FileError(f"'{path}': DataArray '{name}' says it holds {said} bytes but holds {len(data)} "
                            f"(a file cut short or edited?)")
        a = np.frombuffer(data, dtype=dtype)
    elif fmt == "ascii":
        try:
            a = np.array((el.text or "").split(), dtype=dtype)
        except (ValueError, OverflowError) as e:
            raise FileError(f"'{path}': DataArray '{name}': {e}") from None
    else:
        raise FileError(f"'{path}': DataArray '{name}' has format '{fmt}', expected binary or ascii "
                        f"(eddy writes binary)")
    if a.size != count * comps:
        raise FileError(f"'{path}': DataArray '{name}' holds {a.size} values, expected {count} points x "
                        f"{comps} component{'s' if comps > 1 else ''} = {count * comps}")
    a = a.astype(dtype.newbyteorder("="))
    return a.reshape(count, comps) if comps > 1 else a


def _clock(path: str, root: Any, where: str, order: str, header: str) -> Tuple[Optional[float], Optional[int]]:
    time = step = None
    for el in root.findall(f"{where}/FieldData/DataArray"):
        if el.get("Name") in ("TimeValue", "step"):
            try:
                tuples = int(el.get("NumberOfTuples", "1"))
            except ValueError:
                raise FileError(f"'{path}': DataArray '{el.get('Name')}' has NumberOfTuples "
                                f"'{el.get('NumberOfTuples')}', expected a whole number") from None
            v = _vtk_array(path, el, tuples, order, header)
            if v.size:
                if el.get("Name") == "TimeValue":
                    time = float(v[0])
                else:
                    step = int(v[0])
    return time, step


def _vtk_layout(path: str, root: Any, kind: str) -> Tuple[str, str]:
    if root.tag != "VTKFile" or root.get("type") != kind:
        raise FileError(f"'{path}' is not a VTK {kind} file (its root is <{root.tag} type=\"{root.get('type')}\">)")
    if root.get("compressor"):
        raise FileError(f"'{path}' is compressed ({root.get('compressor')}), which this reader does not read "
                        f"(eddy writes uncompressed frames)")
    order = {"LittleEndian": "<", "BigEndian": ">"}.get(root.get("byte_order", "LittleEndian"))
    header = {"UInt32": "u4", "UInt64": "u8"}.get(root.get("header_type", "UInt32"))
    if order is None or header is None:
        raise FileError(f"'{path}' has byte_order '{root.get('byte_order')}' and header_type "
                        f"'{root.get('header_type')}': expected LittleEndian or BigEndian, UInt32 or UInt64")
    return order, header


def _in_id_order(path: str, arrays: Dict[str, np.ndarray]) -> FrameData:
    """The arrays in increasing id order (eddy writes them so, pieces each so), in one key order
    whatever the file: id, material, position, velocity, density, pressure, then the solver's."""
    if "id" not in arrays:
        raise FileError(f"'{path}' has no 'id' array (not a frame eddy wrote?)")
    ids = arrays["id"].astype(np.uint64)
    order = None if ids.size < 2 or bool(np.all(ids[1:] > ids[:-1])) else np.argsort(ids, kind="stable")
    out = FrameData()
    first = ["id", "material", "position", "velocity", "density", "pressure"]
    for k in first + [k for k in arrays if k not in first]:
        if k in arrays:
            a = ids if k == "id" else arrays[k]
            out[k] = a if order is None else a[order]
    out.path = path
    return out


def _read_vtp(path: str) -> FrameData:
    root = _xml_root(path)
    order, header = _vtk_layout(path, root, "PolyData")
    pieces = root.findall("PolyData/Piece")
    if not pieces:
        raise FileError(f"'{path}' holds no <Piece> (not a frame eddy wrote?)")
    parts: List[Dict[str, np.ndarray]] = []
    for piece in pieces:
        try:
            n = int(piece.get("NumberOfPoints", ""))
        except ValueError:
            n = -1
        if n < 0:
            raise FileError(f"'{path}': <Piece> has NumberOfPoints '{piece.get('NumberOfPoints')}', expected a whole number")
        arrays: Dict[str, np.ndarray] = {}
        for el in piece.findall("PointData/DataArray"):
            arrays[el.get("Name", "")] = _vtk_array(path, el, n, order, header)
        for el in piece.findall("Points/DataArray"):
            arrays["position"] = _vtk_array(path, el, n, order, header)
        parts.append(arrays)
    names = list(parts[0])
    for p in parts[1:]:
        if list(p) != names:
            raise FileError(f"'{path}': its pieces hold different arrays ({', '.join(names)} and {', '.join(p)})")
    out = _in_id_order(path, {k: np.concatenate([p[k] for p in parts]) for k in names})
    out.time, out.step = _clock(path, root, "PolyData", order, header)
    return out


def _read_pvtp(path: str) -> FrameData:
    root = _xml_root(path)
    order, header = _vtk_layout(path, root, "PPolyData")
    sources = [p.get("Source", "") for p in root.findall("PPolyData/Piece")]
    if not sources or not all(sources):
        raise FileError(f"'{path}' names no pieces (<Piece Source=...>): not a frame eddy wrote?")
    declared = [el.get("Name", "") for el in root.findall("PPolyData/PPointData/PDataArray")]
    parts = []
    for s in sources:
        piece = s if os.path.isabs(s) else os.path.join(os.path.dirname(path), s)
        if not os.path.isfile(piece):
            raise FileError(f"'{path}': its piece '{piece}' is missing")
        part = _read_vtp(piece)
        lacking = [k for k in declared if k not in part]
        if lacking or "position" not in part:
            raise FileError(f"'{piece}' lacks the array{'s' if len(lacking) > 1 else ''} "
                            f"{', '.join(lacking or ['position'])} that '{path}' declares")
        parts.append(part)
    names = [k for k in parts[0] if all(k in p for p in parts)]
    out = _in_id_order(path, {k: np.concatenate([p[k] for p in parts]) for k in names})
    out.time, out.step = _clock(path, root, "PPolyData", order, header)
    return out


def _read_frame_csv(path: str) -> FrameData:
    text = _whole_text(path)
    head, _, body = text.partition("\n")
    cols = head.split(",")
    if cols[:len(_FRAME_CSV_HEAD)] != _FRAME_CSV_HEAD:
        raise FileError(f"'{path}' line 1: expected a header beginning '{','.join(_FRAME_CSV_HEAD)}' (a frame "
                        f"eddy wrote), got '{head[:200]}'")
    dtype = [(f"c{i}", "u8" if c == "id" else "u4" if c == "material" else "f4") for i, c in enumerate(cols)]
    rows = body.count("\n")
    if rows == 0:
        t = np.zeros(0, dtype=dtype)
    else:
        try:
            t = np.loadtxt(io.StringIO(body), delimiter=",", dtype=dtype, ndmin=1, comments=None)
        except ValueError as e:
            # The first line that is wrong, in words a reader can act on (loadtxt says "row" from 0).
            for r, line in enumerate(body.split("\n")[:-1]):
                values = line.split(",")
                if len(values) != len(cols):
                    raise FileError(f"'{path}' line {r + 2}: expected {len(cols)} values (the header's "
                                    f"columns), got {len(values)}") from None
                for c, v in zip(cols, values):
                    try:
                        int(v) if c in ("id", "material") else float(v)
                    except ValueError:
                        what = "a whole number" if c in ("id", "material") else "a number"
                        raise FileError(f"'{path}' line {r + 2}, column '{c}': expected {what}, got '{v}'") from None
            raise FileError(f"'{path}': {e}") from None
    col = {c: t[f"c{i}"] for i, c in enumerate(cols)}
    arrays: Dict[str, np.ndarray] = {
        "id": col["id"], "material": col["material"],
        "position": np.stack([col["x"], col["y"], col["z"]], axis=1),
        "velocity": np.stack([col["vx"], col["vy"], col["vz"]], axis=1),
        "density": col["density"], "pressure": col["pressure"],
    }
    # The solver's fields as the writer names their columns (csv_field_header): NAME for a scalar,
    # NAME_x/_y/_z for 3 components, NAME_0.._k-1 for k others.
    rest, i = cols[len(_FRAME_CSV_HEAD):], 0
    while i < len(rest):
        c = rest[i]
        base = c[:-2]
        if c.endswith("_x") and rest[i + 1:i + 3] == [base + "_y", base + "_z"]:
            arrays[base] = np.stack([col[base + s] for s in ("_x", "_y", "_z")], axis=1)
            i += 3
        elif c.endswith("_0"):
            k = 0
            while i + k < len(rest) and rest[i + k] == f"{base}_{k}":
                k += 1
            arrays[base] = np.stack([col[f"{base}_{j}"] for j in range(k)], axis=1)
            i += k
        else:
            arrays[c] = col[c]
            i += 1
    return _in_id_order(path, arrays)


def read_frame(path: Union[str, "os.PathLike[str]"]) -> FrameData:
    """One frame file as ``eddy run`` writes it, by its extension: ``.vtp`` (VTK XML PolyData, inline
    base64 binary), ``.pvtp`` (the pieces of a run on several processes, combined in id order) or
    ``.csv``; a :class:`FrameData`. A file that is not whole or not eddy's is an eddy.FileError naming
    it and what is wrong."""
    p = _path(path, "read_frame: path")
    ext = os.path.splitext(p)[1]
    readers = {".vtp": _read_vtp, ".pvtp": _read_pvtp, ".csv": _read_frame_csv}
    if ext not in readers:
        raise ValueError(f"read_frame: '{p}' is not a frame file (expected .vtp, .pvtp or .csv)")
    return readers[ext](p)


def _file_clock(path: str) -> Tuple[Optional[float], Optional[int]]:
    """A .vtp's or .pvtp's TimeValue and step from its first lines (write_clock puts them there),
    without reading its arrays; (None, None) where it has none."""
    try:
        with open(path, "rb") as f:
            head = f.read(4096).decode("utf-8", "replace")
    except OSError:
        return None, None
    t = re.search(r'Name="TimeValue"[^>]*>\s*([^<\s]+)\s*<', head)
    s = re.search(r'Name="step"[^>]*>\s*(\d+)\s*<', head)
    try:
        return (float(t.group(1)) if t else None), (int(s.group(1)) if s else None)
    except ValueError:
        return None, None


class RunFolder:
    """An ``eddy run`` (or ``run(write=True)``) output folder, read by :func:`read_run`.

    ``diagnostics``, ``probes``: diagnostics.csv and probes.csv as structured arrays, a column per
    header name, as written (``step`` and ``particles`` int64, the others float64; 12 significant
    digits); ``probes`` is None when the run had no probes. ``run``: run.json as a dict (None where
    there is none). ``frames``: a :class:`FrameEntry` per frame, in order, from frames.pvd, else
    from the frames/ folder. ``frame(i)``: the particles of ``frames[i]``."""

    def __init__(self, path: str) -> None:
        self.path = path
        files = {f: os.path.join(path, f) for f in ("run.json", "diagnostics.csv", "probes.csv", "frames.pvd")}
        has = {f: os.path.isfile(p) for f, p in files.items()}
        self.run: Optional[Dict[str, Any]] = None
        if has["run.json"]:
            try:
                self.run = json.loads(_whole_text(files["run.json"]))
            except json.JSONDecodeError as e:
                raise FileError(f"'{files['run.json']}' is not valid JSON ({e}; a file cut short?)") from None
            fmt = self.run.get("format") if isinstance(self.run, dict) else None
            if not (isinstance(fmt, str) and fmt.startswith("eddy.run/")):
                raise FileError(f"'{files['run.json']}' is not an eddy run record (its \"format\" is {fmt!r}, "
                                f"expected 'eddy.run/1')")
        self.diagnostics: Optional[np.ndarray] = (
            _read_table(files["diagnostics.csv"], ("step", "particles"), ("time", "step"))
            if has["diagnostics.csv"] else None)
        self.probes: Optional[np.ndarray] = (
            _read_table(files["probes.csv"], ("step",), ("time", "step")) if has["probes.csv"] else None)
        self.frames: List[FrameEntry] = self._pvd(files["frames.pvd"]) if has["frames.pvd"] else self._scan()

    def _row(self, index: int) -> Tuple[Optional[float], Optional[int]]:
        # diagnostics.csv has a row per frame, in order: frame_00000's is the first (README).
        d = self.diagnostics
        if d is None or index >= len(d):
            return None, None
        return float(d["time"][index]), int(d["step"][index])

    def _pvd(self, pvd: str) -> List[FrameEntry]:
        root = _xml_root(pvd)
        if root.tag != "VTKFile" or root.get("type") != "Collection":
            raise FileError(f"'{pvd}' is not a VTK Collection (its root is <{root.tag} type=\"{root.get('type')}\">)")
        out = []
        for k, ds in enumerate(root.findall("Collection/DataSet")):
            file, ts = ds.get("file"), ds.get("timestep")
            try:
                listed = float(ts) if ts is not None else None
            except ValueError:
                listed = None
            if not file or listed is None:
                raise FileError(f"'{pvd}': DataSet {k} has file={file!r} and timestep={ts!r}: expected a "
                                f"file name and a time")
            p = os.path.join(self.path, file)
            m = _FRAME_NAME.search(file)
            index = int(m.group(1)) if m else k
            time, step = _file_clock(p)
            if step is None:
                step = self._row(index)[1]
            out.append(FrameEntry(listed if time is None else time, step, p, index))
        return out

    def _scan(self) -> List[FrameEntry]:
        d = os.path.join(self.path, "frames")
        found: Dict[int, Dict[str, str]] = {}
        if os.path.isdir(d):
            for name in os.listdir(d):
                m = _FRAME_NAME.match(name)
                if m:
                    found.setdefault(int(m.group(1)), {})[m.group(2)] = os.path.join(d, name)
        out = []
        for index in sorted(found):
            kinds = found[index]
            vtk = [kinds[k] for k in ("vtp", "pvtp") if k in kinds]
            # Both kinds of one index (a run resumed on another process count): the newer, as eddy
            # resume takes it (writers_builtin.c, frame_from_disk).
            p = max(vtk, key=lambda f: os.stat(f).st_mtime_ns) if vtk else kinds["csv"]
            time, step = _file_clock(p) if vtk else (None, None)
            if time is None or step is None:
                time, step = self._row(index)
            out.append(FrameEntry(time, step, p, index))
        return out

    def frame(self, i: int, format: Optional[str] = None) -> FrameData:
        """The particles of ``frames[i]`` (a negative ``i`` counts from the end) as :func:`read_frame`
        reads them, with its ``time`` and ``step``; ``format`` "vtk" or "csv" picks the file of that
        writer where the run wrote both (``--format vtk,csv``), None the one ``frames`` lists."""
        i = _scalar(i)
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
            raise TypeError(f"frame: i must be a whole number (a position in .frames), got {type(i).__name__}")
        n = len(self.frames)
        if not -n <= i < n:
            have = f"{n} frames (0 to {n - 1})" if n > 1 else "1 frame (0)" if n else "no frames"
            raise IndexError(f"frame: no frame {int(i)} in '{self.path}': it has {have}")
        if format not in (None, "vtk", "csv"):
            raise ValueError(f"frame: format must be None, 'vtk' or 'csv', got {format!r}")
        e = self.frames[int(i)]
        p = e.path
        if format is not None and (p.endswith(".csv") != (format == "csv")):
            stem = p[:p.rfind(".")]
            others = [stem + x for x in ((".csv",) if format == "csv" else (".vtp", ".pvtp"))]
            have = [x for x in others if os.path.isfile(x)]
            if not have:
                raise FileError(f"frame {int(i)}: no {' or '.join(repr(x) for x in others)} (the run wrote "
                                f"this frame as '{p}')")
            p = have[0]
        if not os.path.isfile(p):
            raise FileError(f"frame {int(i)}: '{p}' is missing (the run's list of frames names it)")
        out = read_frame(p)
        if out.time is None:
            out.time = e.time
        if out.step is None:
            out.step = e.step
        return out

    @property
    def particle_mass(self) -> Optional[np.ndarray]:
        """Each material's particle mass (kg; kg/m in 2D) as run.json records it (the last command's):
        ``run.particle_mass[frame["material"]]`` is every particle's (frames do not hold the mass).
        None where run.json does not say it."""
        try:
            mats = self.run["commands"][-1]["materials"]  # type: ignore[index]
            return np.array([m["particle_mass"] for m in mats], dtype="f8")
        except (KeyError, IndexError, TypeError):
            return None

    def __len__(self) -> int:
        return len(self.frames)

    def __repr__(self) -> str:
        probes = ", ".join(self.probes.dtype.names[2:]) if self.probes is not None else "none"
        rows = "no" if self.diagnostics is None else len(self.diagnostics)
        return f"<eddy.RunFolder {self.path!r}: {len(self.frames)} frames, {rows} diagnostics rows, probes: {probes}>"


def read_run(dir: Union[str, "os.PathLike[str]"]) -> RunFolder:
    """The output folder of ``eddy run`` / ``eddy resume`` (or of a Simulation's ``run(write=True)``)
    as a :class:`RunFolder`: its tables as structured arrays, run.json, the list of frames and each
    frame's particles. Pure Python and NumPy. A folder that holds no run, or a file that is not whole,
    is an eddy.FileError naming it and what is wrong."""
    d = _path(dir, "read_run: dir")
    if not os.path.exists(d):
        raise FileError(f"read_run: there is no folder '{d}'")
    if not os.path.isdir(d):
        raise FileError(f"read_run: '{d}' is not a folder (give the folder of a run: its --out, or the "
                        f"scene's output.dir)")
    if not any(os.path.isfile(os.path.join(d, f)) for f in ("run.json", "diagnostics.csv", "frames.pvd")):
        hint = ""
        if os.path.isfile(os.path.join(d, "summary.csv")):
            solvers = sorted(s for s in os.listdir(d) if os.path.isfile(os.path.join(d, s, "diagnostics.csv")))
            hint = (f"; it is an eddy compare folder: read one solver's run, "
                    f"{', '.join(repr(os.path.join(d, s)) for s in solvers) or 'in its subfolders'}")
        raise FileError(f"read_run: '{d}' is not a run's folder: it holds none of run.json, diagnostics.csv, "
                        f"frames.pvd{hint or ' (give the folder of a run: its --out, or the scene' + chr(39) + 's output.dir)'}")
    return RunFolder(d)
