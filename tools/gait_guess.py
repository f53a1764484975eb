"""A kinematic gait for any floating-base legged robot: the starting trajectory (`initial_guess:
{from: …}`) of a walking problem, written from the problem file itself.

The body moves from the problem's initial `base_x` to its final one at the initial height, level,
its speed rising and falling as half cosines over the first and last `--ramp` seconds. After
`--stand` seconds standing, the feet swing in the gait's order for `--swing` seconds each group
(`trot`: the diagonal pairs in turn; `walk`: one foot at a time, hind left, front left, hind
right, front right), each lifted `--lift` on a half sine and landing where its standing offset
from the body puts it halfway through the stance that follows; the last `--stand` seconds the
robot stands again. With `--avoid-gaps` no foot lands within `--gap-margin` of a terrain gap's
opening (it lands at the nearer edge's margin instead). The legs follow by inverse kinematics
(Pinocchio, damped least squares, each sample started from the one before), so any leg geometry
works. Configurations are written, and with `--hold` the torques that would hold each sampled pose
still with the robot's weight shared by the feet within 1 cm of the ground (the solver's own rule
for its starting contact forces); without them the solver starts its torques at 0.

The feet are the problem's `contacts` (or every contact point: the URDF's collision spheres and
the problem's `contact_points`), at their standing positions in the problem's `initial.q` (which
must give every base coordinate a number or a range).

Usage: target/peer-venv/bin/python tools/gait_guess.py PROBLEM.yaml OUT.csv [--gait trot|walk]
       [--swing S] [--stand S] [--lift M] [--ramp S] [--avoid-gaps] [--gap-margin M] [--hold]
(needs numpy, PyYAML and Pinocchio: the peer checker's environment, see shared/tools/README.md)
"""

import argparse
import math
import os
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pinocchio as pin
import yaml

STEP = 0.01  # s between rows
IK_ITERATIONS, IK_DAMPING, IK_TOLERANCE = 100, 1e-6, 1e-7
LOADED = 0.01  # m: a foot this close to the ground carries weight in the `--hold` torques


def number(value):
    """A boundary value: a number, or the middle of a `[lower, upper]` range."""
    if isinstance(value, list):
        return 0.5 * (float(value[0]) + float(value[1]))
    return float(value)


def body_path(duration, ramp):
    """Forward progress in [0, 1] on a fine grid: speed rising and falling as half cosines."""
    fine = np.linspace(0.0, duration, 30001)
    r = np.clip(np.minimum(fine, duration - fine) / ramp, 0.0, 1.0)
    speed = 0.5 - 0.5 * np.cos(np.pi * r)
    s = np.concatenate([[0.0], np.cumsum(0.5 * (speed[1:] + speed[:-1]) * np.diff(fine))])
    return fine, s / s[-1]


def urdf_spheres(urdf):
    """The URDF's contact points as vito reads them: each `<collision>` sphere, named by the
    collision's name or `<link>_contact<k>` (k counting the link's spheres from 0)."""
    points = {}
    for link in ET.parse(urdf).getroot().iter("link"):
        k = 0
        for collision in link.iter("collision"):
            sphere = collision.find("geometry/sphere")
            if sphere is None:
                continue
            origin = collision.find("origin")
            xyz = [0.0, 0.0, 0.0] if origin is None else [float(v) for v in origin.get("xyz", "0 0 0").split()]
            name = collision.get("name") or f"{link.get('name')}_contact{k}"
            points[name] = {"name": name, "frame": link.get("name"), "offset": xyz,
                            "radius": float(sphere.get("radius"))}
            k += 1
    return points


class Robot:
    """The problem's robot in Pinocchio with its feet as points on frames."""

    def __init__(self, problem, folder):
        urdf = os.path.join(folder, problem["robot"])
        self.model = pin.buildModelFromUrdf(urdf, pin.JointModelFreeFlyer())
        self.data = self.model.createData()
        points = urdf_spheres(urdf)
        points.update({c["name"]: c for c in problem.get("contact_points", [])})
        names = problem.get("contacts", list(points))
        if not names:
            sys.exit("the problem declares no contact points (contact_points:)")
        self.feet = []
        for name in names:
            c = points.get(name)
            if c is None:
                sys.exit(f"contact '{name}' is not among the problem's contact_points")
            fid = self.model.getFrameId(c["frame"])
            if fid >= self.model.nframes:
                sys.exit(f"contact '{name}': no frame '{c['frame']}' in {urdf}")
            offset = np.array(c.get("offset", [0.0, 0.0, 0.0]), dtype=float)
            joints = set()
            j = self.model.frames[fid].parentJoint
            while j > 1:
                joints.add(j)
                j = self.model.parents[j]
            columns = sorted(self.model.joints[j].idx_v for j in joints)
            self.feet.append((name, fid, offset, columns, float(c.get("radius", 0.0))))

    def joint_names(self):
        """The URDF's joints, in Pinocchio's order (after the free flyer)."""
        return list(self.model.names[2:])

    def configuration(self, base, joints):
        """Pinocchio's q for a level body at `base` (x, y, z) with joint values by name."""
        q = pin.neutral(self.model)
        q[:3] = base
        for name, value in joints.items():
            jid = self.model.getJointId(name)
            q[self.model.joints[jid].idx_q] = value
        return q

    def foot(self, q, k):
        """World position of foot `k` and its Jacobian (3 × nv)."""
        _, fid, offset, _, _ = self.feet[k]
        pin.forwardKinematics(self.model, self.data, q)
        pin.updateFramePlacements(self.model, self.data)
        m = self.data.oMf[fid]
        lever = m.rotation @ offset
        jac = pin.computeFrameJacobian(self.model, self.data, q, fid, pin.LOCAL_WORLD_ALIGNED)
        return m.translation + lever, jac[:3] - pin.skew(lever) @ jac[3:]

    def reach(self, q, k, target):
        """Moves foot `k`'s leg joints in `q` so the foot is at `target`."""
        columns = self.feet[k][3]
        for _ in range(IK_ITERATIONS):
            p, jac = self.foot(q, k)
            error = target - p
            if np.linalg.norm(error) < IK_TOLERANCE:
                return q
            j = jac[:, columns]
            step = j.T @ np.linalg.solve(j @ j.T + IK_DAMPING * np.eye(3), error)
            dv = np.zeros(self.model.nv)
            dv[columns] = step
            q = pin.integrate(self.model, q, dv)
        sys.exit(f"foot '{self.feet[k][0]}' cannot reach {target} (out of the leg's reach?)")

    def holding_torques(self, q, names):
        """The joint torques, by name, that hold pose `q` at rest with the weight shared equally
        by the feet whose sphere is within `LOADED` of the ground z = 0: g(q) − Σ Jᵀf, the
        joint rows (the base rows' remainder is left to the solver)."""
        v = np.zeros(self.model.nv)
        tau = pin.rnea(self.model, self.data, q, v, v).copy()
        feet = [self.foot(q, k) for k in range(len(self.feet))]
        loaded = [jac for k, (p, jac) in enumerate(feet) if p[2] - self.feet[k][4] < LOADED]
        weight = pin.computeTotalMass(self.model) * np.linalg.norm(self.model.gravity.linear)
        for jac in loaded:
            tau -= jac.T @ np.array([0.0, 0.0, weight / len(loaded)])
        return [tau[self.model.joints[self.model.getJointId(n)].idx_v] for n in names]


def gaps_of(problem):
    """The terrain's gaps (`terrain.gaps`), none without a terrain."""
    return list((problem.get("terrain") or {}).get("gaps", []))


def avoid(x, gaps, margin):
    """A landing point `x` moved to the nearer edge's margin when it falls near a gap."""
    for g in gaps:
        lo = g["x"][0] - margin
        hi = g["x"][1] + margin
        if lo < x < hi:
            return lo if x - lo < hi - x else hi
    return x


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("problem")
    parser.add_argument("out")
    parser.add_argument("--gait", choices=["trot", "walk"], default="trot")
    parser.add_argument("--swing", type=float, default=0.2)
    parser.add_argument("--stand", type=float, default=0.2)
    parser.add_argument("--lift", type=float, default=0.04)
    parser.add_argument("--ramp", type=float, default=0.4)
    parser.add_argument("--avoid-gaps", action="store_true")
    parser.add_argument("--gap-margin", type=float, default=0.02)
    parser.add_argument("--hold", action="store_true")
    args = parser.parse_args()
    with open(args.problem) as f:
        problem = yaml.safe_load(f)
    robot = Robot(problem, os.path.dirname(os.path.abspath(args.problem)))
    start = {k: number(v) for k, v in problem["initial"]["q"].items()}
    end_x = number(problem["final"]["q"]["base_x"])
    duration = float(problem["duration"])
    base0 = np.array([start["base_x"], start["base_y"], start["base_z"]])
    joints0 = {k: v for k, v in start.items() if not k.startswith("base_")}
    q0 = robot.configuration(base0, joints0)
    stand = [robot.foot(q0, k)[0] for k in range(len(robot.feet))]
    offsets = [p - base0 for p in stand]

    # Swing groups: the feet ordered front/hind and left/right by their standing offsets.
    def corner(front, left):
        for k, o in enumerate(offsets):
            if (o[0] > 0) == front and (o[1] > 0) == left:
                return k
        sys.exit("the gait needs four feet, one at each corner of the body")

    fl, fr, hl, hr = corner(True, True), corner(True, False), corner(False, True), corner(False, False)
    groups = [[fl, hr], [fr, hl]] if args.gait == "trot" else [[hl], [fl], [hr], [fr]]
    count = int(round((duration - 2 * args.stand) / args.swing))
    fine, progress = body_path(duration, args.ramp)

    def body_x(t):
        return base0[0] + (end_x - base0[0]) * np.interp(t, fine, progress)

    gaps = gaps_of(problem) if args.avoid_gaps else []
    plans = []
    for k in range(len(robot.feet)):
        group = next(g for g, members in enumerate(groups) if k in members)
        swings = [(args.stand + i * args.swing, args.stand + (i + 1) * args.swing)
                  for i in range(count) if i % len(groups) == group]
        stances = [(0.0, swings[0][0])] + [(a[1], b[0]) for a, b in zip(swings, swings[1:])]
        stances.append((swings[-1][1], duration))
        holds = [body_x(0.0)] + [body_x(0.5 * (a + b)) for a, b in stances[1:-1]] + [body_x(duration)]
        holds = [h + offsets[k][0] for h in holds]
        holds = [holds[0]] + [avoid(h, gaps, args.gap_margin) for h in holds[1:-1]] + [holds[-1]]
        plans.append((swings, stances, holds))

    def foot_target(k, t):
        swings, stances, holds = plans[k]
        p = stand[k].copy()
        for (a, b), h in zip(stances, holds):
            if a <= t <= b:
                p[0] = h
                return p
        for i, (a, b) in enumerate(swings):
            if a < t < b:
                s = (t - a) / (b - a)
                p[0] = holds[i] + (holds[i + 1] - holds[i]) * (0.5 - 0.5 * math.cos(math.pi * s))
                p[2] += args.lift * math.sin(math.pi * s)
                return p
        return p

    names = robot.joint_names()
    times = np.arange(0.0, duration + STEP / 2, STEP)
    q = q0.copy()
    with open(args.out, "w") as out:
        base_names = ["base_x", "base_y", "base_z", "base_yaw", "base_pitch", "base_roll"]
        columns = ["q_" + n for n in base_names + names] + (["u_" + n for n in names] if args.hold else [])
        out.write("t," + ",".join(columns) + "\n")
        for t in times:
            q[0] = body_x(t)
            for k in range(len(robot.feet)):
                q = robot.reach(q, k, foot_target(k, t))
            values = [q[0], q[1], q[2], 0.0, 0.0, 0.0]
            values += [q[robot.model.joints[robot.model.getJointId(n)].idx_q] for n in names]
            if args.hold:
                values += robot.holding_torques(q, names)
            out.write(f"{t:.4f}," + ",".join(f"{v:.6f}" for v in values) + "\n")


if __name__ == "__main__":
    main()
