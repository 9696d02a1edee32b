#!/usr/bin/env python
"""Stress sets for the dice detector: dice straight on hard tables, with Blender/Cycles.

Evaluation only (never train or tune on these frames).  Like render_table.py, whose
pieces it reuses, it imports nothing from scanner/.  Run from the repository root:

    /tmp/bpyvenv/bin/python benchmarks/blender/render_stress.py --out DIR --kind KIND \
        --images N --seed S [--samples 16] [--size 640x480] [--start K]

Kinds: dark-wood, light-wood, artwork, keys, cards, closeup, oblique, emblems (or "all").
"emblems": mixed tables as for closeup/oblique's, every die's six engraved with a maker's mark (a
plus or a cross, painted like the pips) instead of six pips, as many real sets have.
Each image i of kind K writes DIR/K/images/NNNN.png, DIR/K/labels/NNNN.txt (YOLO:
"class cx cy w h", class = pips - 1, normalised, box around the visible part of the die)
and DIR/K/meta/NNNN.json.  An image whose three files exist is skipped (resumable).
Everything random for image i comes from numpy.random.default_rng((seed, kind#, i)).
Dice less than 60 % visible (cut by the frame edge or hidden behind another object, found
by casting one ray per pixel) are taken out of the scene before rendering, so every die in
a picture has a label.  See README.md beside this file.
"""

from __future__ import annotations

import math
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import render_table as rt  # noqa: E402  (imports bpy first)

# isort: off
import bpy  # noqa: E402
import bmesh  # noqa: E402
from mathutils import Matrix, Vector  # noqa: E402
from mathutils.bvhtree import BVHTree  # noqa: E402

# isort: on

MM = rt.MM
SENSOR_W = rt.SENSOR_W
DIE_MM = 16.0
KINDS = ["dark-wood", "light-wood", "artwork", "keys", "cards", "closeup", "oblique", "emblems"]
MIN_VISIBLE = 0.6  # dice less visible than this are removed from the scene
N_SHAPES = 16  # die shape variants (boolean meshes), built once per process


# --------------------------------------------------------------------------- small helpers


def rect_corners(r):
    """Corners (world xy) of an oriented rectangle dict {c, yaw, hx, hy}."""
    c, s = math.cos(r["yaw"]), math.sin(r["yaw"])
    return [
        (r["c"][0] + c * u - s * v, r["c"][1] + s * u + c * v)
        for u, v in [
            (-r["hx"], -r["hy"]),
            (r["hx"], -r["hy"]),
            (r["hx"], r["hy"]),
            (-r["hx"], r["hy"]),
        ]
    ]


def rects_disjoint(a, b, gap=0.0):
    """Separating-axis test for two oriented rectangles (world m), with a gap."""
    ca, cb = rect_corners(a), rect_corners(b)
    for yaw in (a["yaw"], b["yaw"]):
        for ax in ((math.cos(yaw), math.sin(yaw)), (-math.sin(yaw), math.cos(yaw))):
            pa = [x * ax[0] + y * ax[1] for x, y in ca]
            pb = [x * ax[0] + y * ax[1] for x, y in cb]
            if max(pa) + gap <= min(pb) or max(pb) + gap <= min(pa):
                return True
    return False


def in_rect(r, x, y, margin=0.0):
    c, s = math.cos(r["yaw"]), math.sin(r["yaw"])
    dx, dy = x - r["c"][0], y - r["c"][1]
    u, v = c * dx + s * dy, -s * dx + c * dy
    return abs(u) <= r["hx"] - margin and abs(v) <= r["hy"] - margin


def mat_xy(x, y, z, yaw):
    return Matrix.Translation((x, y, z)) @ Matrix.Rotation(yaw, 4, "Z")


def rounded_rect_bm(bm, w, h, r, z=0.0, matrix=None, mat_index=0):
    """A flat rounded rectangle (w x h m, corner radius r) added to bm."""
    pts = []
    for cx, cy, a0 in [
        (w / 2 - r, h / 2 - r, 0),
        (-w / 2 + r, h / 2 - r, 90),
        (-w / 2 + r, -h / 2 + r, 180),
        (w / 2 - r, -h / 2 + r, 270),
    ]:
        for k in range(6):
            a = math.radians(a0 + k * 18)
            pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return poly_bm(bm, pts, z, matrix, mat_index)


def poly_bm(bm, pts, z=0.0, matrix=None, mat_index=0):
    M = matrix or Matrix.Identity(4)
    vs = [bm.verts.new(M @ Vector((x, y, z))) for x, y in pts]
    f = bm.faces.new(vs)
    if f.normal.z < 0:
        f.normal_flip()
    f.material_index = mat_index
    return f


def disc_pts(cx, cy, r, n=24):
    return [
        (cx + r * math.cos(2 * math.pi * k / n), cy + r * math.sin(2 * math.pi * k / n))
        for k in range(n)
    ]


def ring_bm(bm, cx, cy, r0, r1, z, matrix=None, n=32, mat_index=0):
    M = matrix or Matrix.Identity(4)
    for k in range(n):
        a0, a1 = 2 * math.pi * k / n, 2 * math.pi * (k + 1) / n
        q = [
            (cx + r0 * math.cos(a0), cy + r0 * math.sin(a0)),
            (cx + r1 * math.cos(a0), cy + r1 * math.sin(a0)),
            (cx + r1 * math.cos(a1), cy + r1 * math.sin(a1)),
            (cx + r0 * math.cos(a1), cy + r0 * math.sin(a1)),
        ]
        vs = [bm.verts.new(M @ Vector((x, y, z))) for x, y in q]
        f = bm.faces.new(vs)
        if f.normal.z < 0:
            f.normal_flip()
        f.material_index = mat_index


def mesh_object(name, bm, mats, matrix=None):
    me = bpy.data.meshes.new(name)
    bm.to_mesh(me)
    bm.free()
    for m in mats:
        me.materials.append(m)
    return rt.add_object(name, me, matrix)


def text_object(name, body, size, mat, matrix, align=("CENTER", "CENTER")):
    cu = bpy.data.curves.new(name, "FONT")
    cu.body = body
    cu.size = size
    cu.align_x, cu.align_y = align
    cu.materials.append(mat)
    return rt.add_object(name, cu, matrix)


def box_bm(sx, sy, sz, bevel, top_scale=1.0, segments=2):
    """A bevelled box, bottom at z=0, centred in xy; top face optionally shrunk."""
    bm = bmesh.new()
    bmesh.ops.create_cube(bm, size=1.0)
    bmesh.ops.scale(bm, vec=(sx, sy, sz), verts=bm.verts)
    bmesh.ops.translate(bm, vec=(0, 0, sz / 2), verts=bm.verts)
    if top_scale != 1.0:
        for v in bm.verts:
            if v.co.z > sz / 2:
                v.co.x *= top_scale
                v.co.y *= top_scale
    if bevel > 0:
        bmesh.ops.bevel(
            bm,
            geom=list(bm.edges),
            offset=bevel,
            offset_type="OFFSET",
            segments=segments,
            profile=0.5,
            affect="EDGES",
            clamp_overlap=True,
        )
    for f in bm.faces:
        n = f.normal
        f.smooth = max(abs(n.x), abs(n.y), abs(n.z)) < 0.999
    return bm


def lin(c):
    return rt.srgb_to_linear(c)


# --------------------------------------------------------------------------- camera


class Cam:
    """Pinhole camera: world location, rotation (columns = camera x, y, z), focal (mm)."""

    def __init__(self, loc, rot, focal, W, H):
        self.loc, self.rot, self.focal, self.W, self.H = loc, rot, focal, W, H
        self.rot_t = rot.transposed()

    def ray(self, px, py):
        k = SENSOR_W / self.W
        d = self.rot @ Vector(((px - self.W / 2) * k, -(py - self.H / 2) * k, -self.focal))
        return d.normalized()

    def to_plane(self, px, py, z):
        d = self.ray(px, py)
        if d.z >= -1e-6:
            return None
        t = (z - self.loc.z) / d.z
        return self.loc + d * t

    def project(self, p):
        pc = self.rot_t @ (Vector(p) - self.loc)
        if pc.z >= -1e-9:
            return None
        k = self.focal / SENSOR_W * self.W / (-pc.z)
        return (self.W / 2 + pc.x * k, self.H / 2 - pc.y * k)


def sample_camera(rng, kind, W, H):
    if kind in ("closeup", "oblique"):
        tilt = rng.uniform(30, 45)
    else:
        tilt = rng.uniform(0, 30) if rng.random() < 0.8 else rng.uniform(0, 4)
    if kind == "closeup":
        die_px, focal = rng.uniform(45, 100), rng.uniform(26, 45)
    elif kind == "oblique":
        die_px, focal = rng.uniform(25, 55), rng.uniform(24, 40)
    else:
        die_px, focal = rng.uniform(22, 50), rng.uniform(24, 40)
    dist = DIE_MM * focal / SENSOR_W * W / die_px * MM  # camera -> target (m)
    az = rng.uniform(0, 2 * math.pi)
    roll = math.radians(rng.uniform(-3, 3))
    t = math.radians(tilt)
    target = Vector((rng.uniform(-0.05, 0.05), rng.uniform(-0.05, 0.05), 0.0))
    d = Vector((math.sin(t) * math.cos(az), math.sin(t) * math.sin(az), math.cos(t)))
    loc = target + d * dist
    up_hint = Vector((-math.cos(az), -math.sin(az), 0.0))  # image up = away from the camera
    rot = rt.look_at_rotation(loc, target, up_hint, roll)
    return dict(
        loc=loc,
        rot=rot,
        focal=focal,
        tilt=tilt,
        roll=math.degrees(roll),
        az=math.degrees(az),
        dist=dist,
        die_px=die_px,
        target=target,
    )


# --------------------------------------------------------------------------- die shapes (cached)


class ShapeLibrary:
    """Boolean die meshes are the slow part of a scene (~1 s each): N_SHAPES shape
    variants (bevel, pip radius/grid/depth, concave or flat pips, big one) are built
    once per process from rng((seed, 99, k)) and shared by all scenes."""

    def __init__(self, seed):
        self.seed = seed
        self.meshes = {}
        self.params = {}

    def shape(self, k):
        """Shape k; k + N_SHAPES is the same die with a maker's mark on its six (a plus for
        even k, a cross for odd)."""
        if k not in self.params:
            r = np.random.default_rng((self.seed, 99, k % N_SHAPES))
            s = rt.sample_die_set(r, "grey", size=DIE_MM)
            self.params[k] = {
                key: s[key]
                for key in ("size", "bevel", "pip_style", "pip_r", "grid", "pip_depth", "big_one")
            }
            if k >= N_SHAPES:
                self.params[k]["emblem"] = ("plus", "cross")[k % 2]
        return self.params[k]

    def mesh(self, k):
        if k not in self.meshes or self.meshes[k].name not in bpy.data.meshes:
            s = dict(self.shape(k))
            self.meshes[k] = rt.build_die_mesh(f"lib{k}", s)
            self.meshes[k].use_fake_user = True
        return self.meshes[k]

    def keep(self):
        return {m.name for m in self.meshes.values()}


# --------------------------------------------------------------------------- scene description


def sample_sets(rng, lib, n_dice, emblems=False):
    """Die sets for a scene: 1-4 of the five player colours and 0-2 other colours; with
    `emblems`, every set's six is a maker's mark."""
    players = rng.choice(rt.PLAYER_COLOURS, int(rng.integers(1, 5)), replace=False).tolist()
    others = rng.choice(
        list(rt.OTHER_SHADES), int(rng.choice([0, 1, 2], p=[0.35, 0.4, 0.25])), replace=False
    ).tolist()
    sets = []
    for c in players:
        sets.append(rt.sample_die_set(rng, c, size=DIE_MM))
    for c in others:
        sets.append(rt.sample_die_set(rng, c, other=True, size=DIE_MM))
    if rng.random() < 0.25:  # one set translucent or marbled
        s = sets[int(rng.integers(len(sets)))]
        if rng.random() < 0.5:
            s.update(material="translucent", sss=float(rng.uniform(0.3, 0.7)))
        else:
            s.update(
                material="marbled",
                marble=dict(
                    scale=float(rng.uniform(60, 160)),
                    amount=float(rng.uniform(0.25, 0.55)),
                    light=bool(rng.random() < 0.6),
                ),
            )
    for s in sets:
        k = int(rng.integers(N_SHAPES)) + (N_SHAPES if emblems else 0)
        s.update(lib.shape(k), shape=k)
    # player colours are most of the dice
    w = np.array([3.0 if not s["other"] else 1.0 for s in sets])
    which = rng.choice(len(sets), n_dice, p=w / w.sum())
    return sets, [sets[i] for i in which]


def die_rect(x, y, yaw, tilt=0.0, grow=0.0):
    a = DIE_MM / 2 * (math.cos(tilt) + math.sin(tilt)) * MM + grow
    return dict(c=(x, y), yaw=yaw, hx=a, hy=a)


def support_height(dr, platforms, rng_on=True):
    """Height a die with footprint `dr` rests at, or None if it would straddle a raised
    edge (or sit where it may not).  Thin platforms (cards, prints) may be straddled."""
    z = 0.0
    corners = rect_corners(dr)
    for p in platforms:
        on = all(in_rect(p["on"], x, y) for x, y in corners)
        if p["thin"]:
            if not rects_disjoint(dr, p["off"]):
                z = max(z, p["top"])
            continue
        if on and p["allow_on"] and rng_on:
            z = max(z, p["top"])
        elif not rects_disjoint(dr, p["off"], gap=0.5 * MM):
            return None
    return z


def place_dice(rng, cam, dice_sets, platforms, W, H, blockers=()):
    """Positions on the visible table: (x, y, yaw, tilt, value, set, base_z, on)."""
    placed = []
    for s in dice_sets:
        for _attempt in range(300):
            value = int(rng.integers(1, 7))
            tilt_p = 0.1
            anchors = [d for d in placed if d["pose"]["tilt"] == 0.0]
            if anchors and rng.random() < 0.3:  # touching a neighbour
                a = anchors[int(rng.integers(len(anchors)))]
                k = int(rng.integers(4))
                ang = a["pose"]["yaw"] + k * math.pi / 2
                gap = (DIE_MM + rng.uniform(0.15, 1.5)) * MM
                lat = rng.uniform(-6, 6) * MM
                x = a["xy"][0] + gap * math.cos(ang) - lat * math.sin(ang)
                y = a["xy"][1] + gap * math.sin(ang) + lat * math.cos(ang)
                yaw_hint = a["pose"]["yaw"] + math.radians(rng.uniform(-2, 2))
                tilt_p = 0.0
            else:
                m = -0.1 * cam.W if rng.random() < 0.1 else 0.04 * cam.W
                p = cam.to_plane(rng.uniform(m, W - m), rng.uniform(m, H - m), 0.0)
                if p is None:
                    continue
                x, y = p.x, p.y
                yaw_hint = None
            pose = rt.die_pose(rng, value, (x, y), 0.0, s["size"], s["bevel"], tilt_p=tilt_p)
            if yaw_hint is not None:  # untilted (tilt_p 0): same support height
                R = Matrix.Rotation(yaw_hint, 3, "Z") @ rt.UP_ROT[value]
                pose["R"], pose["yaw"] = R, yaw_hint
            dr = die_rect(x, y, pose["yaw"], pose["tilt"])
            if any(not rects_disjoint(dr, d["rect"], gap=0.15 * MM) for d in placed):
                continue
            if any((x - bx) ** 2 + (y - by) ** 2 < (br + 12 * MM) ** 2 for bx, by, br in blockers):
                continue
            z = support_height(dr, platforms, rng_on=rng.random() < 0.5)
            if z is None:
                continue
            pose["loc"] = pose["loc"] + Vector((0, 0, z + (0.06 * MM if z > 0 else 0.0)))
            on = "table"
            for p in platforms:
                if abs(p["top"] - z) < 1e-9 and z > 0:
                    on = p["name"]
            placed.append(dict(xy=(x, y), pose=pose, set=s, value=value, rect=dr, on=on))
            break
    return placed


def sample_small_distractors(rng, cam, W, H, dice, p_any=0.35):
    """0-1 of coins / pencil (render_table's models), kept off the dice."""
    out = []
    if rng.random() >= p_any:
        return out
    kind = "coins" if rng.random() < 0.5 else "pencil"
    blocked = [(d["xy"][0], d["xy"][1], 12.5 * MM) for d in dice]
    for _ in range(200):
        p = cam.to_plane(rng.uniform(0, W), rng.uniform(0, H), 0.0)
        if p is None:
            continue
        yaw = rng.uniform(0, 2 * math.pi)
        if kind == "coins":
            circ, item = rt.coins_item(rng, p)
        else:
            circ, item = rt.pencil_item(rng, p, yaw)
        if all(
            (a - x) ** 2 + (b - y) ** 2 >= (ra + rb) ** 2
            for a, b, ra in circ
            for x, y, rb in blocked
        ):
            out.append(item)
            break
    return out


# --------------------------------------------------------------------------- artwork


def busier_artwork(rng, p):
    """Extra layers on render_table's artwork material: a second patch layer, stripes
    and a printed square grid, each under a noise mask."""
    m = bpy.data.materials["table"]
    nt = m.node_tree
    b = rt.bsdf_of(m)
    src = b.inputs["Base Color"].links[0].from_socket
    tc = rt.node(nt, "ShaderNodeTexCoord")
    n = int(rng.integers(3, 6))
    vor = rt.node(nt, "ShaderNodeTexVoronoi")
    vor.inputs["Scale"].default_value = p["cell"] * rng.uniform(2.5, 5)
    rt.link(nt, tc.outputs["Object"], vor.inputs["Vector"])
    sep = rt.node(nt, "ShaderNodeSeparateColor")
    rt.link(nt, vor.outputs["Color"], sep.inputs["Color"])
    ramp = rt.node(nt, "ShaderNodeValToRGB")
    cr = ramp.color_ramp
    cr.interpolation = "CONSTANT"
    pal = [lin(rng.uniform(0.05, 0.95, 3)) for _ in range(n)]
    cr.elements[0].color = rt.rgba(pal[0])
    cr.elements[1].position = 1.0 / n
    cr.elements[1].color = rt.rgba(pal[1])
    for i in range(2, n):
        cr.elements.new(i / n).color = rt.rgba(pal[i])
    rt.link(nt, sep.outputs["Green"], ramp.inputs["Fac"])

    def mask(scale, thr):
        nz = rt.node(nt, "ShaderNodeTexNoise")
        nz.inputs["Scale"].default_value = scale
        nz.inputs["Detail"].default_value = 1.0
        rt.link(nt, tc.outputs["Object"], nz.inputs["Vector"])
        gt = rt.node(nt, "ShaderNodeMath", operation="GREATER_THAN")
        gt.inputs[1].default_value = thr
        rt.link(nt, nz.outputs["Fac"], gt.inputs[0])
        return gt.outputs["Value"]

    mix = rt.node(nt, "ShaderNodeMixRGB", blend_type="MIX")
    rt.link(nt, mask(rng.uniform(2, 6), rng.uniform(0.45, 0.55)), mix.inputs["Fac"])
    rt.link(nt, src, mix.inputs["Color1"])
    rt.link(nt, ramp.outputs["Color"], mix.inputs["Color2"])
    col = mix.outputs["Color"]
    # stripes
    wave = rt.node(nt, "ShaderNodeTexWave", wave_type="BANDS", bands_direction="DIAGONAL")
    wave.inputs["Scale"].default_value = rng.uniform(8, 30)
    wave.inputs["Distortion"].default_value = rng.uniform(0, 4)
    rt.link(nt, tc.outputs["Object"], wave.inputs["Vector"])
    sr = rt.node(nt, "ShaderNodeValToRGB")
    sr.color_ramp.interpolation = "CONSTANT"
    sr.color_ramp.elements[0].color = rt.rgba(lin(rng.uniform(0.05, 0.95, 3)))
    sr.color_ramp.elements[1].position = 0.5
    sr.color_ramp.elements[1].color = rt.rgba(lin(rng.uniform(0.05, 0.95, 3)))
    rt.link(nt, wave.outputs["Fac"], sr.inputs["Fac"])
    mix2 = rt.node(nt, "ShaderNodeMixRGB", blend_type="MIX")
    rt.link(nt, mask(rng.uniform(2, 5), rng.uniform(0.58, 0.66)), mix2.inputs["Fac"])
    rt.link(nt, col, mix2.inputs["Color1"])
    rt.link(nt, sr.outputs["Color"], mix2.inputs["Color2"])
    col = mix2.outputs["Color"]
    # printed grid of squares (brick texture with equal rows, no offset)
    br = rt.node(nt, "ShaderNodeTexBrick", offset=0.0)
    sq = rng.uniform(0.015, 0.035)
    br.inputs["Scale"].default_value = 1.0
    br.inputs["Brick Width"].default_value = sq
    br.inputs["Row Height"].default_value = sq
    br.inputs["Mortar Size"].default_value = sq * rng.uniform(0.05, 0.15)
    c1, c2 = lin(rng.uniform(0.1, 0.95, 3)), lin(rng.uniform(0.1, 0.95, 3))
    br.inputs["Color1"].default_value = rt.rgba(c1)
    br.inputs["Color2"].default_value = rt.rgba(c2)
    br.inputs["Mortar"].default_value = rt.rgba(lin(rng.uniform(0.0, 0.2, 3)))
    rt.link(nt, tc.outputs["Object"], br.inputs["Vector"])
    mix3 = rt.node(nt, "ShaderNodeMixRGB", blend_type="MIX")
    rt.link(nt, mask(rng.uniform(1.5, 4), rng.uniform(0.56, 0.64)), mix3.inputs["Fac"])
    rt.link(nt, col, mix3.inputs["Color1"])
    rt.link(nt, br.outputs["Color"], mix3.inputs["Color2"])
    rt.link(nt, mix3.outputs["Color"], b.inputs["Base Color"])


WORDS = [
    "ROMA",
    "FORVM",
    "SENATVS",
    "TEMPLVM",
    "CASTRVM",
    "VICTORIA",
    "AVE",
    "SPQR",
    "XII",
    "IV",
    "7",
    "12",
    "START",
    "BONUS",
    "+3",
    "2x",
]


def sample_decals(rng, cam, W, H):
    """Flat printed shapes on the artwork: words, discs, rings, stars, a numbered track."""
    items = []
    for _ in range(int(rng.integers(4, 10))):
        p = cam.to_plane(rng.uniform(-0.1, 1.1) * W, rng.uniform(-0.1, 1.1) * H, 0.0)
        if p is None:
            continue
        kind = ["word", "disc", "ring", "star", "track"][
            int(rng.choice(5, p=[0.3, 0.2, 0.2, 0.15, 0.15]))
        ]
        items.append(
            dict(
                kind=kind,
                xy=(p.x, p.y),
                yaw=float(rng.uniform(0, 2 * math.pi)),
                size=float(rng.uniform(8, 40) * MM),
                colour=lin(rng.uniform(0.0, 1.0, 3)),
                colour2=lin(rng.uniform(0.0, 1.0, 3)),
                text=WORDS[int(rng.integers(len(WORDS)))],
                n=int(rng.integers(4, 12)),
                start=int(rng.integers(1, 30)),
                curve=float(rng.uniform(-0.4, 0.4)),
            )
        )
    return items


def build_decals(items):
    for i, it in enumerate(items):
        ink = rt.simple_material(f"ink{i}", it["colour"], 0.5, 0.3)
        ink2 = rt.simple_material(f"inkb{i}", it["colour2"], 0.5, 0.3)
        M = mat_xy(it["xy"][0], it["xy"][1], 0.0, it["yaw"])
        z = 0.04 * MM
        s = it["size"]
        if it["kind"] == "word":
            text_object(f"word{i}", it["text"], s, ink, M @ Matrix.Translation((0, 0, z)))
        elif it["kind"] == "disc":
            bm = bmesh.new()
            poly_bm(bm, disc_pts(0, 0, s / 2, 40), z, M)
            mesh_object(f"disc{i}", bm, [ink])
        elif it["kind"] == "ring":
            bm = bmesh.new()
            ring_bm(bm, 0, 0, s * 0.35, s / 2, z, M)
            mesh_object(f"ring{i}", bm, [ink])
        elif it["kind"] == "star":
            pts = []
            for k in range(10):
                r = s / 2 if k % 2 == 0 else s / 5
                a = math.pi / 2 + k * math.pi / 5
                pts.append((r * math.cos(a), r * math.sin(a)))
            bm = bmesh.new()
            # a star is concave: fan it from the centre
            Mv = M
            c = bm.verts.new(Mv @ Vector((0, 0, z)))
            vs = [bm.verts.new(Mv @ Vector((x, y, z))) for x, y in pts]
            for k in range(10):
                f = bm.faces.new([c, vs[k], vs[(k + 1) % 10]])
                if f.normal.z < 0:
                    f.normal_flip()
            mesh_object(f"star{i}", bm, [ink])
        else:  # a track of numbered squares along a gentle arc
            sq = max(s, 18 * MM)
            bm = bmesh.new()
            for k in range(it["n"]):
                a = it["curve"] * k / max(1, it["n"] - 1)
                x = k * sq * 1.08 * math.cos(a)
                y = k * sq * 1.08 * math.sin(a) + it["curve"] * sq * k * 0.3
                Mk = M @ mat_xy(x, y, 0.0, a)
                rounded_rect_bm(bm, sq, sq, sq * 0.12, z, Mk, 1)
                rounded_rect_bm(bm, sq * 0.86, sq * 0.86, sq * 0.1, z + 0.01 * MM, Mk, 0)
                text_object(
                    f"tracknum{i}_{k}",
                    str(it["start"] + k),
                    sq * 0.45,
                    ink,
                    Mk @ Matrix.Translation((0, 0, z + 0.02 * MM)),
                )
            mesh_object(f"track{i}", bm, [ink2, ink])


# --------------------------------------------------------------------------- keyboard and tiles

KEY_CHARS = "QWERTYUIOPASDFGHJKLZXCVBNM1234567890,./;[]-="


def sample_keyboard(rng, cam, W, H):
    rows, cols = int(rng.integers(4, 7)), int(rng.integers(10, 16))
    pitch = rng.uniform(18.0, 19.5) * MM
    cap = pitch * rng.uniform(0.9, 0.95)
    cap_h = rng.uniform(6, 10) * MM
    base_h = rng.uniform(3, 8) * MM
    dark = rng.random() < 0.55
    if dark:
        cap_col = lin(np.full(3, rng.uniform(0.04, 0.25)) * (1 + rng.uniform(-0.05, 0.05, 3)))
        mod_col = lin(np.clip(np.full(3, rng.uniform(0.1, 0.4)), 0, 1))
        legend = lin(np.full(3, rng.uniform(0.75, 0.95)))
    else:
        g = rng.uniform(0.72, 0.95)
        cap_col = lin(
            np.clip(g * np.array([1.0, 0.99, 0.95]) * (1 + rng.uniform(-0.03, 0.03, 3)), 0, 1)
        )
        mod_col = lin(np.clip(np.full(3, rng.uniform(0.45, 0.75)), 0, 1))
        legend = lin(np.full(3, rng.uniform(0.03, 0.25)))
    base_col = lin(np.full(3, rng.uniform(0.03, 0.5)))
    wk, hk = cols * pitch, rows * pitch
    # centre: somewhere so the keyboard covers part of the frame, beside the dice
    p = cam.to_plane(rng.uniform(0.1, 0.9) * W, rng.uniform(0.1, 0.9) * H, 0.0)
    yaw = float(rng.uniform(0, 2 * math.pi))
    legends = [KEY_CHARS[int(i)] for i in rng.integers(0, len(KEY_CHARS), rows * cols)]
    mods = rng.random(rows * cols) < 0.15
    return dict(
        c=(p.x, p.y),
        yaw=yaw,
        rows=rows,
        cols=cols,
        pitch=pitch,
        cap=cap,
        cap_h=cap_h,
        base_h=base_h,
        cap_col=cap_col,
        mod_col=mod_col,
        legend=legend,
        base_col=base_col,
        legends=legends,
        mods=mods.tolist(),
        legend_pos=("centre", "corner")[int(rng.integers(2))],
        top_scale=float(rng.uniform(0.72, 0.85)),
        wk=wk,
        hk=hk,
    )


def keyboard_platform(kb):
    top = kb["base_h"] + kb["cap_h"]
    on = dict(c=kb["c"], yaw=kb["yaw"], hx=kb["wk"] / 2 - 3 * MM, hy=kb["hk"] / 2 - 3 * MM)
    off = dict(c=kb["c"], yaw=kb["yaw"], hx=kb["wk"] / 2 + 6 * MM, hy=kb["hk"] / 2 + 6 * MM)
    return dict(name="keys", on=on, off=off, top=top, thin=False, allow_on=True)


def build_keyboard(kb):
    M = mat_xy(kb["c"][0], kb["c"][1], 0.0, kb["yaw"])
    base = box_bm(kb["wk"] + 12 * MM, kb["hk"] + 12 * MM, kb["base_h"], 2 * MM)
    mesh_object("kb_base", base, [rt.simple_material("kb_base", kb["base_col"], 0.5, 0.4)], M)
    capm = box_bm(kb["cap"], kb["cap"], kb["cap_h"], 1.0 * MM, top_scale=kb["top_scale"])
    me = bpy.data.meshes.new("keycap")
    capm.to_mesh(me)
    capm.free()
    m_cap = rt.simple_material("keycap", kb["cap_col"], 0.45, 0.45)
    m_mod = rt.simple_material("keymod", kb["mod_col"], 0.45, 0.45)
    m_leg = rt.simple_material("legend", kb["legend"], 0.5, 0.3)
    me.materials.append(m_cap)
    top = kb["base_h"] + kb["cap_h"]
    tw = kb["cap"] * kb["top_scale"]
    k = 0
    for i in range(kb["rows"]):
        for j in range(kb["cols"]):
            x = (j + 0.5) * kb["pitch"] - kb["wk"] / 2
            y = (i + 0.5) * kb["pitch"] - kb["hk"] / 2
            ob = rt.add_object(f"key{i}_{j}", me, M @ Matrix.Translation((x, y, kb["base_h"])))
            if kb["mods"][k]:
                ob.material_slots[0].link = "OBJECT"
                ob.material_slots[0].material = m_mod
            if kb["legend_pos"] == "centre":
                T = Matrix.Translation((x, y, top + 0.05 * MM))
                al = ("CENTER", "CENTER")
            else:
                T = Matrix.Translation((x - tw * 0.35, y + tw * 0.35, top + 0.05 * MM))
                al = ("LEFT", "TOP")
            text_object(f"leg{i}_{j}", kb["legends"][k], tw * 0.42, m_leg, M @ T, al)
            k += 1


def sample_tile_grid(rng, cam, W, H, avoid):
    rows, cols = int(rng.integers(2, 7)), int(rng.integers(2, 9))
    size = rng.uniform(18, 30) * MM
    gap = rng.uniform(0.5, 3) * MM
    printed = rng.random() < 0.35  # flat printed checkerboard instead of raised tiles
    thick = 0.3 * MM if printed else rng.uniform(1.5, 4) * MM
    n_col = int(rng.integers(1, 4))
    cols_ = [lin(rng.uniform(0.05, 0.95, 3)) for _ in range(n_col)]
    if rng.random() < 0.4:
        cols_ = [lin(np.full(3, rng.uniform(0.02, 0.15))), lin(np.full(3, rng.uniform(0.75, 0.95)))]
    pattern = ("checker", "random", "plain")[int(rng.integers(3))]
    gw, gh = cols * (size + gap), rows * (size + gap)
    for _ in range(100):
        p = cam.to_plane(rng.uniform(0.1, 0.9) * W, rng.uniform(0.1, 0.9) * H, 0.0)
        yaw = float(rng.uniform(0, 2 * math.pi))
        r = dict(c=(p.x, p.y), yaw=yaw, hx=gw / 2, hy=gh / 2)
        if all(rects_disjoint(r, a, gap=5 * MM) for a in avoid):
            break
    else:
        return None
    marks = []
    for _i in range(rows * cols):
        u = rng.random()
        marks.append(
            KEY_CHARS[int(rng.integers(len(KEY_CHARS)))] if u < 0.3 else ("ring" if u < 0.4 else "")
        )
    return dict(
        c=r["c"],
        yaw=yaw,
        rows=rows,
        cols=cols,
        size=size,
        gap=gap,
        thick=thick,
        printed=printed,
        colours=cols_,
        pattern=pattern,
        idx=rng.integers(0, len(cols_), rows * cols).tolist(),
        marks=marks,
        ink=lin(np.full(3, rng.uniform(0.02, 0.9))),
        bevel=float(rng.uniform(0.4, 1.2) * MM),
        gw=gw,
        gh=gh,
    )


def tile_grid_platform(tg):
    r = dict(c=tg["c"], yaw=tg["yaw"], hx=tg["gw"] / 2, hy=tg["gh"] / 2)
    on = dict(r, hx=r["hx"] - 2 * MM, hy=r["hy"] - 2 * MM)
    return dict(name="tiles", on=on, off=r, top=tg["thick"], thin=tg["printed"], allow_on=True)


def build_tile_grid(tg, name="grid"):
    M = mat_xy(tg["c"][0], tg["c"][1], 0.0, tg["yaw"])
    mats = [rt.simple_material(f"{name}_t{k}", c, 0.45, 0.4) for k, c in enumerate(tg["colours"])]
    ink = rt.simple_material(f"{name}_ink", tg["ink"], 0.5, 0.3)
    pitch = tg["size"] + tg["gap"]
    if tg["printed"]:  # one flat sheet with squares printed on a background
        bm = bmesh.new()
        rounded_rect_bm(
            bm, tg["gw"] + 4 * MM, tg["gh"] + 4 * MM, 2 * MM, tg["thick"] - 0.02 * MM, M, 0
        )
        back = rt.simple_material(f"{name}_back", lin(np.full(3, 0.08)), 0.6, 0.3)
        mats = [back] + mats
    else:
        me = None
    k = 0
    for i in range(tg["rows"]):
        for j in range(tg["cols"]):
            x = (j + 0.5) * pitch - tg["gw"] / 2
            y = (i + 0.5) * pitch - tg["gh"] / 2
            if tg["pattern"] == "checker":
                ci = (i + j) % len(tg["colours"])
            elif tg["pattern"] == "random":
                ci = tg["idx"][k]
            else:
                ci = 0
            Mt = M @ Matrix.Translation((x, y, 0))
            if tg["printed"]:
                rounded_rect_bm(bm, tg["size"], tg["size"], 1 * MM, tg["thick"], Mt, ci + 1)
            else:
                tb = box_bm(tg["size"], tg["size"], tg["thick"], tg["bevel"])
                if me is None:
                    me = bpy.data.meshes.new(f"{name}_tile")
                    tb.to_mesh(me)
                    me.materials.append(mats[0])
                tb.free()
                ob = rt.add_object(f"{name}_{i}_{j}", me, Mt)
                ob.material_slots[0].link = "OBJECT"
                ob.material_slots[0].material = mats[ci]
            mk = tg["marks"][k]
            z = tg["thick"] + 0.04 * MM
            if mk == "ring":  # a printed circle, not a pip: a dot would make a die's 1
                bd = bmesh.new()
                ring_bm(bd, 0, 0, tg["size"] * 0.26, tg["size"] * 0.33, z, Mt)
                mesh_object(f"{name}_ring{i}_{j}", bd, [ink])
            elif mk:
                text_object(
                    f"{name}_mk{i}_{j}",
                    mk,
                    tg["size"] * 0.5,
                    ink,
                    Mt @ Matrix.Translation((0, 0, z)),
                )
            k += 1
    if tg["printed"]:
        mesh_object(f"{name}_print", bm, mats)


# --------------------------------------------------------------------------- cards and loose tiles

SUITS = ["hearts", "diamonds", "clubs", "spades"]
RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
PIPS = {  # standard pip positions, in units of (column 14 mm, row 28 mm)
    2: [(0, 1), (0, -1)],
    3: [(0, 1), (0, 0), (0, -1)],
    4: [(-1, 1), (1, 1), (-1, -1), (1, -1)],
    5: [(-1, 1), (1, 1), (0, 0), (-1, -1), (1, -1)],
    6: [(-1, 1), (1, 1), (-1, 0), (1, 0), (-1, -1), (1, -1)],
    7: [(-1, 1), (1, 1), (0, 0.5), (-1, 0), (1, 0), (-1, -1), (1, -1)],
    8: [(-1, 1), (1, 1), (0, 0.5), (-1, 0), (1, 0), (0, -0.5), (-1, -1), (1, -1)],
    9: [
        (-1, 1),
        (1, 1),
        (-1, 1 / 3),
        (1, 1 / 3),
        (0, 0),
        (-1, -1 / 3),
        (1, -1 / 3),
        (-1, -1),
        (1, -1),
    ],
    10: [
        (-1, 1),
        (1, 1),
        (0, 2 / 3),
        (-1, 1 / 3),
        (1, 1 / 3),
        (-1, -1 / 3),
        (1, -1 / 3),
        (0, -2 / 3),
        (-1, -1),
        (1, -1),
    ],
}


def suit_shape(bm, suit, cx, cy, s, z, M, flip=False, mat_index=0):
    """A suit symbol of height ~s centred at (cx, cy) in card coordinates."""
    sg = -1.0 if flip else 1.0

    def P(x, y):
        return (cx + x * s, cy + sg * y * s)

    if suit == "diamonds":
        poly_bm(bm, [P(0, 0.5), P(0.36, 0), P(0, -0.5), P(-0.36, 0)], z, M, mat_index)
        return
    if suit == "hearts":
        for ox in (-0.22, 0.22):
            c = P(ox, 0.2)
            poly_bm(bm, disc_pts(c[0], c[1], 0.25 * s, 20), z, M, mat_index)
        poly_bm(bm, [P(-0.46, 0.13), P(0.46, 0.13), P(0, -0.5)], z, M, mat_index)
        return
    if suit == "spades":
        for ox in (-0.22, 0.22):
            c = P(ox, -0.08)
            poly_bm(bm, disc_pts(c[0], c[1], 0.24 * s, 20), z, M, mat_index)
        poly_bm(bm, [P(-0.45, -0.02), P(0, 0.5), P(0.45, -0.02)], z, M, mat_index)
    else:  # clubs
        for ox, oy in ((0, 0.24), (-0.24, -0.08), (0.24, -0.08)):
            c = P(ox, oy)
            poly_bm(bm, disc_pts(c[0], c[1], 0.2 * s, 20), z, M, mat_index)
        c = P(0, 0.02)
        poly_bm(bm, disc_pts(c[0], c[1], 0.12 * s, 12), z, M, mat_index)
    poly_bm(bm, [P(-0.16, -0.5), P(0.16, -0.5), P(0.04, -0.1), P(-0.04, -0.1)], z, M, mat_index)


def sample_cards(rng, cam, W, H):
    cards = []
    for k in range(int(rng.integers(2, 7))):
        p = cam.to_plane(rng.uniform(0.0, 1.0) * W, rng.uniform(0.0, 1.0) * H, 0.0)
        cards.append(
            dict(
                c=(p.x, p.y),
                yaw=float(rng.uniform(0, 2 * math.pi)),
                rank=RANKS[int(rng.integers(len(RANKS)))],
                suit=SUITS[int(rng.integers(4))],
                back=bool(rng.random() < 0.15),
                back_col=lin(
                    ((0.65, 0.08, 0.1), (0.1, 0.2, 0.55), (0.1, 0.4, 0.2))[int(rng.integers(3))]
                ),
                paper=lin(np.clip(rng.uniform(0.88, 0.97) * np.array([1, 1, 0.97]), 0, 1)),
                z=(k + 1) * 0.35 * MM,
            )
        )
    return cards


def card_platform(cd):
    r = dict(c=cd["c"], yaw=cd["yaw"], hx=31.5 * MM, hy=44 * MM)
    return dict(name="card", on=r, off=r, top=cd["z"], thin=True, allow_on=True)


def build_cards(cards):
    for i, cd in enumerate(cards):
        w, h = 63 * MM, 88 * MM
        M = mat_xy(cd["c"][0], cd["c"][1], cd["z"], cd["yaw"])
        bm = bmesh.new()
        rounded_rect_bm(bm, w, h, 3.2 * MM, 0.0, M, 0)
        if cd["back"]:
            m = rt.new_material(f"cardback{i}")
            nt = m.node_tree
            ch = rt.node(nt, "ShaderNodeTexChecker")
            ch.inputs["Scale"].default_value = 120.0
            ch.inputs["Color1"].default_value = rt.rgba(cd["back_col"])
            ch.inputs["Color2"].default_value = rt.rgba(np.asarray(cd["back_col"]) * 0.4 + 0.5)
            rt.link(nt, ch.outputs["Color"], rt.bsdf_of(m).inputs["Base Color"])
            rt.bsdf_of(m).inputs["Roughness"].default_value = 0.4
            mesh_object(f"card{i}", bm, [m])
            continue
        paper = rt.simple_material(f"card{i}", cd["paper"], 0.4, 0.4)
        red = cd["suit"] in ("hearts", "diamonds")
        ink = rt.simple_material(
            f"cardink{i}", (0.6, 0.03, 0.04) if red else (0.02, 0.02, 0.02), 0.5, 0.3
        )
        z = 0.05 * MM
        rank = cd["rank"]
        if rank == "A":
            suit_shape(bm, cd["suit"], 0, 0, 22 * MM, z, M, mat_index=1)
        elif rank in "JQK":
            frame = rt.simple_material(f"cardface{i}", (0.75, 0.55, 0.08), 0.5, 0.3)
            ring = [(-20, -33), (20, -33), (20, 33), (-20, 33)]
            for a, b in zip(ring, ring[1:] + ring[:1], strict=True):
                dx, dy = (b[0] - a[0]), (b[1] - a[1])
                L = math.hypot(dx, dy)
                nx, ny = -dy / L * 0.8, dx / L * 0.8
                poly_bm(
                    bm,
                    [
                        ((a[0] - nx) * MM, (a[1] - ny) * MM),
                        ((b[0] - nx) * MM, (b[1] - ny) * MM),
                        ((b[0] + nx) * MM, (b[1] + ny) * MM),
                        ((a[0] + nx) * MM, (a[1] + ny) * MM),
                    ],
                    z,
                    M,
                    1,
                )
            poly_bm(
                bm,
                [(-12 * MM, -20 * MM), (12 * MM, -20 * MM), (8 * MM, 20 * MM), (-8 * MM, 20 * MM)],
                z,
                M,
                2,
            )
            suit_shape(bm, cd["suit"], 0, 25 * MM, 8 * MM, z + 0.01 * MM, M, mat_index=1)
        else:
            for u, v in PIPS[int(rank)]:
                suit_shape(
                    bm, cd["suit"], u * 14 * MM, v * 28 * MM, 10 * MM, z, M, flip=v < 0, mat_index=1
                )
        mats = [paper, ink] + ([frame] if rank in "JQK" else [])
        for sx, sy, flip in ((-1, 1, False), (1, -1, True)):
            suit_shape(
                bm, cd["suit"], sx * 25.5 * MM, sy * 27 * MM, 5 * MM, z, M, flip=flip, mat_index=1
            )
            T = (
                M
                @ Matrix.Translation((sx * 25.5 * MM, sy * 36 * MM, z))
                @ Matrix.Rotation(math.pi if flip else 0, 4, "Z")
            )
            text_object(f"cardrank{i}_{sx}", rank, 8 * MM, ink, T)
        mesh_object(f"card{i}", bm, mats)


def sample_loose_tiles(rng, cam, W, H):
    tiles = []
    for _ in range(int(rng.integers(2, 9))):
        for _t in range(50):
            p = cam.to_plane(rng.uniform(0.03, 0.97) * W, rng.uniform(0.03, 0.97) * H, 0.0)
            size = rng.uniform(18, 26) * MM
            r = dict(c=(p.x, p.y), yaw=float(rng.uniform(0, 2 * math.pi)), hx=size / 2, hy=size / 2)
            if all(rects_disjoint(r, t["rect"], gap=1 * MM) for t in tiles):
                break
        else:
            continue
        u = rng.random()
        tiles.append(
            dict(
                rect=r,
                size=size,
                thick=float(rng.uniform(3, 6) * MM),
                colour=lin(
                    [
                        (0.93, 0.89, 0.78),
                        (0.75, 0.55, 0.35),
                        (0.08, 0.08, 0.09),
                        (0.75, 0.1, 0.1),
                        (0.1, 0.45, 0.2),
                        (0.15, 0.3, 0.7),
                        (0.95, 0.8, 0.2),
                    ][int(rng.integers(7))]
                ),
                mark=(
                    KEY_CHARS[int(rng.integers(len(KEY_CHARS)))]
                    if u < 0.5
                    else ("ring" if u < 0.7 else "")
                ),
                dots=int(rng.integers(1, 4)),  # unused (dots looked like a die's 1-3)
                ink=lin(np.full(3, (0.03, 0.9)[int(rng.integers(2))])),
                bevel=float(rng.uniform(0.6, 1.5) * MM),
            )
        )
    return tiles


def tile_platform(t):
    on = dict(t["rect"], hx=t["rect"]["hx"] - 1 * MM, hy=t["rect"]["hy"] - 1 * MM)
    return dict(name="tile", on=on, off=t["rect"], top=t["thick"], thin=False, allow_on=True)


def build_loose_tiles(tiles):
    for i, t in enumerate(tiles):
        r = t["rect"]
        M = mat_xy(r["c"][0], r["c"][1], 0.0, r["yaw"])
        mesh_object(
            f"tile{i}",
            box_bm(t["size"], t["size"], t["thick"], t["bevel"]),
            [rt.simple_material(f"tile{i}", t["colour"], 0.4, 0.45)],
            M,
        )
        ink = rt.simple_material(f"tileink{i}", t["ink"], 0.5, 0.3)
        z = t["thick"] + 0.04 * MM
        if t["mark"] == "ring":
            bm = bmesh.new()
            ring_bm(bm, 0, 0, t["size"] * 0.26, t["size"] * 0.33, z, M)
            mesh_object(f"tilering{i}", bm, [ink])
        elif t["mark"]:
            text_object(
                f"tilemk{i}", t["mark"], t["size"] * 0.55, ink, M @ Matrix.Translation((0, 0, z))
            )


# --------------------------------------------------------------------------- visibility and labels


def scene_bvh():
    """One BVH over every rendered mesh in world space, and the owner of each triangle."""
    bpy.context.view_layer.update()
    dg = bpy.context.evaluated_depsgraph_get()
    verts, tris, owners, starts = [], [], [], []
    for ob in bpy.context.scene.objects:
        if ob.type != "MESH" or ob.hide_render:
            continue
        ev = ob.evaluated_get(dg)
        me = ev.to_mesh()
        me.calc_loop_triangles()
        n = len(me.vertices)
        co = np.empty(n * 3)
        me.vertices.foreach_get("co", co)
        co = co.reshape(-1, 3)
        Mw = np.array(ob.matrix_world)
        co = co @ Mw[:3, :3].T + Mw[:3, 3]
        t = np.empty(len(me.loop_triangles) * 3, dtype=np.int64)
        me.loop_triangles.foreach_get("vertices", t)
        t = t.reshape(-1, 3) + len(verts)
        starts.append(len(tris))
        owners.append(ob.name)
        verts.extend(co.tolist())
        tris.extend(t.tolist())
        ev.to_mesh_clear()
    return BVHTree.FromPolygons(verts, tris, all_triangles=True), np.array(starts), owners


def local_bvh(mesh, cache):
    if mesh.name not in cache:
        mesh.calc_loop_triangles()
        co = [tuple(v.co) for v in mesh.vertices]
        t = [tuple(lt.vertices) for lt in mesh.loop_triangles]
        cache[mesh.name] = BVHTree.FromPolygons(co, t, all_triangles=True)
    return cache[mesh.name]


def die_visibility(cam, ob, tree, starts, owners, local_tree):
    """Ray per pixel (subsampled for big dice) over the die's projected cube box:
    fraction of the die's silhouette that is in the frame and not hidden, and the box of
    the visible pixels."""
    W, H = cam.W, cam.H
    a = DIE_MM / 2 * MM
    Mw = ob.matrix_world
    pts = [
        cam.project(Mw @ Vector((sx * a, sy * a, sz * a)))
        for sx in (-1, 1)
        for sy in (-1, 1)
        for sz in (-1, 1)
    ]
    if any(p is None for p in pts):
        return None
    xs, ys = [p[0] for p in pts], [p[1] for p in pts]
    x0, x1, y0, y1 = math.floor(min(xs)) - 2, max(xs) + 2, math.floor(min(ys)) - 2, max(ys) + 2
    step = max(1.0, max(x1 - x0, y1 - y0) / 64.0)
    Minv = Mw.inverted()
    R_inv = Minv.to_3x3()
    o_loc = Minv @ cam.loc
    total = inframe = visible = 0
    vx, vy = [], []
    for py in np.arange(y0 + step / 2, y1, step):
        for px in np.arange(x0 + step / 2, x1, step):
            d = cam.ray(px, py)
            hit = local_tree.ray_cast(o_loc, R_inv @ d)
            if hit[0] is None:
                continue
            total += 1
            if not (0 <= px < W and 0 <= py < H):
                continue
            inframe += 1
            h = tree.ray_cast(cam.loc, d)
            if h[2] is None:
                continue
            k = int(np.searchsorted(starts, h[2], side="right") - 1)
            if owners[k] == ob.name:
                visible += 1
                vx.append(px)
                vy.append(py)
    if total == 0:
        return dict(visible=0.0, in_frame=0.0, unoccluded=0.0, bbox=None, cube_bbox=None)
    cube = [max(0.0, min(xs)), max(0.0, min(ys)), min(float(W), max(xs)), min(float(H), max(ys))]
    box = None
    if vx:
        h2 = step / 2
        box = [
            max(0.0, min(vx) - h2),
            max(0.0, min(vy) - h2),
            min(float(W), max(vx) + h2),
            min(float(H), max(vy) + h2),
        ]
    return dict(
        visible=visible / total,
        in_frame=inframe / total,
        unoccluded=visible / inframe if inframe else 0.0,
        bbox=box,
        cube_bbox=[round(v, 1) for v in cube],
        step=step,
    )


# --------------------------------------------------------------------------- scene


def clear_scene(keep):
    for ob in list(bpy.data.objects):
        bpy.data.objects.remove(ob)
    for coll in (bpy.data.curves, bpy.data.lights, bpy.data.cameras, bpy.data.worlds):
        for d in list(coll):
            coll.remove(d)
    for me in list(bpy.data.meshes):
        if me.name not in keep:
            bpy.data.meshes.remove(me)
    for m in list(bpy.data.materials):
        if m.name not in ("__body__", "__pip__"):
            bpy.data.materials.remove(m)


class Centre:
    """Stands in for render_table's Sheet where only the scene centre is used (lights)."""

    w = h = 0.0

    def __init__(self, p):
        self.p = p

    def board_to_world(self, x, y, z=0.0):
        return Vector((self.p.x, self.p.y, z))


def done(root, stem):
    return all(
        (root / sub / f"{stem}.{ext}").exists()
        for sub, ext in (("images", "png"), ("labels", "txt"), ("meta", "json"))
    )


def render_image(idx, kind, args, lib, W, H, trees):
    root = Path(args.out) / kind
    stem = f"{idx:04d}"
    if done(root, stem):
        return None
    t0 = time.time()
    rng = np.random.default_rng((args.seed, KINDS.index(kind), idx))
    c = sample_camera(rng, kind, W, H)
    cam = Cam(c["loc"], c["rot"], c["focal"], W, H)
    if kind in ("dark-wood", "light-wood"):
        table = rt.sample_table(rng, kind)
    elif kind == "artwork":
        table = rt.sample_table(rng, "artwork")
    else:
        table = rt.sample_table(rng, "mixed")
    light = rt.sample_light(rng, Centre(c["target"]))
    n_dice = int(rng.integers(1, 6)) if kind == "closeup" else int(rng.integers(2, 17))
    sets, dice_sets = sample_sets(rng, lib, n_dice, emblems=kind == "emblems")

    platforms, extras = [], {}
    if kind == "keys":
        kb = sample_keyboard(rng, cam, W, H)
        platforms.append(keyboard_platform(kb))
        extras["keyboard"] = kb
        if rng.random() < 0.8:
            tg = sample_tile_grid(rng, cam, W, H, [platforms[0]["off"]])
            if tg is not None:
                platforms.append(tile_grid_platform(tg))
                extras["tile_grid"] = tg
    elif kind == "cards":
        cards = sample_cards(rng, cam, W, H)
        tiles = sample_loose_tiles(rng, cam, W, H)
        platforms += [card_platform(cd) for cd in cards] + [tile_platform(t) for t in tiles]
        extras["cards"], extras["tiles"] = cards, tiles
    elif kind == "artwork":
        extras["decals"] = sample_decals(rng, cam, W, H)
        extras["busy"] = int(rng.integers(0, 2**31 - 1))
    dice = place_dice(rng, cam, dice_sets, platforms, W, H)
    small = []
    if kind in ("dark-wood", "light-wood", "artwork", "closeup", "oblique", "emblems"):
        small = sample_small_distractors(rng, cam, W, H, dice)
    for d in dice:
        s = d["set"]
        d["body"] = np.clip(s["body"] * (1 + rng.normal(0, 0.012, 3)), 0.001, 1.0)
    render_seed = int(rng.integers(0, 2**31 - 1))

    # ---- build
    clear_scene(lib.keep())
    rt.setup_render(W, H, args.samples, render_seed)
    rt.build_table(table)
    if kind == "artwork":
        busier_artwork(np.random.default_rng(extras["busy"]), table)
        build_decals(extras["decals"])
    if "keyboard" in extras:
        build_keyboard(extras["keyboard"])
    if "tile_grid" in extras:
        build_tile_grid(extras["tile_grid"])
    if "cards" in extras:
        build_cards(extras["cards"])
        build_loose_tiles(extras["tiles"])
    rt.build_camera(c, W, H)
    light_info = rt.build_lights(light, Centre(c["target"]))
    rt.build_distractors(small)
    pip_mats = {}
    obs = []
    for i, d in enumerate(dice):
        s = d["set"]
        mesh = lib.mesh(s["shape"])
        for pc in ("white", "black"):
            key = (id(s), pc)
            if key not in pip_mats:
                pip_mats[key] = rt.plastic_material(
                    f"pip{len(pip_mats)}", rt.PIP_RGB[pc], s, pip=True
                )
        dd = dict(set_params=s, body=d["body"], pip=s["pip"], pose=d["pose"])
        obs.append(rt.build_die(f"die{i:02d}", dd, mesh, pip_mats))

    # ---- visibility: take out dice under MIN_VISIBLE, then label the rest
    removed = []
    vis = {}
    for _round in range(3):
        tree, starts, owners = scene_bvh()
        vis = {}
        drop = []
        for i, ob in enumerate(obs):
            if ob is None:
                continue
            v = die_visibility(
                cam, ob, tree, starts, owners, local_bvh(lib.mesh(dice[i]["set"]["shape"]), trees)
            )
            vis[i] = v
            if v is None or v["visible"] < MIN_VISIBLE or v["bbox"] is None:
                drop.append(i)
        if not drop:
            break
        for i in drop:
            removed.append(
                dict(
                    value=dice[i]["value"],
                    set=dice[i]["set"]["colour"],
                    visible=round(vis[i]["visible"], 3) if vis[i] else None,
                    in_frame=round(vis[i]["in_frame"], 3) if vis[i] else None,
                )
            )
            bpy.data.objects.remove(obs[i])
            obs[i] = None
    keep = [i for i, ob in enumerate(obs) if ob is not None]

    labels, meta_dice = [], []
    for i in keep:
        d, v, s = dice[i], vis[i], dice[i]["set"]
        x0, y0, x1, y1 = v["bbox"]
        cx, cy, bw, bh = (x0 + x1) / 2 / W, (y0 + y1) / 2 / H, (x1 - x0) / W, (y1 - y0) / H
        labels.append(f"{d['value'] - 1} {cx:.6f} {cy:.6f} {bw:.6f} {bh:.6f}")
        top = cam.project(
            d["pose"]["loc"]
            + d["pose"]["R"] @ (Vector(rt.FACE_NORMALS[d["value"]]) * DIE_MM / 2 * MM)
        )
        meta_dice.append(
            dict(
                value=d["value"],
                color=None if s["other"] else s["colour"],
                set=s["colour"],
                body=[round(float(x), 4) for x in d["body"]],
                pip=s["pip"],
                bbox=[round(x, 1) for x in v["bbox"]],
                cube_bbox=v["cube_bbox"],
                top=[round(top[0], 1), round(top[1], 1)],
                visible=round(v["visible"], 3),
                in_frame=round(v["in_frame"], 3),
                unoccluded=round(v["unoccluded"], 3),
                tilt_deg=round(math.degrees(d["pose"]["tilt"]), 1),
                yaw_deg=round(math.degrees(d["pose"]["yaw"]) % 360, 1),
                on=d["on"],
                material=s["material"],
                pip_style=s["pip_style"],
                bevel_mm=round(s["bevel"], 2),
                shape=s["shape"],
            )
        )
    meta = {
        "image": f"{stem}.png",
        "kind": kind,
        "width": W,
        "height": H,
        "seed": args.seed,
        "index": idx,
        "samples": args.samples,
        "table": table["kind"],
        "table_detail": table.get("detail"),
        "camera": {
            "tilt_deg": round(c["tilt"], 2),
            "distance_mm": round(c["dist"] / MM, 1),
            "height_mm": round(c["loc"].z / MM, 1),
            "focal_mm": round(c["focal"], 2),
            "roll_deg": round(c["roll"], 2),
            "azimuth_deg": round(c["az"] % 360, 1),
            "die_px_at_target": round(c["die_px"], 1),
            "sensor_width_mm": SENSOR_W,
        },
        "light": {
            "kelvin": round(light["kelvin"]),
            "strength": round(light["strength"], 3),
            "hard_shadows": light["hard"],
            "white_balance_k": round(light["wb_k"]),
            "lights": light_info,
        },
        "objects": {
            "keyboard": "keyboard" in extras,
            "tile_grid": ("printed" if extras["tile_grid"]["printed"] else "raised")
            if "tile_grid" in extras
            else None,
            "cards": [
                f"{cd['rank']}{cd['suit'][0]}" + ("(back)" if cd["back"] else "")
                for cd in extras.get("cards", [])
            ],
            "tiles": [t["mark"] or "blank" for t in extras.get("tiles", [])],
            "decals": [dc["kind"] for dc in extras.get("decals", [])],
            "small": [it["kind"] for it in small],
        },
        "dice": meta_dice,
        "removed_dice": removed,
    }
    t_build = time.time() - t0
    for sub in ("images", "labels", "meta", "tmp"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    tmp = root / "tmp" / f"{stem}.png"
    t1 = time.time()
    sc = bpy.context.scene
    sc.render.filepath = str(tmp)
    with rt.quiet(root / "blender.log"):
        bpy.ops.render.render(write_still=True)
    t_render = time.time() - t1
    meta["seconds"] = {"build": round(t_build, 2), "render": round(t_render, 2)}
    os.replace(tmp, root / "images" / f"{stem}.png")
    (root / "labels" / f"{stem}.txt.part").write_text("".join(line + "\n" for line in labels))
    os.replace(root / "labels" / f"{stem}.txt.part", root / "labels" / f"{stem}.txt")
    rt.write_json(root / "meta" / f"{stem}.json", meta)
    return time.time() - t0, t_build, t_render, len(keep), len(removed)


def main(argv=None):
    argv, ap = rt.command_line(argv, __doc__)
    ap.add_argument("--kind", required=True, choices=KINDS + ["all"])
    ap.add_argument("--images", type=int, required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--samples", type=int, default=16)
    ap.add_argument("--size", default="640x480")
    ap.add_argument("--start", type=int, default=0, help="first image index")
    args = ap.parse_args(argv)
    W, H = (int(v) for v in args.size.lower().split("x"))
    bpy.ops.wm.read_factory_settings(use_empty=True)
    lib = ShapeLibrary(args.seed)
    trees = {}
    kinds = KINDS if args.kind == "all" else [args.kind]
    for kind in kinds:
        t_all, n_done = time.time(), 0
        for idx in range(args.start, args.start + args.images):
            res = render_image(idx, kind, args, lib, W, H, trees)
            if res is None:
                print(f"{kind} {idx:04d} skip (exists)", flush=True)
                continue
            total, tb, tr, n, nr = res
            n_done += 1
            print(
                f"{kind} {idx:04d} {total:.1f}s (build {tb:.1f}s, render {tr:.1f}s; "
                f"{n} dice, {nr} removed)",
                flush=True,
            )
        print(f"{kind}: {n_done} images in {time.time() - t_all:.0f}s", flush=True)


if __name__ == "__main__":
    main()
