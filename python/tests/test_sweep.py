"""vito.sweep: a family of one problem solved locally (vito sweep's code) or as Ray tasks, into
one table, surviving the instances that fail, and skipping finished ones when run again."""

import csv
import json
import subprocess
import sys

import pytest

import vito

FAMILY = {"stages": [0, 20], "solver.max_iterations": [1, 200]}
EXPECTED = [
    ([0.0, 1.0], "Error"),
    ([0.0, 200.0], "Error"),
    ([20.0, 1.0], "MaxIterations"),
    ([20.0, 200.0], "Converged"),
]


def statuses(result):
    return [(r["values"], r["status"]) for r in result.rows]


def test_a_local_sweep_is_vito_sweeps_table(root, cli, tmp_path):
    problem = str(root / "problems/pendulum_swingup_1.yaml")
    result = vito.sweep(problem, FAMILY, grid=True, output=tmp_path / "py", jobs=2)
    assert result.keys == ["stages", "solver.max_iterations"]
    assert statuses(result) == EXPECTED
    assert "stages" in result.rows[0]["error"] and "instance 0" in result.rows[0]["error"]
    assert result.converged == 1 and result.resumed == 0
    # The command line's table of the same family: the same instances and statuses.
    out = tmp_path / "cli"
    run = subprocess.run(
        [str(cli), "sweep", problem, "--vary", "stages=0,20", "--vary", "solver.max_iterations=1,200",
         "--grid", "-o", str(out)],
        capture_output=True, text=True,
    )
    assert run.returncode == 2, run.stderr
    with open(out / "sweep.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["status"] for r in rows] == [s for _, s in EXPECTED]
    assert [r["instance"] for r in rows[2:]] == [r["instance"] for r in result.rows[2:]]
    # Again: the finished instances come from their directories.
    again = vito.sweep(problem, FAMILY, grid=True, output=tmp_path / "py", jobs=2)
    assert again.resumed == 2 and statuses(again) == EXPECTED
    table = again.table()
    assert len(table) == 4


def test_vary_accepts_intervals_lists_and_additions(root, tmp_path):
    problem = vito.Problem.from_file(root / "problems/pendulum_swingup_1.yaml")
    result = vito.sweep(problem, {"duration": (2.5, 3.5), "costs.effort+": 0.5}, samples=2, seed=3,
                        output=tmp_path, jobs=1)
    assert all(2.5 <= r["values"][0] <= 3.5 and r["values"][1] == 0.5 for r in result.rows)
    written = json.loads((tmp_path / "sweep.json").read_text())
    assert written["keys"] == ["duration", "costs.effort"]
    inst = (tmp_path / result.rows[0]["instance"] / "problem.yaml").read_text()
    assert "effort: 1.5" in inst
    with pytest.raises(vito.VitoError, match="no key 'nowhere' in the file"):
        vito.sweep(problem, {"nowhere.deeper": 1}, output=tmp_path)
    with pytest.raises(vito.VitoError, match="backend"):
        vito.sweep(problem, {"duration": 3}, backend="dask", output=tmp_path)


def test_a_ray_sweep_gathers_every_instance_and_survives_a_failing_one(root, tmp_path):
    pytest.importorskip("ray", reason="the Ray backend needs ray: pip install ray")
    problem = str(root / "problems/pendulum_swingup_1.yaml")
    result = vito.sweep(problem, FAMILY, grid=True, backend="ray", jobs=2, output=tmp_path)
    assert statuses(result) == EXPECTED
    assert "stages" in result.rows[1]["error"]
    assert (tmp_path / "sweep.csv").is_file()
    local = vito.sweep(problem, FAMILY, grid=True, output=tmp_path, jobs=2)
    assert local.resumed == 2, "the Ray run's directories are the local run's"


def test_the_ray_example_runs(root, tmp_path):
    pytest.importorskip("ray", reason="the Ray example needs ray: pip install ray")
    run = subprocess.run(
        [sys.executable, str(root / "examples/python/ray_sweep.py"), "--samples", "2",
         "--max-iterations", "2", "--output", str(tmp_path)],
        capture_output=True, text=True, cwd=root, timeout=600,
    )
    assert run.returncode == 0, run.stderr
    assert "2 instances" in run.stdout
    assert (tmp_path / "sweep.csv").is_file()
