"""What solving from Python costs against the command line.

    python python/bench_solve_overhead.py [--repeat N] [--cli PATH] [--problem FILE]

Times `vito solve FILE -o DIR` (a new process each time: start, load, solve, write the result
files) against `vito.solve()` in one Python process, with the same files written
(`output=DIR`) and without files, N times each, taking turns so that all three see the same
load. Prints the medians, the solver's own time in each (report.json's `solve_time_s`) and the
ratios. The CLI is PATH, else $VITO_CLI, else target/release/vito (built with `cargo build
--release` when cargo is there).
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# This file's folder holds the package's sources, not the built package: import the installed one.
HERE = Path(__file__).resolve().parent
sys.path = [p for p in sys.path if Path(p or os.getcwd()).resolve() != HERE]

import vito  # noqa: E402 (after the path)

ROOT = HERE.parent


def find_cli(given):
    """The `vito` binary to time."""
    if given:
        return Path(given)
    if os.environ.get("VITO_CLI"):
        return Path(os.environ["VITO_CLI"])
    if shutil.which("cargo"):
        subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "vito"], cwd=ROOT, check=True)
    return Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "release" / "vito"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15, help="runs of each (default 15)")
    parser.add_argument("--cli", help="the vito binary (default: $VITO_CLI or target/release/vito)")
    parser.add_argument("--problem", default="problems/pendulum_swingup_2.yaml", help="relative to the repository root")
    args = parser.parse_args()
    cli = find_cli(args.cli)
    problem = vito.Problem.from_file(ROOT / args.problem)
    runs = {"cli": [], "py_files": [], "py": []}
    solver = {"cli": [], "py_files": [], "py": []}
    with tempfile.TemporaryDirectory(prefix="vito-bench-") as scratch:
        vito.solve(problem)  # warm the caches (the URDF file, the allocator) once
        for k in range(args.repeat):
            out = Path(scratch) / f"cli{k}"
            t = time.perf_counter()
            subprocess.run([cli, "solve", args.problem, "-o", out], cwd=ROOT, check=True, capture_output=True)
            runs["cli"].append(time.perf_counter() - t)
            solver["cli"].append(json.loads((out / "report.json").read_text())["solve_time_s"])

            t = time.perf_counter()
            r = vito.solve(problem, output=Path(scratch) / f"py{k}")
            runs["py_files"].append(time.perf_counter() - t)
            solver["py_files"].append(r.report["solve_time_s"])

            t = time.perf_counter()
            r = vito.solve(problem)
            runs["py"].append(time.perf_counter() - t)
            solver["py"].append(r.report["solve_time_s"])
    med = {k: statistics.median(v) for k, v in runs.items()}
    sol = {k: statistics.median(v) for k, v in solver.items()}
    print(f"{args.problem}: {r.status}, objective {r.objective:.6e}, {r.iterations} iterations; "
          f"medians of {args.repeat} runs each")
    rows = [
        ("`vito solve FILE -o DIR` (process)", "cli"),
        ("`vito.solve(p, output=DIR)`", "py_files"),
        ("`vito.solve(p)`", "py"),
    ]
    print(f"| {'':<36} | {'wall (ms)':>9} | {'solver (ms)':>11} | {'vs CLI wall':>11} |")
    print(f"|{'-' * 38}|{'-' * 10}:|{'-' * 12}:|{'-' * 12}:|")
    for label, key in rows:
        print(f"| {label:<36} | {1e3 * med[key]:>9.1f} | {1e3 * sol[key]:>11.1f} | {med[key] / med['cli']:>11.3f} |")
    print(f"Python overhead over the CLI: {100 * (med['py_files'] / med['cli'] - 1):+.1f} % writing the same files, "
          f"{100 * (med['py'] / med['cli'] - 1):+.1f} % without files")
    return 0


if __name__ == "__main__":
    sys.exit(main())
