"""Solve the double-pendulum swing-up from Python, with one field changed, and plot it.

    python examples/python/solve_and_plot.py [OUTPUT_DIR]

Loads problems/pendulum_swingup_2.yaml, shortens its horizon from 3 s to 2.5 s, solves it with
vito (the code behind `vito solve`), prints the status and the objective, and draws the joint
angles q and the torques u into OUTPUT_DIR/pendulum_swingup_2.png (default: a new temporary
directory). Needs the package `vito` (`pip install ./python`) and matplotlib.
"""

import argparse
import sys
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402 (after choosing the backend)

import vito  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("output", nargs="?", help="directory for the PNG (default: a temporary one)")
    args = parser.parse_args()
    out = Path(args.output) if args.output else Path(tempfile.mkdtemp(prefix="vito-example-"))
    out.mkdir(parents=True, exist_ok=True)

    problem = vito.Problem.from_file(ROOT / "problems" / "pendulum_swingup_2.yaml")
    problem.set("duration", 2.5)  # any field of the YAML: problem.data is a plain dict
    result = vito.solve(problem)
    print(f"status {result.status}, objective {result.objective:.6e}, {result.iterations} iterations")

    fig, (ax_q, ax_u) = plt.subplots(2, 1, sharex=True, figsize=(7, 5))
    for j, name in enumerate(result.joint_names):
        ax_q.plot(result.t, result.q[:, j], label=name)
    for j, name in enumerate(result.actuated_joint_names):
        ax_u.plot(result.t, result.u[:, j], label=name)
    ax_q.set_ylabel("q (rad)")
    ax_u.set_ylabel("u (N·m)")
    ax_u.set_xlabel("t (s)")
    ax_q.legend()
    ax_u.legend()
    fig.suptitle(f"{problem.data['name']}, T = {problem.get('duration')} s: {result.status}")
    fig.tight_layout()
    png = out / "pendulum_swingup_2.png"
    fig.savefig(png, dpi=100)
    print(f"wrote {png}")
    return 0 if result.converged else 2


if __name__ == "__main__":
    sys.exit(main())
