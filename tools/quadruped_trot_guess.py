"""A kinematic trot for robots/quadruped.urdf: the starting trajectory of quadruped_walk.yaml and
quadruped_gaps.yaml (problems/README.md, "The quadruped").

The body moves 0.75 m forward in 3 s at a constant height, its speed rising and falling over the
first and last 0.4 s; after 0.2 s standing, the diagonal pairs (fl + hr, fr + hl) swing in turn
for 0.2 s each, their feet lifted 2.5 cm on a half sine, and each foot lands under its hip as
it will be halfway through the stance that follows; the last 0.2 s the robot stands again. With
`--gaps` no foot lands within 2 cm of the gaps of quadruped_gaps.yaml (it lands at the nearer
edge's margin instead). The legs follow by the planar inverse kinematics of hip pitch and knee
(hip roll 0). Only configurations are written: the solver starts its torques at 0 and its
contact forces from the gaps.

Usage: python3 tools/quadruped_trot_guess.py [--gaps] OUT.csv   (needs numpy)
"""

import sys

import numpy as np

DURATION, DISTANCE, RAMP = 3.0, 0.75, 0.4   # s, m, s
STAND, SWING, LIFT = 0.2, 0.2, 0.025        # s, s, m
HEIGHT, THIGH, SHANK, HIP_X, FOOT_RADIUS = 0.16, 0.0751, 0.102, 0.101, 0.01   # m (the URDF's)
GAPS, GAP_MARGIN = [(0.15, 0.23), (0.40, 0.48)], 0.02   # m (quadruped_gaps.yaml)
STEP = 0.01   # s between rows


def _body_path():
    """Forward position on a fine grid: a speed that rises and falls as half cosines over RAMP."""
    fine = np.linspace(0.0, DURATION, 30001)
    ramp = np.clip(np.minimum(fine, DURATION - fine) / RAMP, 0.0, 1.0)
    speed = 0.5 - 0.5 * np.cos(np.pi * ramp)
    x = np.concatenate([[0.0], np.cumsum(0.5 * (speed[1:] + speed[:-1]) * np.diff(fine))])
    return fine, x * DISTANCE / x[-1]


BODY_T, BODY_X = _body_path()


def body_x(t):
    """The body's forward position at `t`."""
    return np.interp(t, BODY_T, BODY_X)


def avoid_gaps(x):
    for g0, g1 in GAPS:
        lo, hi = g0 - GAP_MARGIN, g1 + GAP_MARGIN
        if lo < x < hi:
            return lo if x - lo < hi - x else hi
    return x


def leg(t, xb, front, pair, gaps):
    """Hip pitch and knee of one leg: `front` is +1 or -1, `pair` 0 or 1 (which swings first)."""
    count = int(round((DURATION - 2 * STAND) / SWING))
    swings = [(STAND + k * SWING, STAND + (k + 1) * SWING) for k in range(count) if k % 2 == pair]
    stances = [(0.0, swings[0][0])] + [(a[1], b[0]) for a, b in zip(swings, swings[1:])]
    stances.append((swings[-1][1], DURATION))
    holds = [body_x(0.0)] + [body_x(0.5 * (a + b)) for a, b in stances[1:-1]] + [body_x(DURATION)]
    holds = [h + front * HIP_X for h in holds]
    if gaps:
        holds = [holds[0]] + [avoid_gaps(h) for h in holds[1:-1]] + [holds[-1]]
    fx, fz = np.zeros_like(t), np.full_like(t, FOOT_RADIUS)
    for (a, b), h in zip(stances, holds):
        fx[(t >= a) & (t <= b)] = h
    for k, (a, b) in enumerate(swings):
        inside = (t > a) & (t < b)
        s = (t[inside] - a) / (b - a)
        fx[inside] = holds[k] + (holds[k + 1] - holds[k]) * (0.5 - 0.5 * np.cos(np.pi * s))
        fz[inside] = FOOT_RADIUS + LIFT * np.sin(np.pi * s)
    # The foot relative to the hip pitch axis, and the two-link inverse kinematics (positive
    # angles swing the lower end backwards; front knees bend forwards, hind knees backwards).
    x, z = fx - (xb + front * HIP_X), fz - HEIGHT
    cos_knee = (x * x + z * z - THIGH ** 2 - SHANK ** 2) / (2 * THIGH * SHANK)
    if np.any(np.abs(cos_knee) > 1.0):
        sys.exit("a foothold is out of the leg's reach")
    knee = -front * np.arccos(cos_knee)
    pitch = np.arctan2(-x, -z) - np.arctan2(SHANK * np.sin(knee), THIGH + SHANK * np.cos(knee))
    return pitch, knee


def main():
    args = sys.argv[1:]
    gaps = "--gaps" in args
    paths = [a for a in args if a != "--gaps"]
    if len(paths) != 1:
        sys.exit(__doc__)
    t = np.arange(0.0, DURATION + STEP / 2, STEP)
    xb = body_x(t)
    columns = {"base_x": xb, "base_y": 0 * t, "base_z": 0 * t + HEIGHT, "base_yaw": 0 * t,
               "base_pitch": 0 * t, "base_roll": 0 * t}
    for name, front, pair in [("fl", 1, 0), ("fr", 1, 1), ("hl", -1, 1), ("hr", -1, 0)]:
        pitch, knee = leg(t, xb, front, pair, gaps)
        columns.update({f"{name}_hip_roll": 0 * t, f"{name}_hip_pitch": pitch, f"{name}_knee": knee})
    with open(paths[0], "w") as out:
        out.write("t," + ",".join("q_" + c for c in columns) + "\n")
        for i, ti in enumerate(t):
            out.write(f"{ti:.4f}," + ",".join(f"{columns[c][i]:.6f}" for c in columns) + "\n")


if __name__ == "__main__":
    main()
