"""What a Ray sweep costs against `vito sweep` on the same machine: the same family of 8
instances of problems/biped_walk.yaml (its effort weight drawn in [0.005, 0.02]), solved by
`vito sweep --jobs J` and by `vito.sweep(..., backend="ray", jobs=J)` on a local Ray instance of
J CPUs (its start and shutdown counted), each into a fresh directory.

    target/py-venv/bin/python python/bench_ray_sweep.py [--jobs 2] [--samples 8] [--cli target/release/vito]
"""

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# The installed package, not the source folder beside this script.
sys.path = [p for p in sys.path if Path(p or os.getcwd()).resolve() != HERE]

import vito  # noqa: E402 (after the path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--samples", type=int, default=8)
    parser.add_argument("--cli", default=str(ROOT / "target/release/vito"))
    args = parser.parse_args()
    problem = ROOT / "problems/biped_walk.yaml"
    vary = "costs.effort=0.005:0.02"
    with tempfile.TemporaryDirectory(prefix="vito-bench-sweep-") as scratch:
        start = time.perf_counter()
        subprocess.run(
            [args.cli, "sweep", str(problem), "--vary", vary, "--samples", str(args.samples),
             "--jobs", str(args.jobs), "-o", f"{scratch}/local"],
            check=False, capture_output=True,
        )
        local = time.perf_counter() - start
        start = time.perf_counter()
        result = vito.sweep(problem, [vary], samples=args.samples, backend="ray", jobs=args.jobs,
                            output=f"{scratch}/ray")
        ray_s = time.perf_counter() - start
    print(f"{args.samples} instances of biped_walk on {args.jobs} CPUs: vito sweep {local:.1f} s, "
          f"Ray {ray_s:.1f} s ({result.converged} Converged), ratio {ray_s / local:.3f}")


if __name__ == "__main__":
    main()
