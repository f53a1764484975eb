"""The biped's obstacle jump over boxes of several heights, each instance a Ray task.

    python examples/python/ray_sweep.py [--samples N] [--seed S] [--address ADDR] [--output DIR]

Draws the box's height uniformly in [0.12, 0.18] m (problems/biped_obstacle_jump.yaml: 0.16 m),
solves every instance as a Ray task of one CPU (on the cluster at --address, else on a local Ray
instance with this machine's CPUs), and prints the table: status, iterations and solve time per
height. The same family runs without Ray as

    vito sweep problems/biped_obstacle_jump.yaml --vary terrain.boxes.0.top=0.12:0.18 --samples N
"""

import argparse
from pathlib import Path

import vito

ROOT = Path(__file__).resolve().parents[2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--address", default=None, help="a Ray cluster's address (default: a local Ray)")
    parser.add_argument("--output", default=str(ROOT / "results/biped_obstacle_jump-ray-sweep"))
    parser.add_argument("--max-iterations", type=int, default=None, help="cap each solve (a quick look)")
    args = parser.parse_args()

    vary = {"terrain.boxes.0.top": (0.12, 0.18)}
    if args.max_iterations is not None:
        vary["solver.max_iterations"] = args.max_iterations
    result = vito.sweep(
        ROOT / "problems/biped_obstacle_jump.yaml", vary, samples=args.samples, seed=args.seed,
        backend="ray", address=args.address, output=args.output,
    )
    print(f"{len(result.rows)} instances, {result.converged} Converged; table in {args.output}/sweep.csv")
    for r in sorted(result.rows, key=lambda r: r["values"][0]):
        print(f"  box {r['values'][0]:.3f} m: {r['status']:<15} {r['iterations']:>5} iterations {r['solve_s']:7.1f} s")


if __name__ == "__main__":
    main()
