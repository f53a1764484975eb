"""Type stubs of ``vito._vito``, the native half of ``vito`` (``python/src/lib.rs``).

Use the package ``vito``: these functions return plain values (tables as little-endian
``float64`` bytes) that it turns into NumPy arrays and result classes.
"""

from os import PathLike
from typing import Any, Dict, List, Optional, Tuple, Union

_Path = Union[str, PathLike[str]]

class VitoError(ValueError):
    """An error of vito's: an input that cannot be used (its message names the file, the field
    and the value) or a result file that cannot be written."""

def yaml_to_json(text: str, source: str) -> str:
    """The YAML document ``text`` (from ``source``, for messages) as JSON text for
    ``json.loads`` (non-finite numbers as ``Infinity``, ``-Infinity``, ``NaN``)."""

def read_text(path: _Path) -> str:
    """The text of the file at ``path`` (a VitoError naming it when it cannot be read)."""

def solve(
    text: str,
    base_dir: _Path,
    source: str,
    method: Optional[str] = None,
    transcription: Optional[str] = None,
    qp: Optional[str] = None,
    output: Optional[_Path] = None,
    log: bool = False,
) -> Dict[str, Any]:
    """Solves the motion problem ``text`` as ``vito solve`` does (``vito::commands::solve``).

    Returns ``status``, ``objective``, ``iterations``, ``transcription``, ``method``,
    ``report`` (JSON text of ``report.json``), ``log``, ``files``, ``joint_names``,
    ``actuated_names``, ``contact_names``, ``warnings``, and ``trajectory.csv``'s ``columns``, ``rows`` and
    ``table`` (bytes)."""

def compare(
    text: str,
    base_dir: _Path,
    source: str,
    method: Optional[str] = None,
    qp: Optional[str] = None,
    warm_start: bool = False,
    output: Optional[_Path] = None,
    log: bool = False,
) -> Dict[str, Any]:
    """Solves ``text`` with ``simpson_vi`` and ``hermite_simpson`` as ``vito compare`` does
    (``vito::commands::compare``). Returns ``runs`` (a :func:`solve` dict each, with its
    ``initial_guess``), ``markdown`` and ``files``."""

def simulate(
    text: str,
    base_dir: _Path,
    source: str,
    integrator: Optional[str] = None,
    dt: Optional[float] = None,
    duration: Optional[float] = None,
    output: Optional[_Path] = None,
    log: bool = False,
) -> Dict[str, Any]:
    """Simulates the simulation file ``text`` as ``vito simulate`` does
    (``vito::commands::simulate``). Returns ``status``, ``message``, ``failure``, ``report``
    (JSON text), ``files``, ``joint_names``, ``contact_names``, ``warnings``, ``columns``, ``rows`` and
    ``table`` (bytes)."""

def sweep(
    text: str,
    base_dir: _Path,
    source: str,
    vary: List[str],
    output: _Path,
    samples: int = 8,
    seed: int = 0,
    grid: bool = False,
    jobs: int = 0,
    method: Optional[str] = None,
    transcription: Optional[str] = None,
    qp: Optional[str] = None,
) -> str:
    """Solves the family of ``text`` under ``vary`` (``vito sweep``'s ``--vary`` values) as
    ``vito sweep`` does (``vito::commands::sweep``). Returns JSON: ``keys``, ``rows``,
    ``resumed``, ``files``."""

def sweep_instances(
    text: str,
    source: str,
    vary: List[str],
    samples: int = 8,
    seed: int = 0,
    grid: bool = False,
) -> Tuple[List[str], List[Tuple[List[float], str]]]:
    """The varied keys and the instances ``(values, YAML text)`` of the family of ``text``."""

def sweep_instance(
    text: str,
    base_dir: _Path,
    source: str,
    i: int,
    values: List[float],
    instance: str,
    output: _Path,
    method: Optional[str] = None,
    transcription: Optional[str] = None,
    qp: Optional[str] = None,
) -> Tuple[str, bool]:
    """Solves instance ``i`` into its directory under ``output``, or takes its row from there
    (``vito::commands::solve_sweep_instance``). Returns the row as JSON and whether it was
    taken from a previous run."""

def write_sweep_table(source: str, output: _Path, keys: List[str], rows: List[str]) -> List[str]:
    """Writes ``sweep.csv``, ``sweep.json`` and the figures from ``keys`` and the JSON
    ``rows``; returns the files."""

class Robot:
    """A robot loaded from URDF, for ``vito model``'s dynamics (``vito::dynamics``)."""

    def __init__(
        self,
        urdf: _Path,
        base: str = "fixed",
        gravity: Tuple[float, float, float] = (0.0, 0.0, -9.81),
        fix_inertia: bool = False,
    ) -> None:
        """Loads ``urdf`` with its root attached as ``base`` (``fixed``, ``planar``,
        ``floating``)."""
    @property
    def name(self) -> str:
        """The robot's name."""
    @property
    def base(self) -> str:
        """``fixed``, ``planar`` or ``floating``."""
    @property
    def dof(self) -> int:
        """Degrees of freedom."""
    @property
    def joint_names(self) -> List[str]:
        """Joints in ``q`` order, base joints first."""
    @property
    def actuated_joint_names(self) -> List[str]:
        """Joints with a motor, in ``u`` order."""
    @property
    def warnings(self) -> List[str]:
        """What loading warned about."""
    def mass_matrix(self, q: List[float]) -> List[float]:
        """``M(q)`` row by row (CRBA)."""
    def bias(self, q: List[float], v: List[float]) -> List[float]:
        """``C(q, v) v + g(q)``."""
    def inverse_dynamics(self, q: List[float], v: List[float], a: List[float]) -> List[float]:
        """``M(q) a + C(q, v) v + g(q)`` (RNEA)."""
    def forward_dynamics(self, q: List[float], v: List[float], tau: List[float]) -> List[float]:
        """``M(q)⁻¹ (τ − C(q, v) v − g(q))`` (ABA)."""
