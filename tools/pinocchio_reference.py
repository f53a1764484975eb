"""The reference kernels of `vito bench --reference PYTHON`: Pinocchio's RNEA and RNEA
derivatives on the URDF files given as arguments (the trees vito times), at one random state each.

Protocol (stdin/stdout, one line each): prints `ready <pinocchio version>`, then answers each
request `<kernel> <file index> <seconds>` (kernel `rnea` or `rnea_derivatives`) with the time per
call in nanoseconds of one batch of calls running at least that long. vito interleaves these
batches with its own, so that both see the same load on a shared machine. The Python call
overhead (about half a microsecond) counts against Pinocchio.

Needs `pip install pin numpy` (PyPI's Pinocchio).
"""

import sys
import time

import numpy as np
import pinocchio as pin


def main() -> None:
    cases = []
    rng = np.random.default_rng(1)
    for path in sys.argv[1:]:
        model = pin.buildModelFromUrdf(path)
        data = model.createData()
        # A valid configuration of any joint type (continuous joints hold cos and sin).
        q = pin.integrate(model, pin.neutral(model), rng.uniform(-1.5, 1.5, model.nv))
        v = rng.uniform(-1.5, 1.5, model.nv)
        a = rng.uniform(-1.0, 1.0, model.nv)
        cases.append(
            {
                "rnea": lambda m=model, d=data, q=q, v=v, a=a: pin.rnea(m, d, q, v, a),
                "rnea_derivatives": lambda m=model, d=data, q=q, v=v, a=a: (
                    pin.computeRNEADerivatives(m, d, q, v, a)
                ),
            }
        )
    print("ready", pin.__version__, flush=True)
    for line in sys.stdin:
        kernel, index, seconds = line.split()
        f = cases[int(index)][kernel]
        budget = float(seconds)
        f()
        calls = 0
        start = time.perf_counter()
        while True:
            f()
            calls += 1
            elapsed = time.perf_counter() - start
            if elapsed >= budget:
                break
        print(elapsed / calls * 1e9, flush=True)


if __name__ == "__main__":
    main()
