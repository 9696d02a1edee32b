#!/usr/bin/env python
"""Independent Blender/Cycles renderer of dice on the A3 marker sheet (evaluation only).

Shares no code with scanner/synth and imports nothing from scanner/.  Needs only
bpy, numpy and the standard library:

    /tmp/bpyvenv/bin/python benchmarks/blender/render_table.py --out DIR --scenes N --seed S \
        [--samples 24] [--size 1280x720] [--start K] [--kind mixed]

Renders scene indices K .. K+N-1.  Each scene writes NNNN_ref.png/.json (one die of
each seated colour in its swatch square) and NNNN.png/.json (the game frame).  A frame
whose PNG and JSON both exist is skipped, so rerunning the same command resumes.
Everything random for scene i comes from numpy.random.default_rng((seed, i)).
See README.md beside this file for the output format.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

# isort: off
import bpy  # bpy must be imported before bmesh, bpy_extras and mathutils exist
import bmesh
from bpy_extras.object_utils import world_to_camera_view
from mathutils import Matrix, Vector

# isort: on

warnings.filterwarnings("ignore", category=DeprecationWarning)

REPO = Path(__file__).resolve().parents[2]
SHEET_PNG = REPO / "calibration" / "markers-a3.png"
LAYOUT_JSON = REPO / "calibration" / "layout.json"

MM = 0.001  # Blender world units are metres
PAPER_Z = 0.0002  # top of the paper above the table (m)
SENSOR_W = 36.0  # mm, horizontal sensor fit

PLAYER_COLOURS = ["grey", "brown", "blue", "green", "yellow"]
DEFAULT_SWATCHES = {
    "size": 24,
    "positions": [
        {"color": "grey", "center": [72, 222]},
        {"color": "brown", "center": [112, 222]},
        {"color": "blue", "center": [152, 222]},
        {"color": "green", "center": [192, 222]},
        {"color": "yellow", "center": [232, 222]},
    ],
}
BUILDINGS = ["templum", "senatus", "castrum", "latrina"]
TABLE_KINDS = ["light-wood", "mid-wood", "dark-wood", "cloth", "white", "artwork"]
TABLE_WEIGHTS = [0.18, 0.16, 0.18, 0.2, 0.12, 0.16]
KIND_CHOICES = ["mixed", "dark-wood", "light-wood", "mid-wood", "cloth", "white", "artwork"]


# --------------------------------------------------------------------------- colour


def srgb_to_linear(c):
    c = np.clip(np.asarray(c, dtype=float), 0.0, 1.0)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


# Player body shade ranges (sRGB endpoints, our own choice): each scene picks one
# point between the two ends (interpolated in linear light) per colour.
PLAYER_SHADES = {
    "grey": [(0.82, 0.83, 0.84), (0.29, 0.31, 0.35)],  # light silver-grey .. dark slate
    "brown": [(0.78, 0.60, 0.41), (0.33, 0.19, 0.10)],  # tan .. chocolate
    "blue": [(0.42, 0.67, 0.93), (0.11, 0.21, 0.66)],  # sky .. royal
    "green": [(0.56, 0.80, 0.22), (0.09, 0.40, 0.17)],  # lime-ish .. forest
    "yellow": [(0.98, 0.93, 0.32), (0.96, 0.68, 0.09)],  # lemon .. golden amber
}
# Colours that are none of the five, with their readable pip colour.
OTHER_SHADES = {
    "white": ((0.94, 0.94, 0.93), "black"),
    "ivory": ((0.93, 0.89, 0.75), "black"),
    "black": ((0.06, 0.06, 0.07), "white"),
    "red": ((0.78, 0.07, 0.08), "white"),
    "orange": ((0.97, 0.46, 0.07), "black"),
    "purple": ((0.41, 0.15, 0.57), "white"),
    "pink": ((0.96, 0.57, 0.72), "black"),
}
PIP_RGB = {"white": (0.86, 0.86, 0.84), "black": (0.018, 0.018, 0.02)}  # linear


# --------------------------------------------------------------------------- layout / board mapping


def load_layout(path=LAYOUT_JSON):
    d = json.loads(Path(path).read_text())
    board = d.get("board", {})
    zones = d["zones"]
    out = {
        "width": float(board.get("width", 420)),
        "height": float(board.get("height", 297)),
        "die": float(d.get("die_size", 16)),
        "markers": d["markers"],
        "buildings": {b: [float(v) for v in zones[b]["rect"]] for b in BUILDINGS if b in zones},
        "pedestals": [
            [float(v) for v in p["rect"]] for p in zones.get("forum", {}).get("pedestals", [])
        ],
        "swatches": d.get("swatches") or DEFAULT_SWATCHES,
    }
    return out


class Sheet:
    """The one place that maps board millimetres to Blender world metres.

    Board mm: origin at the sheet's top-left corner, x to the right, y DOWN (as printed).
    World: metres, z up, table top at z=0.  The sheet's centre lies at (cx, cy) and the
    sheet is turned by theta (radians, counter-clockwise seen from above) about +z.
    Board +x maps to world direction (cos t, sin t); board +y (down the page) maps to
    world direction (sin t, -cos t), i.e. the top edge of the page faces world +y at t=0.
    """

    def __init__(self, width_mm, height_mm, cx, cy, theta):
        self.w, self.h = width_mm, height_mm
        self.cx, self.cy, self.theta = cx, cy, theta
        self.c, self.s = math.cos(theta), math.sin(theta)

    def board_to_world(self, x_mm, y_mm, z=PAPER_Z):
        u = (x_mm - self.w / 2) * MM
        v = -(y_mm - self.h / 2) * MM
        return Vector((self.cx + self.c * u - self.s * v, self.cy + self.s * u + self.c * v, z))

    def world_to_board(self, wx, wy):
        dx, dy = wx - self.cx, wy - self.cy
        u = self.c * dx + self.s * dy
        v = -self.s * dx + self.c * dy
        return (u / MM + self.w / 2, -v / MM + self.h / 2)

    def contains(self, x_mm, y_mm, margin=0.0):
        return margin <= x_mm <= self.w - margin and margin <= y_mm <= self.h - margin

    @property
    def up_world(self):  # direction of the page's top edge (board -y)
        return Vector((-self.s, self.c, 0.0))


def in_rect(x, y, r, margin=0.0):
    return r[0] + margin <= x <= r[2] - margin and r[1] + margin <= y <= r[3] - margin


def marker_rects(layout):
    half = layout["markers"]["size"] / 2
    return [
        (
            p["id"],
            [
                p["center"][0] - half,
                p["center"][1] - half,
                p["center"][0] + half,
                p["center"][1] + half,
            ],
        )
        for p in layout["markers"]["positions"]
    ]


def swatch_rects(layout):
    sw = layout["swatches"]
    half = float(sw.get("size", 24)) / 2
    return [
        (
            p["color"],
            [
                p["center"][0] - half,
                p["center"][1] - half,
                p["center"][0] + half,
                p["center"][1] + half,
            ],
        )
        for p in sw["positions"]
    ]


# ------------------------------------------------------------- scene description (pure numpy)


def sample_table(rng, kind):
    if kind == "mixed":
        kind = TABLE_KINDS[
            rng.choice(len(TABLE_KINDS), p=np.array(TABLE_WEIGHTS) / sum(TABLE_WEIGHTS))
        ]
    p = {"kind": kind}
    jit = lambda c, a=0.04: np.clip(np.asarray(c) * (1 + rng.uniform(-a, a, 3)), 0, 1)  # noqa: E731
    if kind.endswith("wood"):
        hues = {
            "light-wood": [
                ("birch", (0.82, 0.66, 0.46), (0.68, 0.49, 0.30)),
                ("maple", (0.86, 0.71, 0.52), (0.72, 0.56, 0.37)),
                ("pine", (0.84, 0.64, 0.40), (0.66, 0.44, 0.24)),
                ("ash", (0.78, 0.70, 0.56), (0.62, 0.53, 0.40)),
            ],
            "mid-wood": [
                ("oak", (0.60, 0.41, 0.24), (0.43, 0.27, 0.14)),
                ("cherry", (0.57, 0.33, 0.20), (0.40, 0.20, 0.11)),
                ("teak", (0.55, 0.38, 0.20), (0.38, 0.24, 0.11)),
            ],
            "dark-wood": [
                ("walnut", (0.31, 0.19, 0.11), (0.17, 0.10, 0.05)),
                ("wenge", (0.25, 0.16, 0.10), (0.11, 0.07, 0.04)),
                ("mahogany", (0.36, 0.16, 0.10), (0.19, 0.07, 0.05)),
                ("stained-oak", (0.28, 0.20, 0.13), (0.14, 0.09, 0.06)),
            ],
        }[kind]
        name, a, b = hues[rng.integers(len(hues))]
        p.update(
            detail=name,
            light=srgb_to_linear(jit(a)),
            dark=srgb_to_linear(jit(b)),
            grain_scale=rng.uniform(18, 45),
            distortion=rng.uniform(3, 10),
            angle=rng.uniform(0, math.pi),
            stretch=rng.uniform(0.05, 0.15),
            rough=rng.uniform(0.3, 0.65),
            coat=rng.uniform(0, 0.6),
            planks=bool(rng.random() < 0.4),
            plank_w=rng.uniform(0.09, 0.2),
            profile=("SIN", "SAW")[rng.integers(2)],
        )
    elif kind == "cloth":
        cols = [
            ("green", (0.13, 0.40, 0.21)),
            ("green", (0.06, 0.30, 0.15)),
            ("red", (0.58, 0.08, 0.10)),
            ("burgundy", (0.38, 0.06, 0.10)),
            ("navy", (0.08, 0.12, 0.30)),
            ("grey", (0.45, 0.45, 0.46)),
            ("dark-grey", (0.22, 0.22, 0.24)),
            ("blue", (0.13, 0.28, 0.52)),
            ("beige", (0.66, 0.58, 0.46)),
        ]
        name, c = cols[rng.integers(len(cols))]
        p.update(
            detail=name,
            color=srgb_to_linear(jit(c, 0.06)),
            fibre=rng.uniform(1500, 3500),
            mottle=rng.uniform(8, 30),
            sheen=rng.uniform(0.3, 1.0),
        )
    elif kind == "white":
        w = rng.uniform(0.84, 0.93)
        tint = np.array([1.0, 1.0, 1.0]) + rng.uniform(-0.02, 0.02, 3)
        p.update(
            detail="laminate",
            color=srgb_to_linear(np.clip(w * tint, 0, 1)),
            rough=rng.uniform(0.2, 0.45),
            speckle=rng.uniform(200, 600),
        )
    elif kind == "artwork":
        n = int(rng.integers(4, 7))
        pal = [srgb_to_linear(rng.uniform(0.05, 0.95, 3)) for _ in range(n)]
        p.update(
            detail="print",
            palette=pal,
            positions=sorted(rng.uniform(0, 1, n - 1).tolist()),
            cell=rng.uniform(6, 25),
            noise_scale=rng.uniform(3, 12),
            noise_mix=rng.uniform(0.15, 0.45),
            lines=bool(rng.random() < 0.6),
            line_w=rng.uniform(0.01, 0.04),
            rough=rng.uniform(0.35, 0.7),
        )
    else:
        raise ValueError(kind)
    return p


def look_at_rotation(cam, target, up_hint, roll):
    fwd = (target - cam).normalized()
    up_hint = Matrix.Rotation(roll, 3, fwd) @ up_hint
    right = fwd.cross(up_hint).normalized()
    up = right.cross(fwd).normalized()
    m = Matrix((right, up, -fwd)).transposed()  # columns: camera x, y, z (looks down -z)
    return m


def project_np(points, cam_loc, rot3, focal, W, H):
    """Own pinhole projection (pixel coords, y down) used while sampling the camera."""
    out = []
    for p in points:
        pc = rot3.transposed() @ (Vector(p) - cam_loc)
        if pc.z >= -1e-6:
            out.append((float("nan"), float("nan")))
            continue
        k = focal / SENSOR_W * W / (-pc.z)
        out.append((W / 2 + pc.x * k, H / 2 - pc.y * k))
    return np.array(out)


def sample_camera(rng, sheet, layout, W, H):
    corners = [
        sheet.board_to_world(x, y)
        for x, y in [(0, 0), (sheet.w, 0), (sheet.w, sheet.h), (0, sheet.h)]
    ]
    mk = []
    for _, r in marker_rects(layout):
        mk += [
            sheet.board_to_world(x, y)
            for x, y in [(r[0], r[1]), (r[2], r[1]), (r[2], r[3]), (r[0], r[3])]
        ]
    allow_crop = rng.random() < 0.08
    flip = rng.random() < 0.25
    best = None
    for _attempt in range(400):
        h = rng.uniform(0.45, 0.80)
        tilt = math.radians(rng.uniform(0, 30) if rng.random() < 0.85 else rng.uniform(0, 4))
        yaw = sheet.theta + (math.pi if flip else 0.0) + math.radians(rng.uniform(-6, 6))
        up_hint = Vector((-math.sin(yaw), math.cos(yaw), 0.0))
        if rng.random() < 0.7:
            az = Matrix.Rotation(math.radians(rng.uniform(-40, 40)), 3, "Z") @ (-up_hint)
        else:
            a = rng.uniform(0, 2 * math.pi)
            az = Vector((math.cos(a), math.sin(a), 0.0))
        roll = math.radians(rng.uniform(-3, 3))
        fill = rng.uniform(0.6, 0.9)
        tx, ty = sheet.w / 2 + rng.uniform(-20, 20), sheet.h / 2 + rng.uniform(-15, 15)
        target = sheet.board_to_world(tx, ty)
        cam = target + az * ((h - PAPER_Z) * math.tan(tilt))
        cam.z = h
        rot = look_at_rotation(cam, target, up_hint, roll)
        f0 = 30.0
        pc = project_np(corners, cam, rot, f0, W, H)
        if np.isnan(pc).any():
            continue
        fill0 = max(np.ptp(pc[:, 0]) / W, np.ptp(pc[:, 1]) / H)
        focal = f0 * fill / fill0
        if not 24.0 <= focal <= 40.0:
            continue
        pm = project_np(mk, cam, rot, focal, W, H).reshape(-1, 4, 2)
        m = 6
        inside = np.all(
            (pm[..., 0] >= m) & (pm[..., 0] <= W - m) & (pm[..., 1] >= m) & (pm[..., 1] <= H - m),
            axis=1,
        )
        if inside.sum() == 8 or (allow_crop and inside.sum() >= 6):
            best = dict(
                loc=cam,
                rot=rot,
                focal=focal,
                height=h,
                tilt=tilt,
                roll=roll,
                yaw=yaw,
                fill=fill,
                markers_inside=int(inside.sum()),
            )
            break
    if best is None:  # fall back to a safe straight-down view
        h = 0.62
        target = sheet.board_to_world(sheet.w / 2, sheet.h / 2)
        cam = Vector((target.x, target.y, h))
        yaw = sheet.theta
        rot = look_at_rotation(
            cam, target + Vector((0, 1e-6, 0)), Vector((-math.sin(yaw), math.cos(yaw), 0)), 0.0
        )
        pc = project_np(corners, cam, rot, 30.0, W, H)
        fill0 = max(np.ptp(pc[:, 0]) / W, np.ptp(pc[:, 1]) / H)
        best = dict(
            loc=cam,
            rot=rot,
            focal=30.0 * 0.75 / fill0,
            height=h,
            tilt=0.0,
            roll=0.0,
            yaw=yaw,
            fill=0.75,
            markers_inside=8,
        )
    return best


def sample_light(rng, sheet):
    kelvin = float(rng.uniform(2700, 6500))
    exposure = float(2 ** rng.uniform(-1.6, 0.5))  # 1.0 = white paper at about 0.7 linear
    world = float(rng.uniform(0.03, 0.2))
    centre = sheet.board_to_world(sheet.w / 2, sheet.h / 2, 0.0)
    hard = rng.random() < 0.25
    n = int(rng.integers(1, 3))
    weights = rng.dirichlet(np.ones(n) * 2.0) if n > 1 else np.ones(1)
    lights = []
    for i in range(n):
        kind = "SUN" if hard and i == 0 else ("AREA" if rng.random() < 0.65 else "POINT")
        elev = math.radians(rng.uniform(35, 75) if kind == "SUN" else rng.uniform(45, 88))
        azim = rng.uniform(0, 2 * math.pi)
        dist = rng.uniform(0.9, 2.2)
        d = Vector(
            (math.cos(azim) * math.cos(elev), math.sin(azim) * math.cos(elev), math.sin(elev))
        )
        lights.append(
            dict(
                type=kind,
                dir=d,
                dist=dist,
                loc=centre + d * dist,
                weight=float(weights[i]),
                size=float(rng.uniform(0.15, 1.0)),
                radius=float(rng.uniform(0.01, 0.08)),
                angle=float(math.radians(rng.uniform(0.3, 2.0))),
                kelvin=float(np.clip(kelvin + rng.normal(0, 150), 2500, 7000)),
            )
        )
    # The webcam's auto white balance removes part of the colour cast (in mired):
    # fraction 0 leaves the D65 render as is, 1 would neutralise the light fully.
    wb_frac = float(rng.uniform(0.4, 0.95))
    m65, mk = 1e6 / 6500.0, 1e6 / kelvin
    wb_k = 1e6 / (m65 + wb_frac * (mk - m65))
    return dict(
        kelvin=kelvin,
        strength=exposure,
        world=world,
        hard=hard,
        lights=lights,
        wb_k=wb_k,
        wb_frac=wb_frac,
    )


def sample_die_set(rng, colour, other=False, size=16.0):
    """One set of dice made alike: shape, pips and material; body shade per scene."""
    if other:
        base, pip = OTHER_SHADES[colour]
        body = srgb_to_linear(np.clip(np.asarray(base) * (1 + rng.uniform(-0.03, 0.03, 3)), 0, 1))
    else:
        a, b = (srgb_to_linear(e) for e in PLAYER_SHADES[colour])
        t = rng.uniform(0, 1)
        body = a + (b - a) * t
        body = np.clip(body * (1 + rng.uniform(-0.04, 0.04, 3)), 0.002, 1)
        pip = "white" if rng.random() < 0.5 else "black"
    bevel = rng.uniform(1.0, 2.5)
    pip_r = rng.uniform(1.25, 1.6) * size / 16
    grid = min(rng.uniform(3.9, 4.4) * size / 16, size / 2 - bevel * 0.6 - pip_r)
    grid = max(grid, 2 * pip_r + 0.6)
    return dict(
        colour=colour,
        other=other,
        body=body,
        pip=pip,
        size=size,
        bevel=bevel,
        pip_style="concave" if rng.random() < 0.7 else "flat",
        pip_r=pip_r,
        grid=grid,
        pip_depth=rng.uniform(0.45, 0.8),
        big_one=bool(rng.random() < 0.3),
        rough=rng.uniform(0.2, 0.5),
        spec=rng.uniform(0.35, 0.6),
        coat=rng.uniform(0.1, 0.3) if rng.random() < 0.3 else 0.0,
        material="plastic",
        sss=0.0,
        marble=None,
    )


# Canonical die: value -> outward face normal (opposite faces sum to 7).
FACE_NORMALS = {
    1: (0, 0, 1),
    6: (0, 0, -1),
    2: (1, 0, 0),
    5: (-1, 0, 0),
    3: (0, 1, 0),
    4: (0, -1, 0),
}
# Rotation that brings face `value` to +z.
UP_ROT = {
    1: Matrix.Identity(3),
    6: Matrix.Rotation(math.pi, 3, "X"),
    2: Matrix.Rotation(-math.pi / 2, 3, "Y"),
    5: Matrix.Rotation(math.pi / 2, 3, "Y"),
    3: Matrix.Rotation(math.pi / 2, 3, "X"),
    4: Matrix.Rotation(-math.pi / 2, 3, "X"),
}


def pip_layout(value, g):
    c, tl, tr, bl, br = (0, 0), (-g, g), (g, g), (-g, -g), (g, -g)
    return {
        1: [c],
        2: [tl, br],
        3: [tl, c, br],
        4: [tl, tr, bl, br],
        5: [tl, tr, bl, br, c],
        6: [tl, (-g, 0), bl, tr, (g, 0), br],
    }[value]


def die_pose(rng, value, centre_xy, base_z, size, bevel, tilt_p=0.1, allow_tilt=True):
    yaw = rng.uniform(0, 2 * math.pi)
    tilt = 0.0
    axis = Vector((1, 0, 0))
    if allow_tilt and rng.random() < tilt_p:
        tilt = math.radians(rng.uniform(2.5, 8.0))
        a = rng.uniform(0, 2 * math.pi)
        axis = Vector((math.cos(a), math.sin(a), 0))
    R = Matrix.Rotation(tilt, 3, axis) @ Matrix.Rotation(yaw, 3, "Z") @ UP_ROT[value]
    top = R @ Vector(FACE_NORMALS[value])
    assert top.z > 0.95, (value, top)
    # lowest point of a rounded box: inner box support + bevel radius
    b, r = (size / 2 - bevel) * MM, bevel * MM
    d = R.transposed() @ Vector((0, 0, -1))
    support = b * (abs(d.x) + abs(d.y) + abs(d.z)) + r
    loc = Vector((centre_xy[0], centre_xy[1], base_z + support))
    return dict(R=R, loc=loc, yaw=yaw, tilt=tilt)


class Placer:
    """Keeps die centres (world xy, m) apart."""

    def __init__(self, min_dist_mm=18.0):
        self.pts = []
        self.d = min_dist_mm * MM

    def free(self, p):
        return all((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2 >= self.d**2 for q in self.pts)

    def add(self, p):
        self.pts.append((p[0], p[1]))


def sample_dice(rng, layout, sheet, cam, W, H):
    half = layout["die"] / 2
    margin = 9.0
    n_players = int(rng.integers(2, 6))
    players = sorted(
        rng.choice(PLAYER_COLOURS, n_players, replace=False).tolist(), key=PLAYER_COLOURS.index
    )
    sets = {c: sample_die_set(rng, c, size=layout["die"]) for c in players}
    # 20 % of scenes: one colour translucent or marbled
    if rng.random() < 0.2:
        c = players[rng.integers(len(players))]
        if rng.random() < 0.5:
            sets[c].update(material="translucent", sss=float(rng.uniform(0.3, 0.7)))
        else:
            sets[c].update(
                material="marbled",
                marble=dict(
                    scale=float(rng.uniform(60, 160)),
                    amount=float(rng.uniform(0.25, 0.55)),
                    light=bool(rng.random() < 0.6),
                ),
            )
    n_total = int(rng.integers(6, 21))
    n_loose = int(rng.integers(0, 4))
    n_forum = int(rng.integers(0, min(len(layout["pedestals"]), 6) + 1))
    n_forum = min(n_forum, n_total - n_loose)
    n_build = n_total - n_loose - n_forum
    colours = list(players) + [
        players[i] for i in rng.integers(0, n_players, max(0, n_total - n_players))
    ]
    colours = [colours[i] for i in rng.permutation(len(colours))][:n_total]

    markers = [r for _, r in marker_rects(layout)]
    swatches = [r for _, r in swatch_rects(layout)]
    zone_rects = list(layout["buildings"].values()) + layout["pedestals"]

    placer = Placer(18.0)
    dice = []

    def add(colour, xy_world, base_z, building, pedestal, other=False):
        s = sets[colour] if not other else other_sets[colour]
        value = int(rng.integers(1, 7))
        pose = die_pose(rng, value, xy_world, base_z, s["size"], s["bevel"])
        bx, by = sheet.world_to_board(*xy_world)
        on = sheet.contains(bx, by)
        dice.append(
            dict(
                value=value,
                colour=None if other else colour,
                set=colour,
                pose=pose,
                center_mm=[round(bx, 2), round(by, 2)] if on else None,
                building=building,
                pedestal=pedestal,
            )
        )
        placer.add(xy_world)

    # building dice
    names = list(layout["buildings"])
    areas = np.array([(r[2] - r[0]) * (r[3] - r[1]) for r in layout["buildings"].values()])
    ci = 0
    for _ in range(n_build):
        colour = colours[ci]
        done = False
        for b in rng.choice(names, len(names), replace=False, p=areas / areas.sum()):
            r = layout["buildings"][b]
            for _ in range(200):
                x, y = (
                    rng.uniform(r[0] + margin, r[2] - margin),
                    rng.uniform(r[1] + margin, r[3] - margin),
                )
                wp = sheet.board_to_world(x, y)
                if placer.free(wp):
                    add(colour, (wp.x, wp.y), PAPER_Z, str(b), None)
                    done = True
                    break
            if done:
                break
        ci += 1
    # forum pedestals
    for pi in sorted(rng.choice(len(layout["pedestals"]), n_forum, replace=False).tolist()):
        r = layout["pedestals"][pi]
        x = (r[0] + r[2]) / 2 + rng.uniform(-1.5, 1.5)
        y = (r[1] + r[3]) / 2 + rng.uniform(-1.5, 1.5)
        wp = sheet.board_to_world(x, y)
        if placer.free(wp):
            add(colours[ci], (wp.x, wp.y), PAPER_Z, "forum", int(pi))
        ci += 1

    def frame_ok(wp, z=PAPER_Z, m=20):
        p = project_np(
            [Vector((wp[0], wp[1], z + half * MM))], cam["loc"], cam["rot"], cam["focal"], W, H
        )[0]
        return m <= p[0] <= W - m and m <= p[1] <= H - m

    def sheet_spot_free(x, y, avoid_zones=True):
        if not sheet.contains(x, y, margin):
            return False
        if any(in_rect(x, y, r, -half - 6) for r in markers + swatches):
            return False
        return not (avoid_zones and any(in_rect(x, y, r, -half - 2) for r in zone_rects))

    # loose dice: on the sheet outside zones, or on the table off the sheet
    for _ in range(n_loose):
        colour = colours[ci] if ci < len(colours) else players[0]
        ci += 1
        off = rng.random() < 0.5
        for _ in range(300):
            if off:
                side = rng.integers(4)
                out = rng.uniform(15, 70)
                if side == 0:
                    x, y = rng.uniform(0, sheet.w), -out
                elif side == 1:
                    x, y = rng.uniform(0, sheet.w), sheet.h + out
                elif side == 2:
                    x, y = -out, rng.uniform(0, sheet.h)
                else:
                    x, y = sheet.w + out, rng.uniform(0, sheet.h)
                wp = sheet.board_to_world(x, y, 0.0)
                if placer.free(wp) and frame_ok(wp, 0.0):
                    add(colour, (wp.x, wp.y), 0.0, None, None)
                    break
            else:
                x, y = rng.uniform(margin, sheet.w - margin), rng.uniform(margin, sheet.h - margin)
                wp = sheet.board_to_world(x, y)
                if sheet_spot_free(x, y) and placer.free(wp):
                    add(colour, (wp.x, wp.y), PAPER_Z, None, None)
                    break

    # other-colour dice: anywhere on the sheet
    n_other = int(rng.integers(0, 4))
    other_names = list(OTHER_SHADES)
    other_sets = {}
    for _ in range(n_other):
        oc = other_names[rng.integers(len(other_names))]
        if oc not in other_sets:
            other_sets[oc] = sample_die_set(rng, oc, other=True, size=layout["die"])
        for _ in range(300):
            x, y = rng.uniform(margin, sheet.w - margin), rng.uniform(margin, sheet.h - margin)
            wp = sheet.board_to_world(x, y)
            if not sheet_spot_free(x, y, avoid_zones=False) or not placer.free(wp):
                continue
            building, pedestal = None, None
            for b, r in layout["buildings"].items():
                if in_rect(x, y, r):
                    building = b
            for pi, r in enumerate(layout["pedestals"]):
                if in_rect(x, y, r):
                    building, pedestal = "forum", pi
            if (
                building is not None
                and building != "forum"
                and not in_rect(x, y, layout["buildings"][building], margin)
            ):
                continue  # straddling a building's border: ambiguous label, try again
            if building == "forum":
                r = layout["pedestals"][pedestal]
                x, y = (r[0] + r[2]) / 2, (r[1] + r[3]) / 2
                wp = sheet.board_to_world(x, y)
                if not placer.free(wp):
                    continue
            add(oc, (wp.x, wp.y), PAPER_Z, building, pedestal, other=True)
            break

    # reference frame: one die per seated colour centred in its swatch square
    ref = []
    for c, r in swatch_rects(layout):
        if c not in players:
            continue
        x, y = (r[0] + r[2]) / 2, (r[1] + r[3]) / 2
        wp = sheet.board_to_world(x, y)
        value = int(rng.integers(1, 7))
        pose = die_pose(
            rng, value, (wp.x, wp.y), PAPER_Z, sets[c]["size"], sets[c]["bevel"], allow_tilt=False
        )
        ref.append(
            dict(
                value=value,
                colour=c,
                set=c,
                pose=pose,
                center_mm=[round(x, 2), round(y, 2)],
                building="swatch",
                pedestal=None,
            )
        )
    # tiny per-die body variation
    for d in dice + ref:
        s = sets[d["set"]] if d["colour"] is not None else other_sets[d["set"]]
        d["body"] = np.clip(s["body"] * (1 + rng.normal(0, 0.012, 3)), 0.001, 1.0)
        d["pip"] = s["pip"]
        d["set_params"] = s
    return players, sets, other_sets, dice, ref


def coins_item(rng, c):
    """2-4 coins in a heap around board point `c` (world x, y): (blocking circles, item)."""
    coins = []
    for _k in range(int(rng.integers(2, 5))):
        rr = rng.uniform(8, 13) * MM
        for _t in range(50):
            p = (c.x + rng.uniform(-0.04, 0.04), c.y + rng.uniform(-0.04, 0.04))
            if all(
                (p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2 > (rr + q[2] + 1 * MM) ** 2 for q in coins
            ):
                coins.append((p[0], p[1], rr))
                break
    circ = [(x, y, r + 1 * MM) for x, y, r in coins]
    item = dict(
        kind="coins",
        coins=coins,
        metal=[("gold", "copper", "silver")[i] for i in rng.integers(0, 3, len(coins))],
        thick=[float(rng.uniform(1.5, 2.3) * MM) for _ in coins],
    )
    return circ, item


def pencil_item(rng, c, yaw):
    """A pencil lying at `c`, turned by `yaw`: (blocking circles along it, item)."""
    cs, sn = math.cos(yaw), math.sin(yaw)
    L = rng.uniform(0.14, 0.18)
    circ = [(c.x + cs * u, c.y + sn * u, 5 * MM) for u in np.linspace(-L / 2, L / 2, 30)]
    item = dict(
        kind="pencil",
        loc=(c.x, c.y),
        yaw=yaw,
        length=L,
        paint=[
            (0.95, 0.72, 0.05),
            (0.75, 0.06, 0.05),
            (0.1, 0.25, 0.6),
            (0.1, 0.45, 0.2),
            (0.12, 0.12, 0.12),
        ][int(rng.integers(5))],
    )
    return circ, item


def sample_distractors(rng, layout, sheet, dice_xy):
    """0-2 of: card, coins, pencil.  Footprints are circles (world xy, m) kept off dice."""
    kinds = ["card", "coins", "pencil"]
    n = int(rng.choice([0, 1, 2], p=[0.35, 0.4, 0.25]))
    chosen = [kinds[i] for i in rng.choice(3, n, replace=False)]
    blocked = [(x, y, 12.5 * MM) for x, y in dice_xy]
    for _, r in marker_rects(layout) + swatch_rects(layout):
        for gx in np.linspace(r[0] + 4, r[2] - 4, 4):
            for gy in np.linspace(r[1] + 4, r[3] - 4, 4):
                p = sheet.board_to_world(gx, gy)
                blocked.append((p.x, p.y, 7 * MM))
    out = []

    def clear(circles):
        return all(
            (a - x) ** 2 + (b - y) ** 2 >= (ra + rb) ** 2
            for a, b, ra in circles
            for x, y, rb in blocked
        )

    for kind in chosen:
        for _ in range(300):
            bx, by = rng.uniform(-40, sheet.w + 40), rng.uniform(-40, sheet.h + 40)
            c = sheet.board_to_world(bx, by)
            yaw = rng.uniform(0, 2 * math.pi)
            cs, sn = math.cos(yaw), math.sin(yaw)
            if kind == "card":
                w, h = 63 * MM, 88 * MM
                circ = [
                    (c.x + cs * u - sn * v, c.y + sn * u + cs * v, 6.5 * MM)
                    for u in np.linspace(-w / 2 + 5 * MM, w / 2 - 5 * MM, 5)
                    for v in np.linspace(-h / 2 + 5 * MM, h / 2 - 5 * MM, 7)
                ]
                item = dict(
                    kind="card",
                    loc=(c.x, c.y),
                    yaw=yaw,
                    rank=int(rng.integers(2, 11)),
                    red=bool(rng.random() < 0.5),
                    size=(w, h),
                )
            elif kind == "coins":
                circ, item = coins_item(rng, c)
            else:
                circ, item = pencil_item(rng, c, yaw)
            if clear(circ):
                blocked.extend(circ)
                out.append(item)
                break
    return out


# --------------------------------------------------------------------------- Blender building


def new_material(name):
    m = bpy.data.materials.new(name)
    m.use_nodes = True
    return m


def bsdf_of(m):
    return next(n for n in m.node_tree.nodes if n.type == "BSDF_PRINCIPLED")


def node(nt, kind, **props):
    n = nt.nodes.new(kind)
    for k, v in props.items():
        setattr(n, k, v)
    return n


def link(nt, a, b):
    nt.links.new(a, b)


def rgba(c):
    c = list(c)
    return (c[0], c[1], c[2], 1.0)


def plastic_material(name, colour, s, pip=False):
    m = new_material(name)
    b = bsdf_of(m)
    b.inputs["Base Color"].default_value = rgba(colour)
    b.inputs["Roughness"].default_value = s["rough"] if not pip else 0.45
    b.inputs["Specular IOR Level"].default_value = s["spec"]
    b.inputs["IOR"].default_value = 1.5
    if not pip:
        b.inputs["Coat Weight"].default_value = s["coat"]
        b.inputs["Coat Roughness"].default_value = 0.15
        if s["material"] == "translucent":
            b.inputs["Subsurface Weight"].default_value = s["sss"]
            b.inputs["Subsurface Radius"].default_value = (1.0, 0.8, 0.6)
            b.inputs["Subsurface Scale"].default_value = 0.004
        elif s["material"] == "marbled":
            nt = m.node_tree
            tc = node(nt, "ShaderNodeTexCoord")
            nz = node(nt, "ShaderNodeTexNoise")
            nz.inputs["Scale"].default_value = s["marble"]["scale"]
            nz.inputs["Detail"].default_value = 6.0
            nz.inputs["Distortion"].default_value = 4.0
            link(nt, tc.outputs["Object"], nz.inputs["Vector"])
            ramp = node(nt, "ShaderNodeValToRGB")
            base = np.asarray(colour)
            swirl = base + (1 - base) * 0.6 if s["marble"]["light"] else base * 0.35
            amt = s["marble"]["amount"]
            ramp.color_ramp.elements[0].position = 0.5 - amt * 0.2
            ramp.color_ramp.elements[0].color = rgba(base)
            ramp.color_ramp.elements[1].position = 0.5 + amt * 0.1
            ramp.color_ramp.elements[1].color = rgba(swirl)
            link(nt, nz.outputs["Fac"], ramp.inputs["Fac"])
            link(nt, ramp.outputs["Color"], b.inputs["Base Color"])
    return m


def build_die_mesh(name, s):
    a = s["size"] * MM
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=a)
    bmesh.ops.bevel(
        bm,
        geom=list(bm.edges),
        offset=s["bevel"] * MM,
        offset_type="OFFSET",
        segments=5,
        profile=0.5,
        affect="EDGES",
        clamp_overlap=True,
    )
    for f in bm.faces:  # big faces flat, rounded edges smooth
        n = f.normal
        f.smooth = max(abs(n.x), abs(n.y), abs(n.z)) < 0.999
    body = bpy.data.meshes.new(name + "_body")
    bm.to_mesh(body)
    bm.free()
    body.materials.append(bpy.data.materials.get("__body__") or bpy.data.materials.new("__body__"))

    cut = bmesh.new()
    for value, nrm in FACE_NORMALS.items():
        n = Vector(nrm)
        rot = Vector((0, 0, 1)).rotation_difference(n).to_matrix().to_4x4()
        if value == 6 and s.get("emblem"):  # the maker's mark engraved instead of six pips
            # A plus (or, turned, a cross) of three bars that do not overlap: the long one and
            # a half on either side of it, a hair apart (the boolean wants a clean cutter).
            depth, h, L, w, g = 0.35 * MM, 2.0 * MM, 0.62 * a, 0.13 * a, 0.02 * MM
            half = (L - w) / 2 - g
            turn = 0.0 if s["emblem"] == "plus" else math.pi / 4
            for cx, cy, sx, sy in (
                (0.0, 0.0, L, w),
                (0.0, w / 2 + g + half / 2, w, half),
                (0.0, -(w / 2 + g + half / 2), w, half),
            ):
                bmesh.ops.create_cube(
                    cut,
                    size=1.0,
                    matrix=rot
                    @ Matrix.Rotation(turn, 4, "Z")
                    @ Matrix.Translation(Vector((cx, cy, a / 2 - depth + h / 2)))
                    @ Matrix.Diagonal((sx, sy, h, 1.0)),
                )
            continue
        for u, v in pip_layout(value, s["grid"] * MM):
            rp = s["pip_r"] * MM * (1.35 if value == 1 and s["big_one"] else 1.0)
            local = Vector((u, v, 0))
            if s["pip_style"] == "concave":
                d = s["pip_depth"] * MM
                rs = (rp * rp + d * d) / (2 * d)
                centre = Vector((u, v, a / 2 + rs - d))
                bmesh.ops.create_uvsphere(
                    cut,
                    u_segments=28,
                    v_segments=14,
                    radius=rs,
                    matrix=rot @ Matrix.Translation(centre),
                )
            else:
                depth = 0.25 * MM
                h = 2.0 * MM
                centre = local + Vector((0, 0, a / 2 - depth + h / 2))
                bmesh.ops.create_cone(
                    cut,
                    cap_ends=True,
                    cap_tris=False,
                    segments=28,
                    radius1=rp,
                    radius2=rp,
                    depth=h,
                    matrix=rot @ Matrix.Translation(centre),
                )
    for f in cut.faces:
        f.smooth = True
    cutme = bpy.data.meshes.new(name + "_cut")
    cut.to_mesh(cutme)
    cut.free()
    cutme.materials.append(bpy.data.materials.get("__pip__") or bpy.data.materials.new("__pip__"))

    sc = bpy.context.scene
    ob = bpy.data.objects.new(name + "_tmp", body)
    oc = bpy.data.objects.new(name + "_cutobj", cutme)
    sc.collection.objects.link(ob)
    sc.collection.objects.link(oc)
    md = ob.modifiers.new("pips", "BOOLEAN")
    md.object, md.operation, md.solver, md.material_mode = oc, "DIFFERENCE", "EXACT", "TRANSFER"
    dg = bpy.context.evaluated_depsgraph_get()
    mesh = bpy.data.meshes.new_from_object(ob.evaluated_get(dg))
    mesh.name = name
    bpy.data.objects.remove(ob)
    bpy.data.objects.remove(oc)
    bpy.data.meshes.remove(body)
    bpy.data.meshes.remove(cutme)
    assert len(mesh.materials) == 2, [m.name for m in mesh.materials]
    return mesh


def add_object(name, data, matrix=None):
    ob = bpy.data.objects.new(name, data)
    bpy.context.scene.collection.objects.link(ob)
    if matrix is not None:
        ob.matrix_world = matrix
    return ob


def build_table(p):
    bm = bmesh.new()
    bmesh.ops.create_grid(bm, x_segments=1, y_segments=1, size=2.0)
    me = bpy.data.meshes.new("table")
    bm.to_mesh(me)
    bm.free()
    m = new_material("table")
    nt = m.node_tree
    b = bsdf_of(m)
    tc = node(nt, "ShaderNodeTexCoord")
    kind = p["kind"]
    if kind.endswith("wood"):
        rot = node(nt, "ShaderNodeMapping")
        rot.inputs["Rotation"].default_value = (0, 0, p["angle"])
        link(nt, tc.outputs["Object"], rot.inputs["Vector"])
        st = node(nt, "ShaderNodeMapping")
        st.inputs["Scale"].default_value = (1.0, p["stretch"], 1.0)
        link(nt, rot.outputs["Vector"], st.inputs["Vector"])
        wave = node(
            nt,
            "ShaderNodeTexWave",
            wave_type="BANDS",
            bands_direction="X",
            wave_profile=p["profile"],
        )
        wave.inputs["Scale"].default_value = p["grain_scale"]
        wave.inputs["Distortion"].default_value = p["distortion"]
        wave.inputs["Detail"].default_value = 4.0
        wave.inputs["Detail Scale"].default_value = 1.5
        link(nt, st.outputs["Vector"], wave.inputs["Vector"])
        ramp = node(nt, "ShaderNodeValToRGB")
        ramp.color_ramp.elements[0].color = rgba(p["dark"])
        ramp.color_ramp.elements[1].color = rgba(p["light"])
        ramp.color_ramp.elements[0].position = 0.0
        ramp.color_ramp.elements[1].position = 1.0
        link(nt, wave.outputs["Fac"], ramp.inputs["Fac"])
        nz = node(nt, "ShaderNodeTexNoise")
        nz.inputs["Scale"].default_value = 4.0
        nz.inputs["Detail"].default_value = 3.0
        link(nt, st.outputs["Vector"], nz.inputs["Vector"])
        nzr = node(nt, "ShaderNodeValToRGB")
        nzr.color_ramp.elements[0].color = (0.8, 0.8, 0.8, 1)
        nzr.color_ramp.elements[1].color = (1.1, 1.1, 1.1, 1)
        link(nt, nz.outputs["Fac"], nzr.inputs["Fac"])
        mul = node(nt, "ShaderNodeMixRGB", blend_type="MULTIPLY")
        mul.inputs["Fac"].default_value = 1.0
        link(nt, ramp.outputs["Color"], mul.inputs["Color1"])
        link(nt, nzr.outputs["Color"], mul.inputs["Color2"])
        col = mul.outputs["Color"]
        if p["planks"]:
            br = node(nt, "ShaderNodeTexBrick")
            br.inputs["Scale"].default_value = 1.0
            br.inputs["Brick Width"].default_value = 1.3
            br.inputs["Row Height"].default_value = p["plank_w"]
            br.inputs["Mortar Size"].default_value = 0.0012
            br.inputs["Color1"].default_value = (1, 1, 1, 1)
            br.inputs["Color2"].default_value = (0.92, 0.92, 0.92, 1)
            br.inputs["Mortar"].default_value = (0.25, 0.25, 0.25, 1)
            rot2 = node(nt, "ShaderNodeMapping")
            rot2.inputs["Rotation"].default_value = (0, 0, p["angle"] + math.pi / 2)
            link(nt, tc.outputs["Object"], rot2.inputs["Vector"])
            link(nt, rot2.outputs["Vector"], br.inputs["Vector"])
            mul2 = node(nt, "ShaderNodeMixRGB", blend_type="MULTIPLY")
            mul2.inputs["Fac"].default_value = 1.0
            link(nt, col, mul2.inputs["Color1"])
            link(nt, br.outputs["Color"], mul2.inputs["Color2"])
            col = mul2.outputs["Color"]
        link(nt, col, b.inputs["Base Color"])
        b.inputs["Roughness"].default_value = p["rough"]
        b.inputs["Coat Weight"].default_value = p["coat"]
        b.inputs["Coat Roughness"].default_value = 0.1
        bump = node(nt, "ShaderNodeBump")
        bump.inputs["Strength"].default_value = 0.08
        bump.inputs["Distance"].default_value = 0.0002
        link(nt, wave.outputs["Fac"], bump.inputs["Height"])
        link(nt, bump.outputs["Normal"], b.inputs["Normal"])
    elif kind == "cloth":
        fine = node(nt, "ShaderNodeTexNoise")
        fine.inputs["Scale"].default_value = p["fibre"]
        fine.inputs["Detail"].default_value = 2.0
        link(nt, tc.outputs["Object"], fine.inputs["Vector"])
        mot = node(nt, "ShaderNodeTexNoise")
        mot.inputs["Scale"].default_value = p["mottle"]
        mot.inputs["Detail"].default_value = 3.0
        link(nt, tc.outputs["Object"], mot.inputs["Vector"])
        base = np.asarray(p["color"])
        r1 = node(nt, "ShaderNodeValToRGB")
        r1.color_ramp.elements[0].color = rgba(base * 0.8)
        r1.color_ramp.elements[1].color = rgba(np.clip(base * 1.18, 0, 1))
        r1.color_ramp.elements[0].position = 0.3
        r1.color_ramp.elements[1].position = 0.7
        link(nt, fine.outputs["Fac"], r1.inputs["Fac"])
        r2 = node(nt, "ShaderNodeValToRGB")
        r2.color_ramp.elements[0].color = (0.9, 0.9, 0.9, 1)
        r2.color_ramp.elements[1].color = (1.07, 1.07, 1.07, 1)
        link(nt, mot.outputs["Fac"], r2.inputs["Fac"])
        mul = node(nt, "ShaderNodeMixRGB", blend_type="MULTIPLY")
        mul.inputs["Fac"].default_value = 1.0
        link(nt, r1.outputs["Color"], mul.inputs["Color1"])
        link(nt, r2.outputs["Color"], mul.inputs["Color2"])
        link(nt, mul.outputs["Color"], b.inputs["Base Color"])
        b.inputs["Roughness"].default_value = 1.0
        b.inputs["Specular IOR Level"].default_value = 0.2
        b.inputs["Sheen Weight"].default_value = p["sheen"]
        b.inputs["Sheen Roughness"].default_value = 0.5
        b.inputs["Sheen Tint"].default_value = rgba(np.clip(base * 1.6 + 0.1, 0, 1))
        bump = node(nt, "ShaderNodeBump")
        bump.inputs["Strength"].default_value = 0.3
        bump.inputs["Distance"].default_value = 0.0002
        link(nt, fine.outputs["Fac"], bump.inputs["Height"])
        link(nt, bump.outputs["Normal"], b.inputs["Normal"])
    elif kind == "white":
        nz = node(nt, "ShaderNodeTexNoise")
        nz.inputs["Scale"].default_value = p["speckle"]
        link(nt, tc.outputs["Object"], nz.inputs["Vector"])
        r = node(nt, "ShaderNodeValToRGB")
        base = np.asarray(p["color"])
        r.color_ramp.elements[0].color = rgba(base * 0.96)
        r.color_ramp.elements[1].color = rgba(np.clip(base * 1.03, 0, 1))
        link(nt, nz.outputs["Fac"], r.inputs["Fac"])
        link(nt, r.outputs["Color"], b.inputs["Base Color"])
        b.inputs["Roughness"].default_value = p["rough"]
    elif kind == "artwork":
        vor = node(nt, "ShaderNodeTexVoronoi")
        vor.inputs["Scale"].default_value = p["cell"]
        link(nt, tc.outputs["Object"], vor.inputs["Vector"])
        sep = node(nt, "ShaderNodeSeparateColor")
        link(nt, vor.outputs["Color"], sep.inputs["Color"])
        ramp = node(nt, "ShaderNodeValToRGB")
        cr = ramp.color_ramp
        cr.interpolation = "CONSTANT"
        cr.elements[0].position = 0.0
        cr.elements[0].color = rgba(p["palette"][0])
        cr.elements[1].position = p["positions"][0]
        cr.elements[1].color = rgba(p["palette"][1])
        for pos, col in zip(p["positions"][1:], p["palette"][2:], strict=True):
            e = cr.elements.new(pos)
            e.color = rgba(col)
        link(nt, sep.outputs["Red"], ramp.inputs["Fac"])
        nz = node(nt, "ShaderNodeTexNoise")
        nz.inputs["Scale"].default_value = p["noise_scale"]
        nz.inputs["Detail"].default_value = 4.0
        link(nt, tc.outputs["Object"], nz.inputs["Vector"])
        mix = node(nt, "ShaderNodeMixRGB", blend_type="OVERLAY")
        mix.inputs["Fac"].default_value = p["noise_mix"]
        link(nt, ramp.outputs["Color"], mix.inputs["Color1"])
        link(nt, nz.outputs["Color"], mix.inputs["Color2"])
        col = mix.outputs["Color"]
        if p["lines"]:
            edge = node(nt, "ShaderNodeTexVoronoi", feature="DISTANCE_TO_EDGE")
            edge.inputs["Scale"].default_value = p["cell"]
            link(nt, tc.outputs["Object"], edge.inputs["Vector"])
            lt = node(nt, "ShaderNodeMath", operation="GREATER_THAN")
            lt.inputs[1].default_value = p["line_w"]
            link(nt, edge.outputs["Distance"], lt.inputs[0])
            mul = node(nt, "ShaderNodeMixRGB", blend_type="MULTIPLY")
            mul.inputs["Fac"].default_value = 0.9
            link(nt, col, mul.inputs["Color1"])
            link(nt, lt.outputs["Value"], mul.inputs["Color2"])
            col = mul.outputs["Color"]
        link(nt, col, b.inputs["Base Color"])
        b.inputs["Roughness"].default_value = p["rough"]
    me.materials.append(m)
    add_object("table", me)


def build_sheet(sheet, img_path, rng_paper):
    bm = bmesh.new()
    uv = bm.loops.layers.uv.new("UVMap")
    # board corners -> UV: top-left (0,0)mm -> (0,1); bottom-right (w,h)mm -> (1,0)
    pts = [(0, 0), (sheet.w, 0), (sheet.w, sheet.h), (0, sheet.h)]
    verts = [bm.verts.new(sheet.board_to_world(x, y)) for x, y in pts]
    f = bm.faces.new(verts)
    if f.normal.z < 0:
        f.normal_flip()
    for loop in f.loops:
        x, y = sheet.world_to_board(loop.vert.co.x, loop.vert.co.y)
        loop[uv].uv = (x / sheet.w, 1.0 - y / sheet.h)
    me = bpy.data.meshes.new("sheet")
    bm.to_mesh(me)
    bm.free()
    m = new_material("paper")
    nt = m.node_tree
    b = bsdf_of(m)
    img = bpy.data.images.load(str(img_path), check_existing=True)
    img.colorspace_settings.name = "sRGB"
    tex = node(nt, "ShaderNodeTexImage", interpolation="Cubic", extension="EXTEND")
    tex.image = img
    tcn = node(nt, "ShaderNodeTexCoord")
    link(nt, tcn.outputs["UV"], tex.inputs["Vector"])
    mix = node(nt, "ShaderNodeMixRGB", blend_type="MIX")
    tint, ink, rough = rng_paper
    mix.inputs["Color1"].default_value = rgba(ink)
    mix.inputs["Color2"].default_value = rgba(tint)
    link(nt, tex.outputs["Color"], mix.inputs["Fac"])
    link(nt, mix.outputs["Color"], b.inputs["Base Color"])
    b.inputs["Roughness"].default_value = rough
    b.inputs["Specular IOR Level"].default_value = 0.25
    nz = node(nt, "ShaderNodeTexNoise")
    nz.inputs["Scale"].default_value = 900.0
    link(nt, tcn.outputs["Object"], nz.inputs["Vector"])
    bump = node(nt, "ShaderNodeBump")
    bump.inputs["Strength"].default_value = 0.04
    bump.inputs["Distance"].default_value = 0.0001
    link(nt, nz.outputs["Fac"], bump.inputs["Height"])
    link(nt, bump.outputs["Normal"], b.inputs["Normal"])
    me.materials.append(m)
    add_object("sheet", me)


def build_camera(cam, W, H):
    data = bpy.data.cameras.new("camera")
    data.lens = cam["focal"]
    data.sensor_width = SENSOR_W
    data.sensor_fit = "HORIZONTAL"
    data.clip_start = 0.02
    data.clip_end = 20.0
    data.dof.use_dof = False
    ob = add_object("camera", data)
    ob.matrix_world = Matrix.Translation(cam["loc"]) @ cam["rot"].to_4x4()
    bpy.context.scene.camera = ob
    return ob


# Lights are sized from the irradiance they give at the sheet centre (W/m^2, Blender
# units).  LIGHT_GAIN was set by a calibration render so that exposure ("strength")
# 1.0 puts the paper at about 0.7 linear (sRGB ~220) under neutral light.
LIGHT_GAIN = 3.0


def build_lights(L, sheet):
    centre = sheet.board_to_world(sheet.w / 2, sheet.h / 2, 0.0)
    world = bpy.data.worlds.new("world")
    world.use_nodes = True
    nt = world.node_tree
    bg = next(n for n in nt.nodes if n.type == "BACKGROUND")
    bb = node(nt, "ShaderNodeBlackbody")
    bb.inputs["Temperature"].default_value = L["kelvin"]
    link(nt, bb.outputs["Color"], bg.inputs["Color"])
    bg.inputs["Strength"].default_value = L["world"] * L["strength"]
    bpy.context.scene.world = world
    vs = bpy.context.scene.view_settings
    vs.use_white_balance = True
    vs.white_balance_temperature = L["wb_k"]
    target_e = LIGHT_GAIN * L["strength"]
    info = []
    for i, lt in enumerate(L["lights"]):
        e = target_e * lt["weight"]
        d = lt["dir"]
        cos_in = max(d.z, 0.2)
        if lt["type"] == "SUN":
            data = bpy.data.lights.new(f"light{i}", "SUN")
            data.energy = e / cos_in
            data.angle = lt["angle"]
        elif lt["type"] == "AREA":
            data = bpy.data.lights.new(f"light{i}", "AREA")
            data.shape = "SQUARE"
            data.size = lt["size"]
            data.energy = e * math.pi * lt["dist"] ** 2 / cos_in
        else:
            data = bpy.data.lights.new(f"light{i}", "POINT")
            data.shadow_soft_size = lt["radius"]
            data.energy = e * 4 * math.pi * lt["dist"] ** 2 / cos_in
        data.use_temperature = True
        data.temperature = lt["kelvin"]
        data.color = (1, 1, 1)
        ob = add_object(f"light{i}", data)
        loc = centre + d * lt["dist"]
        rot = (-d).to_track_quat("-Z", "Y").to_matrix().to_4x4()
        ob.matrix_world = Matrix.Translation(loc) @ rot
        info.append(
            dict(
                type=lt["type"].lower(),
                kelvin=round(lt["kelvin"]),
                power=round(data.energy, 3),
                elevation_deg=round(math.degrees(math.asin(d.z)), 1),
                distance_mm=None if lt["type"] == "SUN" else round(lt["dist"] / MM),
            )
        )
    return info


def build_die(name, d, mesh, pip_mats):
    ob = add_object(name, mesh)
    s = d["set_params"]
    body = plastic_material(name + "_body", d["body"], s)
    for slot in ob.material_slots:
        slot.link = "OBJECT"
    ob.material_slots[0].material = body
    ob.material_slots[1].material = pip_mats[(id(s), d["pip"])]
    ob.matrix_world = Matrix.Translation(d["pose"]["loc"]) @ d["pose"]["R"].to_4x4()
    return ob


def metal_material(name, kind):
    cols = {"gold": (0.95, 0.72, 0.32), "copper": (0.90, 0.50, 0.32), "silver": (0.90, 0.90, 0.88)}
    m = new_material(name)
    b = bsdf_of(m)
    b.inputs["Base Color"].default_value = rgba(cols[kind])
    b.inputs["Metallic"].default_value = 1.0
    b.inputs["Roughness"].default_value = 0.32
    return m


def simple_material(name, colour, rough=0.5, spec=0.5):
    m = new_material(name)
    b = bsdf_of(m)
    b.inputs["Base Color"].default_value = rgba(colour)
    b.inputs["Roughness"].default_value = rough
    b.inputs["Specular IOR Level"].default_value = spec
    return m


def build_distractors(items):
    for i, it in enumerate(items):
        if it["kind"] == "card":
            w, h = it["size"]
            bm = bmesh.new()
            bmesh.ops.create_grid(bm, x_segments=1, y_segments=1, size=0.5)
            bmesh.ops.scale(bm, vec=(w, h, 1), verts=bm.verts)
            bmesh.ops.bevel(bm, geom=list(bm.verts), offset=3.2 * MM, segments=5, affect="VERTICES")
            me = bpy.data.meshes.new("card")
            bm.to_mesh(me)
            bm.free()
            me.materials.append(simple_material("card", (0.83, 0.82, 0.78), 0.45, 0.4))
            z = PAPER_Z + 0.3 * MM
            M = Matrix.Translation((it["loc"][0], it["loc"][1], z)) @ Matrix.Rotation(
                it["yaw"], 4, "Z"
            )
            card = add_object(f"card{i}", me, M)
            ink = simple_material(
                "ink", (0.6, 0.03, 0.04) if it["red"] else (0.02, 0.02, 0.02), 0.5, 0.3
            )
            txt = str(it["rank"])
            for tx, ty, size, flip in [
                (0, 0, 30, False),
                (-w / 2 + 7 * MM, h / 2 - 9 * MM, 9, False),
                (w / 2 - 7 * MM, -h / 2 + 9 * MM, 9, True),
            ]:
                cu = bpy.data.curves.new("digit", "FONT")
                cu.body = txt
                cu.size = size * MM
                cu.align_x, cu.align_y = "CENTER", "CENTER"
                cu.materials.append(ink)
                ob = add_object(f"card{i}_txt", cu)
                ob.parent = card
                ob.matrix_parent_inverse = Matrix.Identity(4)
                ob.matrix_basis = Matrix.Translation((tx, ty, 0.05 * MM)) @ Matrix.Rotation(
                    math.pi if flip else 0, 4, "Z"
                )
        elif it["kind"] == "coins":
            for k, ((x, y, r), metal, t) in enumerate(
                zip(it["coins"], it["metal"], it["thick"], strict=True)
            ):
                bm = bmesh.new()
                bmesh.ops.create_cone(bm, cap_ends=True, segments=48, radius1=r, radius2=r, depth=t)
                bmesh.ops.bevel(
                    bm, geom=list(bm.edges), offset=0.25 * MM, segments=2, affect="EDGES"
                )
                for f in bm.faces:
                    f.smooth = abs(f.normal.z) < 0.99
                me = bpy.data.meshes.new("coin")
                bm.to_mesh(me)
                bm.free()
                me.materials.append(metal_material("coin", metal))
                add_object(f"coin{i}_{k}", me, Matrix.Translation((x, y, PAPER_Z + t / 2)))
        else:  # pencil along local x, a flat face down
            L = it["length"]
            r = 3.7 * MM
            ap = r * math.cos(math.pi / 6)
            bm = bmesh.new()
            mats = [
                simple_material("paint", srgb_to_linear(it["paint"]), 0.35, 0.5),
                simple_material("wood", srgb_to_linear((0.85, 0.68, 0.48)), 0.7, 0.3),
                simple_material("graphite", (0.03, 0.03, 0.03), 0.35, 0.6),
                metal_material("ferrule", "silver"),
                simple_material("eraser", srgb_to_linear((0.92, 0.55, 0.55)), 0.8, 0.3),
            ]

            def ring(x, scale, bm=bm, r=r):
                return [
                    bm.verts.new((x, scale * r * math.cos(a), scale * r * math.sin(a)))
                    for a in [math.pi / 6 + k * math.pi / 3 for k in range(6)]
                ]

            x0 = -L / 2
            rings = [
                (x0, 1.0, 4),
                (x0 + 6 * MM, 1.0, 3),
                (x0 + 14 * MM, 1.0, 0),
                (L / 2 - 20 * MM, 1.0, 1),
                (L / 2 - 3 * MM, 0.28, 2),
                (L / 2, 0.02, None),
            ]
            vr = [ring(x, s_) for x, s_, _ in rings]
            cap = bm.faces.new(list(reversed(vr[0])))
            cap.material_index = 4
            for j in range(len(vr) - 1):
                for k in range(6):
                    fc = bm.faces.new(
                        [vr[j][k], vr[j][(k + 1) % 6], vr[j + 1][(k + 1) % 6], vr[j + 1][k]]
                    )
                    fc.material_index = rings[j][2]
            bm.faces.new(vr[-1]).material_index = 2
            bmesh.ops.recalc_face_normals(bm, faces=bm.faces)
            me = bpy.data.meshes.new("pencil")
            bm.to_mesh(me)
            bm.free()
            for m in mats:
                me.materials.append(m)
            M = Matrix.Translation((it["loc"][0], it["loc"][1], PAPER_Z + ap)) @ Matrix.Rotation(
                it["yaw"], 4, "Z"
            )
            add_object(f"pencil{i}", me, M)


# --------------------------------------------------------------------------- labels


def project(scene, cam_ob, p, W, H):
    v = world_to_camera_view(scene, cam_ob, Vector(p))
    return (v.x * W, (1.0 - v.y) * H, v.z)


def die_label(scene, cam_ob, d, W, H):
    s = d["set_params"]
    a = s["size"] * MM / 2
    R, loc = d["pose"]["R"], d["pose"]["loc"]
    corners = [
        loc + R @ Vector((sx * a, sy * a, sz * a))
        for sx in (-1, 1)
        for sy in (-1, 1)
        for sz in (-1, 1)
    ]
    pts = [project(scene, cam_ob, c, W, H) for c in corners]
    inside = [0 <= x <= W and 0 <= y <= H and z > 0 for x, y, z in pts]
    xs = [p[0] for p in pts]
    ys = [p[1] for p in pts]
    bbox = [max(0.0, min(xs)), max(0.0, min(ys)), min(float(W), max(xs)), min(float(H), max(ys))]
    top = project(scene, cam_ob, loc + R @ (Vector(FACE_NORMALS[d["value"]]) * a), W, H)
    return {
        "value": d["value"],
        "color": d["colour"],
        "body": [round(float(c), 4) for c in d["body"]],
        "pip": d["pip"],
        "center_mm": d["center_mm"],
        "building": d["building"],
        "pedestal": d["pedestal"],
        "bbox": [round(v, 1) for v in bbox],
        "top": [round(top[0], 1), round(top[1], 1)],
        "visible": sum(inside) / 8.0,
        "set": d["set"],
        "material": s["material"],
        "bevel_mm": round(s["bevel"], 2),
        "pip_style": s["pip_style"],
        "yaw_deg": round(math.degrees(d["pose"]["yaw"]) % 360, 1),
        "tilt_deg": round(math.degrees(d["pose"]["tilt"]), 1),
    }


def marker_labels(scene, cam_ob, sheet, layout, W, H):
    out = []
    for mid, r in marker_rects(layout):
        cs = [
            project(scene, cam_ob, sheet.board_to_world(x, y), W, H)
            for x, y in [(r[0], r[1]), (r[2], r[1]), (r[2], r[3]), (r[0], r[3])]
        ]
        c = project(scene, cam_ob, sheet.board_to_world((r[0] + r[2]) / 2, (r[1] + r[3]) / 2), W, H)
        out.append(
            {
                "id": mid,
                "center": [round(c[0], 2), round(c[1], 2)],
                "corners": [[round(x, 2), round(y, 2)] for x, y, _ in cs],
            }
        )
    return out


# --------------------------------------------------------------------------- render


@contextlib.contextmanager
def quiet(logfile):
    """Send Blender's own stdout/stderr chatter (C level) to a log file."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    fd = os.open(logfile, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    try:
        yield
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(saved[0], 1)
        os.dup2(saved[1], 2)
        os.close(fd)
        os.close(saved[0])
        os.close(saved[1])


def setup_render(W, H, samples, seed):
    sc = bpy.context.scene
    sc.render.engine = "CYCLES"
    sc.cycles.device = "CPU"
    sc.cycles.samples = samples
    sc.cycles.use_adaptive_sampling = True
    sc.cycles.adaptive_threshold = 0.02
    sc.cycles.use_denoising = True
    try:
        sc.cycles.denoiser = "OPENIMAGEDENOISE"
        sc.cycles.denoising_prefilter = "FAST"  # ACCURATE costs ~3x the path tracing on 2 cores
        sc.cycles.denoising_quality = "BALANCED"
    except (TypeError, AttributeError):
        pass
    sc.cycles.seed = seed
    sc.cycles.max_bounces = 6
    sc.cycles.diffuse_bounces = 3
    sc.cycles.glossy_bounces = 3
    sc.cycles.transmission_bounces = 4
    sc.cycles.transparent_max_bounces = 4
    sc.cycles.caustics_reflective = False
    sc.cycles.caustics_refractive = False
    sc.cycles.sample_clamp_indirect = 10.0
    sc.render.resolution_x, sc.render.resolution_y = W, H
    sc.render.resolution_percentage = 100
    sc.render.film_transparent = False
    sc.render.use_motion_blur = False
    sc.view_settings.view_transform = "Standard"
    sc.view_settings.look = "None"
    sc.view_settings.exposure = 0.0
    sc.view_settings.gamma = 1.0
    sc.display_settings.display_device = "sRGB"
    im = sc.render.image_settings
    im.file_format = "PNG"
    im.color_mode = "RGB"
    im.color_depth = "8"
    im.compression = 15
    return sc


def render_to(path, log):
    sc = bpy.context.scene
    tmp = str(path) + ".part.png"
    sc.render.filepath = tmp
    with quiet(log):
        bpy.ops.render.render(write_still=True)
    os.replace(tmp, path)


def write_json(path, obj):
    tmp = str(path) + ".part"
    Path(tmp).write_text(json.dumps(obj, indent=1))
    os.replace(tmp, path)


def frame_done(out, stem):
    return (out / f"{stem}.png").exists() and (out / f"{stem}.json").exists()


def render_scene(idx, args, layout, W, H):
    out = Path(args.out)
    stem = f"{idx:04d}"
    if frame_done(out, stem) and frame_done(out, stem + "_ref"):
        return None
    t0 = time.time()
    rng = np.random.default_rng((args.seed, idx))
    table = sample_table(rng, args.kind)
    sheet = Sheet(
        layout["width"],
        layout["height"],
        rng.uniform(-0.08, 0.08),
        rng.uniform(-0.06, 0.06),
        math.radians(rng.uniform(-5, 5)),
    )
    tone = rng.uniform(0.86, 0.95)
    paper = (
        srgb_to_linear(np.clip(tone * (1 + rng.uniform(-0.02, 0.02, 3)), 0, 1)),
        srgb_to_linear([0.07, 0.07, 0.075]) * rng.uniform(0.8, 1.3),
        float(rng.uniform(0.7, 0.9)),
    )
    cam = sample_camera(rng, sheet, layout, W, H)
    light = sample_light(rng, sheet)
    players, sets, other_sets, dice, ref = sample_dice(rng, layout, sheet, cam, W, H)
    distractors = sample_distractors(
        rng, layout, sheet, [tuple(d["pose"]["loc"][:2]) for d in dice + ref]
    )
    render_seed = int(rng.integers(0, 2**31 - 1))

    bpy.ops.wm.read_factory_settings(use_empty=True)
    sc = setup_render(W, H, args.samples, render_seed)
    build_table(table)
    build_sheet(sheet, SHEET_PNG, paper)
    cam_ob = build_camera(cam, W, H)
    light_info = build_lights(light, sheet)
    build_distractors(distractors)

    meshes, pip_mats = {}, {}
    all_sets = list(sets.values()) + list(other_sets.values())
    for k, s in enumerate(all_sets):
        meshes[id(s)] = build_die_mesh(f"dieset{k}", s)
        for pc in ("white", "black"):
            pip_mats[(id(s), pc)] = plastic_material(f"pip{k}{pc}", PIP_RGB[pc], s, pip=True)
    game_obs = [
        build_die(f"die{i}", d, meshes[id(d["set_params"])], pip_mats) for i, d in enumerate(dice)
    ]
    ref_obs = [
        build_die(f"ref{i}", d, meshes[id(d["set_params"])], pip_mats) for i, d in enumerate(ref)
    ]

    base = {
        "width": W,
        "height": H,
        "seed": args.seed,
        "scene": idx,
        "players": players,
        "table": table["kind"],
        "table_detail": table.get("detail"),
        "light": {
            "kelvin": round(light["kelvin"]),
            "strength": round(light["strength"], 3),
            "world": round(light["world"] * light["strength"], 4),
            "hard_shadows": light["hard"],
            "white_balance_k": round(light["wb_k"]),
            "white_balance_fraction": round(light["wb_frac"], 3),
            "lights": light_info,
        },
        "camera": {
            "height_mm": round(cam["height"] / MM, 1),
            "tilt_deg": round(math.degrees(cam["tilt"]), 2),
            "focal_mm": round(cam["focal"], 2),
            "roll_deg": round(math.degrees(cam["roll"]), 2),
            "yaw_deg": round(math.degrees(cam["yaw"] - sheet.theta) % 360, 2),
            "sheet_fill": round(cam["fill"], 3),
            "sensor_width_mm": SENSOR_W,
            "location_mm": [round(v / MM, 1) for v in cam["loc"]],
        },
        "sheet": {
            "center_mm": [round(sheet.cx / MM, 1), round(sheet.cy / MM, 1)],
            "rotation_deg": round(math.degrees(sheet.theta), 2),
        },
        "view_transform": "Standard",
        "samples": args.samples,
        "distractors": [d["kind"] for d in distractors],
        "markers": marker_labels(sc, cam_ob, sheet, layout, W, H),
        "sheet_corners": [
            [round(v, 2) for v in project(sc, cam_ob, sheet.board_to_world(x, y), W, H)[:2]]
            for x, y in [(0, 0), (sheet.w, 0), (sheet.w, sheet.h), (0, sheet.h)]
        ],
    }
    log = out / "blender.log"
    times = {}
    for which, show, hide, labels in [
        ("ref", ref_obs, game_obs, ref),
        ("game", game_obs, ref_obs, dice),
    ]:
        name = stem + ("_ref" if which == "ref" else "")
        if frame_done(out, name):
            continue
        for ob in show:
            ob.hide_render = False
        for ob in hide:
            ob.hide_render = True
        t = time.time()
        render_to(out / f"{name}.png", log)
        times[which] = time.time() - t
        js = dict(
            base,
            image=f"{name}.png",
            frame=which,
            dice=[die_label(sc, cam_ob, d, W, H) for d in labels],
        )
        write_json(out / f"{name}.json", js)
    return time.time() - t0, times, len(dice)


def command_line(argv, doc):
    """(the arguments, a parser with `--out`) for a script that may also run under Blender's
    own executable, which passes the script's arguments after `--`."""
    if argv is None:
        argv = sys.argv[1:]
        if "--" in argv:
            argv = argv[argv.index("--") + 1 :]
    ap = argparse.ArgumentParser(
        description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--out", required=True)
    return argv, ap


def main(argv=None):
    argv, ap = command_line(argv, __doc__)
    ap.add_argument("--scenes", type=int, required=True, help="number of scenes to render")
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--samples", type=int, default=24)
    ap.add_argument("--size", default="1280x720")
    ap.add_argument(
        "--start", type=int, default=0, help="first scene index (renders start .. start+scenes-1)"
    )
    ap.add_argument("--kind", default="mixed", choices=KIND_CHOICES)
    args = ap.parse_args(argv)
    W, H = (int(v) for v in args.size.lower().split("x"))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    layout = load_layout()
    t_all = time.time()
    for idx in range(args.start, args.start + args.scenes):
        res = render_scene(idx, args, layout, W, H)
        if res is None:
            print(f"scene {idx:04d} skip (exists)", flush=True)
            continue
        total, times, n = res
        parts = " ".join(f"{k} {v:.1f}s" for k, v in times.items())
        print(f"scene {idx:04d} {total:.1f}s ({parts}; {n} dice)", flush=True)
    print(f"done {args.scenes} scenes in {time.time() - t_all:.0f}s", flush=True)


if __name__ == "__main__":
    main()
