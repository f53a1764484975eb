"""vito from Python: robot trajectory optimization with Galerkin variational integrators.

The same library as the ``vito`` command line (a URDF robot and a YAML motion problem in, an
optimized trajectory out), called in-process:

>>> import vito
>>> p = vito.Problem.from_file("problems/pendulum_swingup_2.yaml")
>>> p.set("costs.effort", 2.0)            # any field of the YAML, as a plain dict
>>> r = vito.solve(p)                      # what `vito solve` does, without writing files
>>> r.status, r.objective, r.q.shape
('Converged', ..., (601, 2))

Problems are read and validated by vito's own loaders (``load_problem_str``), solved by the
code behind ``vito solve`` / ``vito compare`` / ``vito simulate`` (``vito::commands``) with the
interpreter released, and every error of vito's is raised as :class:`VitoError` (a
``ValueError``) whose message names the file, the field and the value. A solve that does not
converge is not an error: its :class:`Result` carries the status.
"""

from __future__ import annotations

import copy
import json
import math
import numbers
import os
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple, Union

import numpy as np

from . import _vito
from ._vito import VitoError

__all__ = [
    "Comparison",
    "Problem",
    "Result",
    "Robot",
    "SimulationResult",
    "VitoError",
    "SweepResult",
    "compare",
    "simulate",
    "solve",
    "sweep",
]

__version__ = "0.1.0"

PathLike = Union[str, "os.PathLike[str]"]
#: A dotted path (``"terrain.boxes.0.top"``) or its parts (``("lock", "joint.1")``).
FieldPath = Union[str, Sequence[Union[str, int]]]


def _parts(path: FieldPath) -> List[Union[str, int]]:
    """The parts of a field path: a dotted string split at its dots, or the given parts."""
    if isinstance(path, str):
        if not path:
            raise KeyError("empty field path")
        return list(path.split("."))
    parts = list(path)
    if not parts:
        raise KeyError("empty field path")
    return parts


def _shown(parts: Sequence[Union[str, int]]) -> str:
    """The dotted form of a field path's parts."""
    return ".".join(str(p) for p in parts)


def _step(node: Any, part: Union[str, int], parts: Sequence[Union[str, int]], k: int) -> Any:
    """``node[part]`` for the ``k``-th part of ``parts``, or a KeyError / IndexError naming the
    path."""
    here = _shown(parts[: k + 1])
    if isinstance(node, Mapping):
        key = str(part)
        if key not in node:
            keys = ", ".join(sorted(str(k) for k in node)) or "none"
            raise KeyError(f"{here}: no field '{key}' (fields here: {keys})")
        return node[key]
    if isinstance(node, list):
        return node[_index(node, part, here)]
    raise KeyError(f"{here}: '{_shown(parts[:k]) or '(top)'}' is a {type(node).__name__}, not a mapping or list")


def _index(node: list, part: Union[str, int], here: str) -> int:
    """``part`` as an index into ``node``, or an IndexError naming the path."""
    try:
        i = int(part)
    except (TypeError, ValueError):
        raise IndexError(f"{here}: '{part}' is not a list index") from None
    if not -len(node) <= i < len(node):
        raise IndexError(f"{here}: index {i} is out of range (the list has {len(node)} items)")
    return i


def _dump(value: Any, at: str = "") -> str:
    """``value`` as YAML text in JSON's flow style (``.inf``, ``-.inf`` and ``.nan`` for the
    non-finite numbers, which JSON lacks), for vito's YAML loaders."""
    if value is None:
        return "null"
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        x = float(value)
        if math.isnan(x):
            return ".nan"
        if math.isinf(x):
            return ".inf" if x > 0 else "-.inf"
        return repr(x)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, Mapping):
        items = []
        for k, v in value.items():
            if not isinstance(k, str):
                raise VitoError(f"{at or '(top)'}: key {k!r} is not a string")
            items.append(f"{json.dumps(k, ensure_ascii=False)}: {_dump(v, f'{at}.{k}' if at else k)}")
        return "{" + ", ".join(items) + "}"
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_dump(v, f"{at}[{i}]") for i, v in enumerate(value)) + "]"
    raise VitoError(f"{at or '(top)'}: a {type(value).__name__} cannot be written into a problem")


class Problem:
    """A motion problem (for :func:`solve`, :func:`compare`) or a simulation (for
    :func:`simulate`): its YAML document as a plain dict, :attr:`data`, and the directory its
    relative paths (``robot``, ``initial_guess.from``) start from, :attr:`base_dir`.

    Change any field through :attr:`data` (``p.data["terrain"]["friction"] = 0.5``) or
    :meth:`set` (``p.set("terrain.boxes.0.top", 0.1)``); vito validates the whole document when
    it is solved, with the messages of ``vito solve`` (which name :attr:`source`, the field and
    the value). The fields are those of ``problems/README.md``.
    """

    def __init__(self, data: Dict[str, Any], base_dir: PathLike = ".", source: str = "<dict>"):
        """A problem of ``data`` (kept, not copied) whose relative paths start from
        ``base_dir``; ``source`` names it in messages."""
        if not isinstance(data, dict):
            raise VitoError(f"{source}: a problem is a mapping of fields, got a {type(data).__name__}")
        #: The YAML document as a dict (numbers, strings, lists, dicts, None).
        self.data: Dict[str, Any] = data
        #: Where the document's relative paths start from.
        self.base_dir: str = os.fspath(base_dir)
        #: The file (or ``<yaml>``, ``<dict>``) that messages name.
        self.source: str = source
        # The text the data was read from and a copy of the data as read: while the data is
        # unchanged vito gets that text, so the report's `problem_hash` is the file's.
        self._read: Optional[Tuple[Dict[str, Any], str]] = None

    @classmethod
    def from_file(cls, path: PathLike) -> "Problem":
        """Reads a problem or simulation file (YAML); relative paths in it start from the file's
        directory, as for ``vito solve FILE``."""
        path = os.fspath(path)
        return cls.from_yaml(_vito.read_text(path), base_dir=os.path.dirname(path) or ".", source=path)

    @classmethod
    def from_yaml(cls, text: str, base_dir: PathLike = ".", source: str = "<yaml>") -> "Problem":
        """Parses YAML text (vito's YAML parser, serde_yaml_ng; JSON is YAML too) whose relative
        paths start from ``base_dir``."""
        data = json.loads(_vito.yaml_to_json(text, source))
        problem = cls(data, base_dir, source)
        problem._read = (copy.deepcopy(data), text)
        return problem

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], base_dir: PathLike = ".") -> "Problem":
        """A problem of a copy of ``data`` (the fields of a problem file) whose relative paths
        start from ``base_dir``."""
        return cls(copy.deepcopy(dict(data)), base_dir, "<dict>")

    def copy(self) -> "Problem":
        """An independent copy (its own :attr:`data`)."""
        other = Problem(copy.deepcopy(self.data), self.base_dir, self.source)
        other._read = self._read
        return other

    def get(self, path: FieldPath) -> Any:
        """The value at a dotted field path (list items by their index: ``"costs.targets.0"``).

        Raises KeyError or IndexError naming the path when it leads nowhere."""
        parts = _parts(path)
        node: Any = self.data
        for k, part in enumerate(parts):
            node = _step(node, part, parts, k)
        return node

    def set(self, path: FieldPath, value: Any) -> None:
        """Sets the value at a dotted field path: ``p.set("terrain.boxes.0.top", 0.1)``.

        Every part but the last must exist (a KeyError or IndexError names the path where it
        does not); the last may add a field to a mapping, or replace a list item."""
        parts = _parts(path)
        node: Any = self.data
        for k, part in enumerate(parts[:-1]):
            node = _step(node, part, parts, k)
        last = parts[-1]
        if isinstance(node, dict):
            node[str(last)] = value
        elif isinstance(node, list):
            node[_index(node, last, _shown(parts))] = value
        else:
            raise KeyError(f"{_shown(parts)}: '{_shown(parts[:-1])}' is a {type(node).__name__}, not a mapping or list")

    def to_yaml(self) -> str:
        """The YAML text vito is given: the text read while :attr:`data` is unchanged, else
        :attr:`data` as JSON-style YAML."""
        if self._read is not None and self._read[0] == self.data:
            return self._read[1]
        return _dump(self.data)

    def solve(self, **options: Any) -> "Result":
        """:func:`solve` of this problem (same options)."""
        return solve(self, **options)

    def compare(self, **options: Any) -> "Comparison":
        """:func:`compare` of this problem (same options)."""
        return compare(self, **options)

    def simulate(self, **options: Any) -> "SimulationResult":
        """:func:`simulate` of this simulation (same options)."""
        return simulate(self, **options)

    def __repr__(self) -> str:
        return f"Problem({self.data.get('name', '?')!r}, source={self.source!r}, base_dir={self.base_dir!r})"


def _as_problem(problem: Union[Problem, PathLike]) -> Problem:
    """``problem`` itself, or the problem read from the file it names."""
    if isinstance(problem, Problem):
        return problem
    if isinstance(problem, (str, os.PathLike)):
        return Problem.from_file(problem)
    raise VitoError(f"problem: expected a vito.Problem or a file path, got a {type(problem).__name__}")


def _table(raw: Dict[str, Any]) -> np.ndarray:
    """The table of a native result as a (rows, columns) float64 array."""
    columns = len(raw["columns"])
    return np.frombuffer(raw["table"], dtype="<f8").reshape(raw["rows"], columns).astype(np.float64)


def _contact_block(table: np.ndarray, start: int, count: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Normal forces (T, C), world forces (T, C, 3) and gaps (T, C) from the 5 columns per
    contact point ``fn_P, f_P_x, f_P_y, f_P_z, gap_P`` that start at column ``start``."""
    block = table[:, start : start + 5 * count].reshape(table.shape[0], count, 5)
    return block[:, :, 0], block[:, :, 1:4], block[:, :, 4]


@dataclass(repr=False)
class Result:
    """A solve: what ``vito solve`` prints and writes, as Python values.

    The arrays are ``trajectory.csv``'s: the solution's interpolant on a uniform grid of 10
    samples per stage (rows), made by the same functions."""

    #: The solver's status as ``vito solve`` prints it (``Converged``, ``Acceptable``,
    #: ``MaxIterations``, ``LocallyInfeasible``, ...).
    status: str
    #: Final objective.
    objective: float
    #: Iterations (of every method that ran).
    iterations: int
    #: ``simpson_vi``, ``hermite_simpson``, ...
    transcription: str
    #: The method that ran: ``interior_point`` or ``sqp``.
    method: str
    #: Times (s), shape (T,).
    t: np.ndarray
    #: Joint positions, shape (T, dof), columns :attr:`joint_names`.
    q: np.ndarray
    #: Joint velocities, shape (T, dof).
    v: np.ndarray
    #: Actuator torques or forces, shape (T, actuated), columns :attr:`actuated_joint_names`.
    u: np.ndarray
    #: World contact force per contact point (N), shape (T, contacts, 3); empty without terrain.
    forces: np.ndarray
    #: Normal force per contact point (N), shape (T, contacts).
    normal_forces: np.ndarray
    #: Gap per contact point (m), shape (T, contacts).
    gaps: np.ndarray
    #: The stance columns (:attr:`stance_columns`) of a problem with stances, shape (T, k).
    stance: np.ndarray
    #: Names of the stance columns.
    stance_columns: List[str]
    #: Joints in ``q`` order.
    joint_names: List[str]
    #: Actuated joints in ``u`` order.
    actuated_joint_names: List[str]
    #: Contact points in ``forces`` order.
    contact_points: List[str]
    #: Column names of :attr:`table` (``trajectory.csv``'s header).
    columns: List[str]
    #: Every column at once, shape (T, len(columns)).
    table: np.ndarray
    #: ``report.json``'s content.
    report: Dict[str, Any]
    #: The solver's log (``solver.log``).
    log: str
    #: What loading the robot warned about (``vito solve`` prints them first).
    warnings: List[str] = field(default_factory=list)
    #: Files written (with ``output=``), as ``vito solve`` lists them.
    files: List[str] = field(default_factory=list)

    @property
    def converged(self) -> bool:
        """Whether the status is ``Converged``."""
        return self.status == "Converged"

    @classmethod
    def _from_native(cls, raw: Dict[str, Any]) -> "Result":
        table = _table(raw)
        n, m, c = len(raw["joint_names"]), len(raw["actuated_names"]), len(raw["contact_names"])
        contact_start = 1 + 2 * n + m
        normal, forces, gaps = _contact_block(table, contact_start, c)
        stance_start = contact_start + 5 * c
        return cls(
            status=raw["status"],
            objective=raw["objective"],
            iterations=raw["iterations"],
            transcription=raw["transcription"],
            method=raw["method"],
            t=table[:, 0],
            q=table[:, 1 : 1 + n],
            v=table[:, 1 + n : 1 + 2 * n],
            u=table[:, 1 + 2 * n : contact_start],
            forces=forces,
            normal_forces=normal,
            gaps=gaps,
            stance=table[:, stance_start:],
            stance_columns=list(raw["columns"][stance_start:]),
            joint_names=list(raw["joint_names"]),
            actuated_joint_names=list(raw["actuated_names"]),
            contact_points=list(raw["contact_names"]),
            columns=list(raw["columns"]),
            table=table,
            report=json.loads(raw["report"]),
            log=raw["log"],
            warnings=list(raw["warnings"]),
            files=list(raw["files"]),
        )

    def __repr__(self) -> str:
        return (
            f"Result(status={self.status!r}, objective={self.objective:.6e}, "
            f"iterations={self.iterations}, transcription={self.transcription!r}, samples={len(self.t)})"
        )


@dataclass(repr=False)
class SimulationResult:
    """A simulation: what ``vito simulate`` writes, as Python values (the rows of its
    ``trajectory.csv``, one per knot)."""

    #: ``Completed``, or ``StepFailed`` when a step did not converge (see :attr:`failure`).
    status: str
    #: ``N steps``, or why it stopped.
    message: str
    #: Why the simulation stopped early (``None`` when it completed).
    failure: Optional[str]
    #: Knot times (s), shape (T,).
    t: np.ndarray
    #: Joint positions, shape (T, dof).
    q: np.ndarray
    #: Joint velocities, shape (T, dof).
    v: np.ndarray
    #: Total energy (J), shape (T,).
    energy: np.ndarray
    #: World contact force per contact point (N), shape (T, contacts, 3).
    forces: np.ndarray
    #: Normal force per contact point (N), shape (T, contacts).
    normal_forces: np.ndarray
    #: Gap per contact point (m), shape (T, contacts).
    gaps: np.ndarray
    #: Joints in ``q`` order.
    joint_names: List[str]
    #: Contact points in ``forces`` order.
    contact_points: List[str]
    #: Column names of :attr:`table`.
    columns: List[str]
    #: Every column at once.
    table: np.ndarray
    #: ``report.json``'s content.
    report: Dict[str, Any]
    #: What loading the robot warned about.
    warnings: List[str] = field(default_factory=list)
    #: Files written (with ``output=``).
    files: List[str] = field(default_factory=list)

    @classmethod
    def _from_native(cls, raw: Dict[str, Any]) -> "SimulationResult":
        table = _table(raw)
        n, c = len(raw["joint_names"]), len(raw["contact_names"])
        normal, forces, gaps = _contact_block(table, 2 + 2 * n, c)
        return cls(
            status=raw["status"],
            message=raw["message"],
            failure=raw["failure"],
            t=table[:, 0],
            q=table[:, 1 : 1 + n],
            v=table[:, 1 + n : 1 + 2 * n],
            energy=table[:, 1 + 2 * n],
            forces=forces,
            normal_forces=normal,
            gaps=gaps,
            joint_names=list(raw["joint_names"]),
            contact_points=list(raw["contact_names"]),
            columns=list(raw["columns"]),
            table=table,
            report=json.loads(raw["report"]),
            warnings=list(raw["warnings"]),
            files=list(raw["files"]),
        )

    def __repr__(self) -> str:
        return f"SimulationResult(status={self.status!r}, knots={len(self.t)}, message={self.message!r})"


@dataclass(repr=False)
class Comparison:
    """Both solves of :func:`compare` (``vito compare``)."""

    #: The results by transcription: ``simpson_vi`` first, then ``hermite_simpson``.
    results: Dict[str, Result]
    #: Where each solve started: ``problem`` or the warm start's ``trajectory.csv``.
    initial_guesses: Dict[str, str]
    #: The side-by-side table (``compare.md``).
    markdown: str
    #: Files written (with ``output=``).
    files: List[str] = field(default_factory=list)

    @property
    def status(self) -> str:
        """``Converged`` when both solves converged, else the status of the last one that did
        not (what ``vito compare``'s exit code reflects)."""
        failed = [r.status for r in self.results.values() if not r.converged]
        return failed[-1] if failed else "Converged"

    def __getitem__(self, transcription: str) -> Result:
        """The result of one transcription: ``c["hermite_simpson"]``."""
        return self.results[transcription]

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}: {v.status} {v.objective:.6e}" for k, v in self.results.items())
        return f"Comparison({inner})"


def _solver_edit(problem: Problem, solver: Dict[str, Any]) -> str:
    """The problem's YAML text with ``solver.<key>`` replaced by each value given."""
    given = {k: v for k, v in solver.items() if v is not None}
    if not given:
        return problem.to_yaml()
    data = copy.deepcopy(problem.data)
    section = data.get("solver")
    if section is None:
        section = data["solver"] = {}
    if not isinstance(section, dict):
        return _dump(data)  # vito names the malformed `solver` field
    section.update(given)
    return _dump(data)


def solve(
    problem: Union[Problem, PathLike],
    method: Optional[str] = None,
    transcription: Optional[str] = None,
    qp: Optional[str] = None,
    max_iterations: Optional[int] = None,
    time_limit_s: Optional[float] = None,
    output: Optional[PathLike] = None,
    log: bool = False,
) -> Result:
    """Solves a motion problem as ``vito solve`` does (``vito::commands::solve``).

    ``problem`` is a :class:`Problem` or a file path. ``method`` (``auto``, ``interior_point``,
    ``sqp``), ``transcription`` (``simpson_vi``, ``trapezoid_vi``, ``galerkin:S``,
    ``hermite_simpson``) and ``qp`` (``clarabel``, ``osqp``; implies the SQP) are
    ``vito solve``'s flags, parsed by the same parsers; ``max_iterations`` and ``time_limit_s``
    replace the problem's ``solver.max_iterations`` and ``solver.time_limit_s``. With
    ``output`` the files of ``vito solve -o DIR`` are written there (report, CSVs, solver log,
    SVG figures, viewer); without it nothing is written. With ``log`` the solver's log and
    ``vito solve``'s summary go to the process's stderr as they come; the log is always in
    :attr:`Result.log`.

    Raises :class:`VitoError` for input vito cannot use or files it cannot write; a solve that
    does not converge returns its :class:`Result` with that status.
    """
    p = _as_problem(problem)
    text = _solver_edit(p, {"max_iterations": max_iterations, "time_limit_s": time_limit_s})
    raw = _vito.solve(
        text,
        p.base_dir,
        p.source,
        method=method,
        transcription=transcription,
        qp=qp,
        output=None if output is None else os.fspath(output),
        log=log,
    )
    return Result._from_native(raw)


def compare(
    problem: Union[Problem, PathLike],
    method: Optional[str] = None,
    qp: Optional[str] = None,
    warm_start: bool = False,
    output: Optional[PathLike] = None,
    log: bool = False,
) -> Comparison:
    """Solves a motion problem with ``simpson_vi`` and with ``hermite_simpson``, as
    ``vito compare`` does (``vito::commands::compare``).

    ``method`` and ``qp`` apply to both solves. With ``warm_start`` Hermite–Simpson starts from
    the Simpson VI's ``trajectory.csv``, so the files are written: to ``output`` if given, else
    to a temporary directory removed afterwards (and :attr:`Comparison.files` is then empty).
    With ``output`` the files of ``vito compare -o DIR`` are written there. ``log`` as for
    :func:`solve`.
    """
    p = _as_problem(problem)

    def run(directory: Optional[str]) -> Dict[str, Any]:
        return _vito.compare(
            p.to_yaml(), p.base_dir, p.source, method=method, qp=qp,
            warm_start=warm_start, output=directory, log=log,
        )

    if output is None and warm_start:
        with tempfile.TemporaryDirectory(prefix="vito-compare-") as scratch:
            raw = run(scratch)
        raw["files"] = []
        for r in raw["runs"]:
            r["files"] = []
    else:
        raw = run(None if output is None else os.fspath(output))
    results = {r["transcription"]: Result._from_native(r) for r in raw["runs"]}
    guesses = {r["transcription"]: r["initial_guess"] for r in raw["runs"]}
    return Comparison(results=results, initial_guesses=guesses, markdown=raw["markdown"], files=list(raw["files"]))


def simulate(
    problem: Union[Problem, PathLike],
    integrator: Optional[str] = None,
    dt: Optional[float] = None,
    duration: Optional[float] = None,
    output: Optional[PathLike] = None,
    log: bool = False,
) -> SimulationResult:
    """Simulates a simulation file with the variational integrator, as ``vito simulate`` does
    (``vito::commands::simulate``).

    ``integrator`` (``trapezoid``, ``simpson``, ``galerkin:S``), ``dt`` and ``duration`` are
    ``vito simulate``'s flags, validated as the file's values are. With ``output`` its files
    are written there; with ``log`` its summary goes to stderr. A simulation that stops at a
    step that does not converge returns the knots up to it, with status ``StepFailed`` and
    :attr:`SimulationResult.failure` saying why.
    """
    p = _as_problem(problem)
    raw = _vito.simulate(
        p.to_yaml(),
        p.base_dir,
        p.source,
        integrator=integrator,
        dt=None if dt is None else _number(dt, "dt"),
        duration=None if duration is None else _number(duration, "duration"),
        output=None if output is None else os.fspath(output),
        log=log,
    )
    return SimulationResult._from_native(raw)


@dataclass(repr=False)
class SweepResult:
    """A family of solves (:func:`sweep`, ``vito sweep``): one row per instance."""

    #: The varied field paths, in the order given.
    keys: List[str]
    #: One dict per instance, as in ``sweep.json``: ``instance`` (its directory under the
    #: output), ``values`` (one per key), ``status`` (``Converged``, another solver status, or
    #: ``Error`` with ``error`` saying why), ``iterations``, ``solve_s``, ``objective``,
    #: ``constraint_violation``, ``ground_positive_work``, ``ground_share``,
    #: ``deepest_penetration`` (at the points), ``deepest_penetration_between_points`` (on the
    #: grid of ``trajectory.csv``).
    rows: List[Dict[str, Any]]
    #: How many rows came from a previous run's directories.
    resumed: int
    #: The table and figure files written.
    files: List[str]
    #: Where the instances' directories are.
    output: str

    @property
    def converged(self) -> int:
        """How many instances converged."""
        return sum(r["status"] == "Converged" for r in self.rows)

    def table(self) -> Any:
        """The rows with one column per key: a pandas DataFrame if pandas is installed, else a
        pyarrow Table if pyarrow is, else a list of dicts."""
        flat = []
        for r in self.rows:
            row = {"instance": r["instance"]}
            row.update(zip(self.keys, r["values"]))
            row.update({k: v for k, v in r.items() if k not in ("instance", "values")})
            flat.append(row)
        try:
            import pandas

            return pandas.DataFrame(flat)
        except ImportError:
            pass
        try:
            import pyarrow

            return pyarrow.Table.from_pylist(flat)
        except ImportError:
            return flat

    def __repr__(self) -> str:
        return f"SweepResult({self.converged} of {len(self.rows)} Converged, keys={self.keys}, output={self.output!r})"


def _variations(vary: Union[Mapping[str, Any], Sequence[str]]) -> List[str]:
    """``vito sweep``'s ``--vary`` values: a sequence of them as written (``"KEY=lo:hi"``), or a
    mapping of field paths (ending in ``+`` to add to the value there) to a tuple ``(lo, hi)``
    or ``(lo, hi, n)`` (an interval; ``n`` grid points), a list of values, a single number, or
    the range as written."""
    if isinstance(vary, str):
        raise VitoError(f"vary: a mapping of field paths to ranges, or a list of 'KEY=RANGE', got {vary!r}")
    if not isinstance(vary, Mapping):
        return [str(v) for v in vary]
    out = []
    for key, spread in vary.items():
        key = str(key)
        op = "+=" if key.endswith("+") else "="
        key = key[:-1] if op == "+=" else key
        if isinstance(spread, str):
            shown = spread
        elif isinstance(spread, tuple) and len(spread) in (2, 3):
            lo, hi = _number(spread[0], f"vary[{key}]"), _number(spread[1], f"vary[{key}]")
            shown = f"{lo!r}:{hi!r}" + (f":{int(spread[2])}" if len(spread) == 3 else "")
        elif isinstance(spread, (list, np.ndarray)):
            shown = ",".join(repr(_number(x, f"vary[{key}]")) for x in spread)
        else:
            shown = repr(_number(spread, f"vary[{key}]"))
        out.append(f"{key}{op}{shown}")
    return out


def _solve_instance(
    text: str, base_dir: str, source: str, i: int, values: List[float], instance: str,
    output: str, method: Optional[str], transcription: Optional[str], qp: Optional[str],
) -> Tuple[str, bool]:
    """One instance of a family in a Ray worker: one solver thread per task (Ray gives each task
    its CPU), then ``vito::commands::solve_sweep_instance``."""
    os.environ.setdefault("RAYON_NUM_THREADS", "1")
    return _vito.sweep_instance(
        text, base_dir, source, i, values, instance, output,
        method=method, transcription=transcription, qp=qp,
    )


def _lost_row(i: int, values: List[float], error: BaseException) -> Dict[str, Any]:
    """The row of an instance whose Ray task failed or was killed."""
    return {
        "instance": f"lost-{i}", "values": list(values), "status": "Error", "iterations": 0,
        "solve_s": 0.0, "objective": None, "constraint_violation": None,
        "ground_positive_work": None, "ground_share": None, "deepest_penetration": None,
        "deepest_penetration_between_points": None,
        "error": f"the Ray task ended {type(error).__name__}: {error}",
    }


def sweep(
    problem: Union[Problem, PathLike],
    vary: Union[Mapping[str, Any], Sequence[str]],
    samples: int = 8,
    seed: int = 0,
    grid: bool = False,
    backend: str = "local",
    output: Optional[PathLike] = None,
    jobs: Optional[int] = None,
    method: Optional[str] = None,
    transcription: Optional[str] = None,
    qp: Optional[str] = None,
    address: Optional[str] = None,
) -> SweepResult:
    """Solves a family of variants of one problem, as ``vito sweep`` does.

    ``vary`` gives each varied field (see :func:`_variations`:
    ``{"terrain.boxes.0.top": (0.05, 0.2), "terrain.boxes.0.x+": (-0.06, 0.06)}``); ``samples``
    instances are drawn with ``seed``, or with ``grid`` every combination of grid points. Each
    instance is solved into its own directory under ``output`` (default
    ``results/<name>-sweep``), named after a hash of the instance, and the table
    (``sweep.csv``, ``sweep.json``) and figures are written there. An instance that fails is a
    row with its status; instances already finished in ``output`` are not solved again.

    ``backend="local"`` solves ``jobs`` instances at once in this process (default one per
    core; ``vito::commands::sweep``). ``backend="ray"`` makes each instance a Ray task of one
    CPU: on the cluster at ``address`` if given (``ray.init(address=...)``), else on the Ray
    instance already started, else on a local one with ``jobs`` CPUs, which is shut down
    afterwards. A task that fails or is killed is a row with status ``Error``.
    """
    p = _as_problem(problem)
    text = p.to_yaml()
    variations = _variations(vary)
    name = str(p.data.get("name", "problem"))
    output = os.fspath(output) if output is not None else os.path.join("results", f"{name}-sweep")
    if backend == "local":
        raw = json.loads(
            _vito.sweep(
                text, p.base_dir, p.source, variations, output, samples=samples, seed=seed,
                grid=grid, jobs=jobs or 0, method=method, transcription=transcription, qp=qp,
            )
        )
        return SweepResult(raw["keys"], raw["rows"], raw["resumed"], raw["files"], output)
    if backend != "ray":
        raise VitoError(f"backend: expected 'local' or 'ray', got {backend!r}")
    try:
        import ray
    except ImportError as e:
        raise VitoError("backend='ray' needs the ray package (pip install ray)") from e
    keys, family = _vito.sweep_instances(text, p.source, variations, samples=samples, seed=seed, grid=grid)
    started = not ray.is_initialized()
    if started:
        if address is None:
            ray.init(num_cpus=jobs or os.cpu_count(), include_dashboard=False, log_to_driver=False)
        else:
            ray.init(address=address, log_to_driver=False)
    try:
        task = ray.remote(num_cpus=1, max_retries=0)(_solve_instance)
        pending = {
            task.remote(text, p.base_dir, p.source, i, values, instance, output, method, transcription, qp): i
            for i, (values, instance) in enumerate(family)
        }
        rows: List[Optional[Dict[str, Any]]] = [None] * len(family)
        resumed = 0
        waiting = list(pending)
        while waiting:
            done, waiting = ray.wait(waiting, num_returns=1)
            for ref in done:
                i = pending[ref]
                try:
                    row, again = ray.get(ref)
                    rows[i] = json.loads(row)
                    resumed += bool(again)
                except Exception as error:  # a failed or killed task is a row, not the end
                    rows[i] = _lost_row(i, family[i][0], error)
    finally:
        if started:
            ray.shutdown()
    complete = [r for r in rows if r is not None]
    files = _vito.write_sweep_table(p.source, output, keys, [json.dumps(r) for r in complete])
    return SweepResult(keys, complete, resumed, files, output)


def _number(x: Any, name: str) -> float:
    """``x`` as a float, or a VitoError naming the argument."""
    try:
        return float(x)
    except (TypeError, ValueError):
        raise VitoError(f"{name}: expected a number, got {x!r}") from None


def _vector(x: Any, name: str) -> List[float]:
    """``x`` (a sequence or 1-D array of numbers) as a list of floats, or a VitoError naming
    the argument."""
    try:
        a = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise VitoError(f"{name}: expected a vector of numbers, got {x!r}") from None
    if a.ndim != 1:
        raise VitoError(f"{name}: expected a vector (1-D), got an array of shape {a.shape}")
    return a.tolist()


class Robot:
    """A robot from URDF with vito's rigid-body algorithms (``vito::dynamics``, the dynamics
    ``vito model --state`` prints). Vectors are in :attr:`joint_names` order (base joints
    first); every method takes array-likes and returns NumPy arrays, and raises
    :class:`VitoError` for a vector of the wrong length.
    """

    def __init__(
        self,
        urdf: PathLike,
        base: str = "fixed",
        gravity: Sequence[float] = (0.0, 0.0, -9.81),
        fix_inertia: bool = False,
    ):
        """Loads ``urdf`` with vito's URDF reader; ``base`` is ``fixed``, ``planar`` or
        ``floating`` (``vito model --base``), ``gravity`` in m/s² (world frame),
        ``fix_inertia`` as ``vito model --fix-inertia``."""
        g = _vector(gravity, "gravity")
        if len(g) != 3:
            raise VitoError(f"gravity: expected 3 numbers, got {len(g)}")
        self._native = _vito.Robot(os.fspath(urdf), base, (g[0], g[1], g[2]), bool(fix_inertia))

    @property
    def name(self) -> str:
        """The robot's name."""
        return self._native.name

    @property
    def base(self) -> str:
        """``fixed``, ``planar`` or ``floating``."""
        return self._native.base

    @property
    def dof(self) -> int:
        """Degrees of freedom (the length of ``q``)."""
        return self._native.dof

    @property
    def joint_names(self) -> List[str]:
        """Joints in ``q`` order, base joints first."""
        return self._native.joint_names

    @property
    def actuated_joint_names(self) -> List[str]:
        """Joints with a motor, in ``u`` order."""
        return self._native.actuated_joint_names

    @property
    def warnings(self) -> List[str]:
        """What loading the URDF warned about."""
        return self._native.warnings

    def mass_matrix(self, q: Any) -> np.ndarray:
        """The joint-space mass matrix ``M(q)``, shape (dof, dof) (CRBA,
        ``vito::dynamics::mass_matrix``)."""
        n = self.dof
        return np.array(self._native.mass_matrix(_vector(q, "q"))).reshape(n, n)

    def bias(self, q: Any, v: Any) -> np.ndarray:
        """Coriolis, centrifugal and gravity forces ``C(q, v) v + g(q)``
        (``vito::dynamics::bias_forces``)."""
        return np.array(self._native.bias(_vector(q, "q"), _vector(v, "v")))

    def inverse_dynamics(self, q: Any, v: Any, a: Any) -> np.ndarray:
        """The joint forces ``τ = M(q) a + C(q, v) v + g(q)`` (RNEA,
        ``vito::dynamics::inverse_dynamics``)."""
        return np.array(self._native.inverse_dynamics(_vector(q, "q"), _vector(v, "v"), _vector(a, "a")))

    def forward_dynamics(self, q: Any, v: Any, tau: Any) -> np.ndarray:
        """The accelerations ``a = M(q)⁻¹ (τ − C(q, v) v − g(q))`` (ABA,
        ``vito::dynamics::forward_dynamics``)."""
        return np.array(self._native.forward_dynamics(_vector(q, "q"), _vector(v, "v"), _vector(tau, "tau")))

    def __repr__(self) -> str:
        return repr(self._native)
