"""The Python package against the command line, and its own behaviour: field edits, errors,
dynamics, simulation, comparison, logs, the interpreter released while solving, the example."""

import csv
import json
import math
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import vito

SWINGUP = "problems/pendulum_swingup_2.yaml"


def read_csv(path: Path):
    """The header and the numbers of a CSV file vito wrote."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], np.array([[float(x) for x in r] for r in rows[1:]])


@pytest.fixture(scope="module")
def swingup(root):
    """The bundled swing-up, solved by the package (nothing written)."""
    return vito.solve(vito.Problem.from_file(root / SWINGUP))


def test_solve_is_the_command_line_solve(root, cli, tmp_path, swingup):
    out = tmp_path / "cli"
    done = subprocess.run([cli, "solve", SWINGUP, "-o", out], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    report = json.loads((out / "report.json").read_text())
    header, table = read_csv(out / "trajectory.csv")
    r = swingup
    assert r.status == report["status"] == "Converged"
    assert r.converged
    assert r.iterations == report["iterations"]
    assert r.objective == pytest.approx(report["objective"], rel=1e-9)
    assert r.columns == header
    assert r.table.shape == table.shape
    np.testing.assert_allclose(r.t, table[:, 0], rtol=0, atol=1e-9)
    np.testing.assert_allclose(r.q, table[:, 1:3], rtol=0, atol=1e-9)
    np.testing.assert_allclose(r.u, table[:, 5:7], rtol=0, atol=1e-9)
    # The report holds what report.json holds, the problem's hash included (same text).
    assert set(r.report) == set(report)
    assert r.report["problem_hash"] == report["problem_hash"]
    assert r.report["accuracy"] == pytest.approx(report["accuracy"], rel=1e-9)
    cli_log = (out / "solver.log").read_text().splitlines()
    assert r.log.splitlines()[0] == cli_log[0] and len(r.log.splitlines()) == len(cli_log)
    assert r.files == []


def test_output_writes_the_command_line_files(root, cli, tmp_path, swingup):
    out_cli, out_py = tmp_path / "cli", tmp_path / "py"
    subprocess.run([cli, "solve", SWINGUP, "-o", out_cli], cwd=root, check=True, capture_output=True)
    r = vito.solve(root / SWINGUP, output=out_py)
    assert sorted(p.name for p in out_py.iterdir()) == sorted(p.name for p in out_cli.iterdir())
    assert sorted(Path(f).name for f in r.files) == sorted(p.name for p in out_py.iterdir())
    for name in ["trajectory.csv", "knots.csv"]:
        assert (out_py / name).read_text() == (out_cli / name).read_text(), name
    assert (out_py / "solver.log").read_text() == r.log
    assert r.objective == swingup.objective


def effort(r):
    """∫ uᵀu dt of a result, by the trapezoid rule on its samples."""
    f = np.sum(r.u**2, axis=1)
    return float(np.sum(0.5 * (f[1:] + f[:-1]) * np.diff(r.t)))


def test_a_field_edit_takes_effect(root, swingup):
    p = vito.Problem.from_file(root / SWINGUP)
    p.data["costs"]["effort"] = 2.0
    doubled = vito.solve(p)
    # The only cost is the effort: the objective is its weight times ∫ uᵀu dt.
    assert doubled.converged
    assert swingup.objective == pytest.approx(effort(swingup), rel=1e-2)
    assert doubled.objective == pytest.approx(2.0 * effort(doubled), rel=1e-2)
    p.set("duration", 2.5)
    shorter = vito.solve(p)
    assert shorter.t[-1] == pytest.approx(2.5)
    assert swingup.t[-1] == pytest.approx(3.0)
    assert shorter.report["duration"] == 2.5
    assert shorter.objective != doubled.objective
    assert p.get("duration") == 2.5


def test_problem_from_text_and_dict(root, swingup):
    text = (root / SWINGUP).read_text()
    from_yaml = vito.Problem.from_yaml(text, base_dir=root / "problems")
    from_dict = vito.Problem.from_dict(from_yaml.data, base_dir=root / "problems")
    assert from_dict.data == from_yaml.data and from_dict.data is not from_yaml.data
    for p in (from_yaml, from_dict):
        r = p.solve()
        assert r.objective == pytest.approx(swingup.objective, rel=1e-9)
    # The text is handed over as read while the data is unchanged (same hash), not after.
    assert from_yaml.to_yaml() == text
    assert from_dict.to_yaml() != text


def test_yaml_round_trip_keeps_infinities(root):
    p = vito.Problem.from_file(root / "problems/humanoid_balance.yaml")
    bounds = p.get("constraints.0.frame_bounds.z")
    assert bounds[0] == 0.1 and math.isinf(bounds[1])
    p.set("constraints.0.frame_bounds.z", [-math.inf, 1e-7])
    p.set("name", "quote \" and ünïcode")
    again = vito.Problem.from_yaml(p.to_yaml())
    assert again.data == p.data


def test_set_and_get_name_the_path(root):
    p = vito.Problem.from_file(root / SWINGUP)
    p.set("bounds.u.1", 40)
    assert p.data["bounds"]["u"] == [-50, 40]
    p.set(("solver", "max_iterations"), 50)
    assert p.get("solver.max_iterations") == 50
    with pytest.raises(KeyError, match="costs.tracking"):
        p.set("costs.tracking.weight", 1.0)
    with pytest.raises(IndexError, match="bounds.u.5"):
        p.set("bounds.u.5", 1.0)
    with pytest.raises(IndexError, match="bounds.u.x"):
        p.get("bounds.u.x")
    with pytest.raises(KeyError, match="duration.x"):
        p.get("duration.x")


def test_bad_input_raises_vito_errors_naming_the_field(root, tmp_path):
    p = vito.Problem.from_file(root / SWINGUP)
    bad = p.copy()
    bad.set("transcription", "simpson_fast")
    with pytest.raises(vito.VitoError, match="transcription"):
        vito.solve(bad)
    bad = p.copy()
    bad.set("costs.speed", 1.0)
    with pytest.raises(vito.VitoError, match="speed"):
        vito.solve(bad)
    bad = p.copy()
    bad.set("robot", "no_such_robot.urdf")
    with pytest.raises(vito.VitoError, match="robot.*no_such_robot.urdf"):
        vito.solve(bad)
    with pytest.raises(vito.VitoError, match="method: unknown method 'fast'"):
        vito.solve(p, method="fast")
    with pytest.raises(vito.VitoError, match="qp: unknown QP backend"):
        vito.solve(p, qp="gurobi")
    with pytest.raises(vito.VitoError, match="max_iterations"):
        vito.solve(p, max_iterations=0)
    with pytest.raises(vito.VitoError, match="cannot read"):
        vito.Problem.from_file(tmp_path / "missing.yaml")
    with pytest.raises(vito.VitoError, match="broken.yaml"):
        vito.Problem.from_yaml("name: [", source="broken.yaml")
    assert issubclass(vito.VitoError, ValueError)


def test_a_solve_that_does_not_converge_returns_its_status(root):
    r = vito.solve(root / SWINGUP, method="interior_point", max_iterations=3)
    assert r.status == "MaxIterations"
    assert not r.converged
    assert r.iterations == 3
    assert r.q.shape == (601, 2)
    assert vito.solve(root / SWINGUP, time_limit_s=1e-9).status == "TimeLimit"


def test_the_package_is_typed():
    here = Path(vito.__file__).parent
    assert (here / "py.typed").is_file() and (here / "_vito.pyi").is_file()
    assert vito.VitoError.__module__ == "vito"


def test_command_line_choices(root, cli, tmp_path):
    flags = {"transcription": "hermite_simpson", "method": "sqp", "qp": "clarabel"}
    args = [a for k, v in flags.items() for a in (f"--{k}", v)]
    subprocess.run([cli, "solve", SWINGUP, *args, "-o", tmp_path], cwd=root, check=True, capture_output=True)
    report = json.loads((tmp_path / "report.json").read_text())
    r = vito.solve(root / SWINGUP, **flags)
    assert (r.transcription, r.method, r.report["qp"]) == ("hermite_simpson", "sqp", "clarabel")
    assert r.status == report["status"]
    assert r.objective == pytest.approx(report["objective"], rel=1e-9)


def test_log_goes_to_stderr_only_when_asked(root, capfd):
    p = vito.Problem.from_file(root / SWINGUP)
    quiet = vito.solve(p)
    assert capfd.readouterr().err == ""
    assert quiet.log.startswith("iter")
    vito.solve(p, log=True)
    err = capfd.readouterr().err
    assert err.startswith("solving 'pendulum_swingup_2'")
    assert quiet.log.splitlines()[0] in err.splitlines()
    assert f"Converged after {quiet.iterations} iterations" in err


def test_the_interpreter_is_free_while_solving(root):
    p = vito.Problem.from_file(root / "problems/pendulum12_reconfigure.yaml")
    done = threading.Event()
    worker = threading.Thread(target=lambda: (vito.solve(p), done.set()))
    ticks, longest, last = 0, 0.0, None
    worker.start()
    start = time.perf_counter()
    while not done.is_set():
        now = time.perf_counter()
        if last is not None:
            longest = max(longest, now - last)
        last, ticks = now, ticks + 1
        time.sleep(0.001)
    worker.join()
    elapsed = time.perf_counter() - start
    # Held by the solve, the interpreter would stop this loop for the whole solve.
    assert elapsed > 0.2
    assert longest < 0.5 * elapsed, (longest, elapsed, ticks)


def test_robot_dynamics(root):
    for urdf, base in [("robots/pendulum2.urdf", "fixed"), ("robots/planar_biped.urdf", "planar"), ("robots/quadruped.urdf", "floating")]:
        robot = vito.Robot(root / urdf, base=base)
        n = robot.dof
        assert len(robot.joint_names) == n
        rng = np.random.default_rng(7)
        q, v, tau = rng.uniform(-1, 1, n), rng.uniform(-1, 1, n), rng.uniform(-5, 5, n)
        m = robot.mass_matrix(q)
        assert m.shape == (n, n)
        np.testing.assert_allclose(m, m.T, atol=1e-12)
        assert np.linalg.eigvalsh(m).min() > 0
        a = robot.forward_dynamics(q, v, tau)
        np.testing.assert_allclose(robot.inverse_dynamics(q, v, a), tau, atol=1e-9)
        np.testing.assert_allclose(robot.bias(q, v), robot.inverse_dynamics(q, v, np.zeros(n)), atol=1e-12)
        np.testing.assert_allclose(m @ a + robot.bias(q, v), tau, atol=1e-9)


def test_robot_errors_name_the_argument(root):
    robot = vito.Robot(root / "robots/pendulum2.urdf")
    with pytest.raises(vito.VitoError, match=r"q: has 3 values but robot 'pendulum2' has 2 DoF"):
        robot.mass_matrix([0.1, 0.2, 0.3])
    with pytest.raises(vito.VitoError, match=r"tau: has 1 values"):
        robot.forward_dynamics([0, 0], [0, 0], [1.0])
    with pytest.raises(vito.VitoError, match=r"v\[1\]: must be a finite number"):
        robot.bias([0, 0], [0, math.nan])
    with pytest.raises(vito.VitoError, match="q: expected a vector"):
        robot.mass_matrix([[0.1, 0.2]])
    with pytest.raises(vito.VitoError, match="base"):
        vito.Robot(root / "robots/pendulum2.urdf", base="wheeled")
    with pytest.raises(vito.VitoError, match="nothing.urdf"):
        vito.Robot(root / "robots/nothing.urdf")


def test_simulate_is_the_command_line_simulation(root, cli, tmp_path):
    sim = "problems/sim_pendulum12.yaml"
    out = tmp_path / "cli"
    subprocess.run([cli, "simulate", sim, "--duration", "0.2", "-o", out], cwd=root, check=True, capture_output=True)
    header, table = read_csv(out / "trajectory.csv")
    r = vito.simulate(root / sim, duration=0.2)
    assert (r.status, r.failure) == ("Completed", None)
    assert r.columns == header
    np.testing.assert_allclose(r.table, table, rtol=0, atol=1e-9)
    assert r.q.shape == (21, 12) and r.energy.shape == (21,)
    with pytest.raises(vito.VitoError, match="dt"):
        vito.simulate(root / sim, dt=-1)
    with pytest.raises(vito.VitoError, match="integrator"):
        vito.simulate(root / sim, integrator="euler")


def test_simulate_with_contact_gives_forces(root):
    r = vito.simulate(root / "problems/sim_box_drop.yaml", duration=0.3)
    c = len(r.contact_points)
    assert c > 0
    assert r.forces.shape == (len(r.t), c, 3) and r.gaps.shape == (len(r.t), c)


def test_compare_solves_both_transcriptions(root, tmp_path):
    c = vito.compare(root / SWINGUP, output=tmp_path)
    assert list(c.results) == ["simpson_vi", "hermite_simpson"]
    assert c.status == "Converged"
    assert c["simpson_vi"].objective == pytest.approx(vito.solve(root / SWINGUP).objective, rel=1e-9)
    assert "| status | Converged | Converged |" in c.markdown
    assert (tmp_path / "compare.md").read_text() == c.markdown
    assert (tmp_path / "hermite_simpson" / "trajectory.csv").is_file()
    warm = vito.compare(root / SWINGUP, warm_start=True)
    assert warm.initial_guesses["hermite_simpson"].endswith("trajectory.csv")
    assert warm.files == []


def test_the_example_writes_its_plot(root, tmp_path):
    pytest.importorskip("matplotlib")
    done = subprocess.run(
        [sys.executable, root / "examples/python/solve_and_plot.py", tmp_path],
        capture_output=True, text=True, env={**os.environ, "MPLBACKEND": "Agg"},
    )
    assert done.returncode == 0, done.stderr
    assert "status Converged, objective" in done.stdout
    png = tmp_path / "pendulum_swingup_2.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
