"""One die seen from above, drawn analytically: the sprite every synthetic scene is made of.

A die is drawn from a signed-distance field of a rounded square in the die's own frame, so any
in-plane rotation, corner radius and pip size comes out antialiased without rotating a bitmap.
The bevel is a normal map derived from the same field, which gives the rim shading and the
specular glint that real plastic dice show; pips are shallow dimples (dark rim, lighter floor).
A mild camera tilt shows one side face, drawn as the same square swept along the tilt vector.

Pip layouts are the standard ones (PIP_LAYOUTS); the value is the class by construction, which is
why the labels are exact.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# Pip centres in face units (the face spans -1..1 on both axes); standard Western layout.
_A = 0.5
PIP_LAYOUTS: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.0, 0.0),),
    2: ((-_A, -_A), (_A, _A)),
    3: ((-_A, -_A), (0.0, 0.0), (_A, _A)),
    4: ((-_A, -_A), (_A, -_A), (-_A, _A), (_A, _A)),
    5: ((-_A, -_A), (_A, -_A), (0.0, 0.0), (-_A, _A), (_A, _A)),
    6: ((-_A, -_A), (-_A, 0.0), (-_A, _A), (_A, -_A), (_A, 0.0), (_A, _A)),
}


def _segments(u, v, points, width: float) -> np.ndarray:
    """Distance (face units) to a polyline through `points`, less `width`: a printed stroke."""
    d = np.full(np.shape(u), 9.0, dtype=np.float32)
    for (x0, y0), (x1, y1) in zip(points[:-1], points[1:], strict=True):
        ex, ey = x1 - x0, y1 - y0
        t = np.clip(((u - x0) * ex + (v - y0) * ey) / (ex * ex + ey * ey), 0, 1)
        d = np.minimum(d, np.hypot(u - x0 - t * ex, v - y0 - t * ey))
    return d - width


def _star(r: float) -> list[tuple[float, float]]:
    """A pentagram's outline, every second corner of a pentagon of radius `r`, closed."""
    corners = [(np.pi / 2 + 4 * np.pi * k / 5) for k in range(6)]
    return [(r * np.cos(a), -r * np.sin(a)) for a in corners]


# Many real sets print the maker's emblem on the six instead of six pips (issue 19: such a six
# was read as a 1 or a 2). Each is a signed distance (face units, negative on the ink) drawn in
# the pips' colour; the reader must take any such mark for a six. `DieStyle.logo` picks one.
LOGOS: tuple = (
    lambda u, v: np.abs(np.hypot(u, v) - 0.5) - 0.09,  # a ring
    lambda u, v: _segments(u, v, _star(0.62), 0.06),  # a pentagram
    lambda u, v: np.minimum(np.abs(np.hypot(u, v) - 0.62) - 0.05, np.hypot(u, v) - 0.24),  # crest
    lambda u, v: _segments(u, v, [(-0.42, 0.55), (0.0, -0.55), (0.42, 0.55)], 0.07),  # a chevron
    lambda u, v: np.abs(u) + np.abs(v) - 0.5,  # a diamond
)


def marks(
    value: int, logo: int, u, v, pip_radius: float, stretch: tuple[float, float] = (1.0, 0.0)
) -> np.ndarray:
    """Signed distance (face units) to the ink on a face showing `value`: its pips, or for a six
    with a `logo` (1..len(LOGOS)) the emblem printed instead. `stretch` (factor, direction in
    radians) draws each pip that many times longer along the direction (`DieStyle.pip_stretch`)."""
    if value == 6 and logo:
        return LOGOS[logo - 1](u, v).astype(np.float32)
    factor, angle = stretch
    c, s = np.cos(angle), np.sin(angle)
    d = np.full(np.shape(u), 9.0, dtype=np.float32)
    for cx, cy in PIP_LAYOUTS[value]:
        du, dv = u - cx, v - cy
        d = np.minimum(d, np.hypot((du * c + dv * s) / factor, dv * c - du * s) - pip_radius)
    return d


def stretched_pips(rng: np.random.Generator, pip_radius: float) -> tuple[float, float]:
    """A `DieStyle.pip_stretch`: 1.2-1.6 times long in any direction, never so long that a six's
    pips (0.5 apart in a column) run together: a real die's smeared pips are still its pips."""
    return float(min(rng.uniform(1.2, 1.6), 0.23 / pip_radius)), float(rng.uniform(0, np.pi))


# Body colours in linear-ish sRGB 0..1 (R, G, B). The game's five player colours come first; the
# others exist so the value detector sees many dice, and the colour classifier learns "none of
# the five" (null). Each is jittered per die.
GAME_COLORS: dict[str, tuple[float, float, float]] = {
    "grey": (0.50, 0.50, 0.50),
    "brown": (0.45, 0.27, 0.14),
    "blue": (0.10, 0.28, 0.70),
    "green": (0.12, 0.52, 0.22),
    "yellow": (0.92, 0.78, 0.12),
}
OTHER_COLORS: dict[str, tuple[float, float, float]] = {
    "white": (0.93, 0.93, 0.90),
    "ivory": (0.92, 0.88, 0.76),
    "black": (0.07, 0.07, 0.08),
    "red": (0.80, 0.10, 0.10),
    "orange": (0.95, 0.45, 0.08),
    "purple": (0.42, 0.18, 0.60),
    "pink": (0.95, 0.50, 0.65),
    "cyan": (0.10, 0.70, 0.80),
    "lime": (0.55, 0.85, 0.15),
}
# The shades each game colour is drawn in (renderer 5): from one end to the other, so the reader
# learns a colour's range rather than one body (players replace lost dice; sets differ).
GAME_SHADES: dict[str, tuple[tuple[float, float, float], tuple[float, float, float]]] = {
    "grey": ((0.30, 0.31, 0.33), (0.74, 0.74, 0.76)),
    "brown": ((0.30, 0.17, 0.09), (0.62, 0.42, 0.24)),
    "blue": ((0.08, 0.20, 0.60), (0.25, 0.48, 0.88)),
    "green": ((0.06, 0.36, 0.16), (0.35, 0.66, 0.22)),
    "yellow": ((0.95, 0.68, 0.08), (0.97, 0.90, 0.30)),
}
# Not in OTHER_COLORS on purpose: navy or dark brown-orange dice, which any player would call
# "blue" or "brown"; the colour ground truth must be something a person agrees with.

# A wider reading of each game colour, for a reader that must name dice from sets nobody here
# has seen (`alea train --face-shades wide`). The ends come from the named web colours (CSS /
# X11) a person calls by the player's colour, not from any renderer's dice: charcoal to silver,
# dark chocolate to a light brown between peru and tan, navy to cornflower, dark green to lime
# green, goldenrod to lemon. A lime die is then a green one, so lime leaves the other colours.
WIDE_SHADES: dict[str, tuple[tuple[float, float, float], tuple[float, float, float]]] = {
    "grey": ((0.25, 0.26, 0.28), (0.78, 0.78, 0.80)),
    "brown": ((0.26, 0.15, 0.08), (0.78, 0.60, 0.38)),
    "blue": ((0.05, 0.10, 0.45), (0.42, 0.64, 0.92)),
    "green": ((0.03, 0.30, 0.10), (0.45, 0.80, 0.20)),
    "yellow": ((0.90, 0.62, 0.05), (0.99, 0.94, 0.32)),
}
SHADE_SETS = {"game": GAME_SHADES, "wide": WIDE_SHADES}
# The colours of no player, each in a range of its own as well (`--face-shades spread`): a reader
# that learns the five colours in wide ranges must also learn where they end, and fixed points
# for the others teach it only a few places past those ends. Each range stays a colour anyone
# names the same way (burgundy to scarlet is red); magenta joins them; no lime (a green die).
OTHER_SHADES: dict[str, tuple[tuple[float, float, float], tuple[float, float, float]]] = {
    "white": ((0.88, 0.88, 0.86), (0.97, 0.97, 0.95)),
    "ivory": ((0.88, 0.82, 0.66), (0.96, 0.93, 0.82)),
    "black": ((0.03, 0.03, 0.04), (0.13, 0.13, 0.14)),
    "red": ((0.45, 0.04, 0.08), (0.92, 0.20, 0.16)),
    "orange": ((0.88, 0.36, 0.04), (1.00, 0.56, 0.20)),
    "purple": ((0.28, 0.10, 0.42), (0.66, 0.42, 0.82)),
    "pink": ((0.90, 0.38, 0.55), (1.00, 0.74, 0.82)),
    "cyan": ((0.02, 0.62, 0.72), (0.36, 0.84, 0.90)),
    "magenta": ((0.72, 0.04, 0.56), (0.95, 0.30, 0.88)),
}
# What `--face-shades` may name: a shade set; `half`: each die (each colour of a table's set)
# drawn from one or the other at even odds; `spread`: as `half`, and the colours of no player
# from OTHER_SHADES.
SHADE_CHOICES = (*SHADE_SETS, "half", "spread")


def shade_set(rng: np.random.Generator, shades: str) -> str:
    """The SHADE_SETS entry one die is drawn from; only `half` and `spread` take a random
    number."""
    if shades in ("half", "spread"):
        return "wide" if rng.random() < 0.5 else "game"
    return shades


def other_colors(shades: str = "game") -> list[str]:
    """The colours of no player's dice beside a shade choice (the wide shades call a lime die
    green)."""
    if shades == "spread":
        return list(OTHER_SHADES)
    return [c for c in OTHER_COLORS if not (shades != "game" and c == "lime")]


def other_body(rng: np.random.Generator, color: str, shades: str = "game") -> np.ndarray:
    """The body of a die of no player's colour: its one colour, or (`spread`) a point along
    its range; only `spread` takes a random number."""
    if shades == "spread":
        dark, light = (np.array(v) for v in OTHER_SHADES[color])
        return dark + (light - dark) * rng.random()
    return np.array(OTHER_COLORS[color])


@dataclass(frozen=True)
class DieStyle:
    """Everything that decides how one die looks, drawn by `render_die`."""

    value: int
    color: str  # a key of GAME_COLORS, OTHER_COLORS or OTHER_SHADES
    body: tuple[float, float, float]  # RGB 0..1
    pip: tuple[float, float, float]
    side: float  # face side in output pixels
    angle: float  # radians, in-plane rotation
    corner: float  # rounded-corner radius, face units (0..1)
    pip_radius: float  # face units
    tilt: tuple[float, float]  # side-face sweep in output pixels (camera not straight above)
    light: tuple[float, float, float]  # unit light direction (towards the light)
    gloss: float  # specular strength 0..1
    marble: float  # 0 plain, up to 1 swirled two-tone plastic
    blank: bool = False  # a pip-less cube: a negative that teaches "pips make a die"
    # The values on the side faces beyond the top face's edges +u, +v, -u, -v (`side_values`);
    # empty: plain side faces, as every die was drawn before.
    sides: tuple[int, ...] = ()
    # The light (linear RGB, a share of the paper's white) a large lamp's mirror image lays over
    # the flat top face: seen in the face's mirror direction, a lamp wider than the face fills
    # it edge to edge. The rounded rim and the pips' dimples face elsewhere and keep their colour.
    glare: tuple[float, float, float] = (0.0, 0.0, 0.0)
    # A six printed with the maker's emblem (`LOGOS[logo - 1]`) instead of pips; 0: six pips.
    logo: int = 0
    # (factor, direction in radians): every pip drawn that many times longer along the direction,
    # as the light draws the pips of a glossy or translucent real die. A reader taught emblem
    # sixes took such a three for a six (an odd mark alone must not mean six); (1, 0): round.
    pip_stretch: tuple[float, float] = (1.0, 0.0)
    # 0 opaque; up to 1, a clear plastic die: the pips of the face beneath show through the top,
    # mirrored and faint, where the camera's lean puts them, and the body glows in its middle. A
    # real translucent three with its four beneath was read as a six.
    translucent: float = 0.0


def side_values(rng: np.random.Generator, top: int) -> tuple[int, int, int, int]:
    """The four faces around `top` in ring order, as a real die has them: opposite faces sum to
    seven, so the ring is a, b, 7 - a, 7 - b with neither a nor b being top or its opposite.
    A leaning camera sees one or two of them, pips and all, and must still read the top."""
    ring = [v for v in range(1, 7) if v not in (top, 7 - top)]
    a = int(rng.choice(ring))
    b = int(rng.choice([v for v in ring if v not in (a, 7 - a)]))
    order = [a, b, 7 - a, 7 - b]
    k = int(rng.integers(4))
    return tuple(order[k:] + order[:k])  # type: ignore[return-value]


# Least luminance difference between pips and body. Renderer 2 gave 15 % of bright dice light
# pips whatever the body, so a white die could wear white pips and a yellow one gold: labelled
# values nobody can read (three of the eight misses on its test set). Contrast is judged on
# luminance, not hue, because the camera's casts, blur and JPEG wash out hue first.
PIP_CONTRAST = 0.25
_WHITE_PIP, _BLACK_PIP = (0.95, 0.95, 0.93), (0.05, 0.05, 0.06)
GAME_PIP_CONTRAST = 0.1


def luminance(rgb) -> float:
    """The renderer's brightness of a colour (0.3 R + 0.59 G + 0.11 B)."""
    return float(np.asarray(rgb, float) @ (0.3, 0.59, 0.11))


def _readable_pip(pip: np.ndarray, body_lum: float) -> np.ndarray:
    """`pip`, or white or black (whichever stands out more) where `pip` would not stand out.

    Takes no random numbers, so a seed draws the same scene as renderer 2 did, only with the
    unreadable pips repainted."""
    if abs(luminance(pip) - body_lum) >= PIP_CONTRAST:
        return pip
    return np.array(_WHITE_PIP if body_lum < 0.5 else _BLACK_PIP)


def game_pip(color: str) -> tuple[float, float, float]:
    """The pip colour of the game's dice of `color`: white on its dark dice, black on yellow.

    A set of dice is made with one pip colour, so each game colour has one, decided on its
    nominal body and not on a die's brightness jitter. The table (scanner.synth.table) draws the
    game's dice with it unless told other dice (its DiceSet); since renderer 5 the photos draw
    either pip colour on every game colour, since nobody here knows the real game's pips and
    the colour must come from the body. Renderer 3 and before gave the brightest
    13 % of the photos' grey dice black pips, a grey die the table never shows; read as no
    player's colour, they were 20 of the 53 colour errors on its test set. The real dice's pips are
    not measured: if the game's grey dice wear black pips, this is the one place to say so."""
    return _WHITE_PIP if luminance(GAME_COLORS[color]) < 0.55 else _BLACK_PIP


def shade(color: str, t: float, shades: str = "game") -> np.ndarray:
    """The game colour's body at `t` (0..1) along its range of shades (a SHADE_SETS entry)."""
    dark, light = (np.array(v) for v in SHADE_SETS[shades][color])
    return dark + (light - dark) * float(t)


def random_style(
    rng: np.random.Generator,
    value: int,
    side: float,
    game_share: float = 0.6,
    shades: str = "game",
):
    """A random but plausible die; `game_share` of them wear one of the game's five colours,
    in the shades `shades` names (SHADE_CHOICES)."""
    if rng.random() < game_share:
        color = str(rng.choice(list(GAME_COLORS)))
        base = shade(color, rng.random(), shade_set(rng, shades))
    else:
        color = str(rng.choice(other_colors(shades)))
        base = other_body(rng, color, shades)
    body = np.clip(base * rng.uniform(0.85, 1.12) + rng.normal(0, 0.025, 3), 0, 1)
    lum = luminance(body)
    if lum < 0.55 or rng.random() < 0.15:
        pip = np.array(_WHITE_PIP if rng.random() < 0.9 else (0.9, 0.75, 0.2))  # or gold
    else:
        pip = np.array(_BLACK_PIP if rng.random() < 0.85 else (0.7, 0.1, 0.1))  # or dark red
    if color in GAME_COLORS:  # either pip colour: a die's colour is its body's (renderer 5)
        white = rng.random() < 0.5
        # White on yellow stands out less than PIP_CONTRAST asks, yet real sets have it (the
        # pips' dimples show): only where it would be nearly invisible is it the other one.
        if abs(luminance(_WHITE_PIP if white else _BLACK_PIP) - lum) < GAME_PIP_CONTRAST:
            white = not white
        pip = np.array(_WHITE_PIP if white else _BLACK_PIP)
    else:
        pip = _readable_pip(pip, lum)
    pip = np.clip(pip + rng.normal(0, 0.03, 3), 0, 1)
    elev = rng.uniform(0.55, 1.0)
    az = rng.uniform(0, 2 * np.pi)
    light = np.array((np.cos(az) * np.sqrt(1 - elev**2), np.sin(az) * np.sqrt(1 - elev**2), elev))
    tilt_mag = side * rng.uniform(0.0, 0.22) if rng.random() < 0.5 else 0.0
    tilt_dir = rng.uniform(0, 2 * np.pi)
    return DieStyle(
        value=value,
        color=color,
        body=tuple(body.tolist()),
        pip=tuple(pip.tolist()),
        side=float(side),
        angle=float(rng.uniform(0, 2 * np.pi)),
        corner=float(rng.uniform(0.12, 0.38)),
        pip_radius=float(
            rng.uniform(0.13, 0.2) * (1.35 if value == 1 and rng.random() < 0.4 else 1.0)
        ),
        tilt=(float(tilt_mag * np.cos(tilt_dir)), float(tilt_mag * np.sin(tilt_dir))),
        light=tuple(light.tolist()),
        gloss=float(rng.uniform(0.1, 0.9)),
        # The game's dice are plain; swirled plastic only appears among the other colours.
        marble=float(rng.uniform(0.3, 1.0))
        if color not in GAME_COLORS and rng.random() < 0.25
        else 0.0,
    )


def _box_sdf(u: np.ndarray, v: np.ndarray, corner: float) -> np.ndarray:
    """Signed distance (face units) to a rounded square of half-side 1; negative inside."""
    h = 1.0 - corner
    qx, qy = np.abs(u) - h, np.abs(v) - h
    outside = np.hypot(np.maximum(qx, 0), np.maximum(qy, 0))
    inside = np.minimum(np.maximum(qx, qy), 0)
    return outside + inside - corner


def _side_pips(style: DieStyle, side_rgb, px, py, aa: float):
    """`side_rgb` with the pips of each side face the tilt shows (`style.sides`). A side face is
    the top face's edge swept along the tilt: each pixel's place on it, (a along the edge, t
    along the tilt), solves p = corner + a * edge + t * tilt, and the face's pips are circles
    in (a, 2t - 1), as on the top face."""
    c, s = np.cos(style.angle), np.sin(style.angle)
    half = style.side / 2.0
    tx, ty = style.tilt
    pip = np.array(style.pip, dtype=np.float32) * 0.65
    out = np.array(side_rgb, dtype=np.float32, copy=True)
    for (nu, nv), value in zip(((1, 0), (0, 1), (-1, 0), (0, -1)), style.sides, strict=True):
        nx, ny = (c * nu - s * nv), (s * nu + c * nv)  # the edge's outward normal in the image
        if nx * tx + ny * ty <= 0:
            continue  # this face looks away from the camera
        ex, ey = -ny * half, nx * half  # half the edge, in pixels
        ox, oy = nx * half - tx / 2, ny * half - ty / 2  # the edge's middle on the top face
        det = ex * ty - ey * tx
        if abs(det) < 1e-6:
            continue
        qx, qy = px - ox, py - oy
        a = (qx * ty - qy * tx) / det
        t = (ex * qy - ey * qx) / det
        b = 2 * t - 1
        inside = (np.abs(a) < 1) & (t > 0) & (t < 1)
        d = marks(value, style.logo, a, b, style.pip_radius, style.pip_stretch)
        squeeze = min(1.0, np.hypot(tx, ty) / style.side)  # the face is seen edge-on at low tilt
        pip_a = (np.clip(0.5 - d / (aa / squeeze), 0, 1) * inside)[..., None]
        out = out * (1 - pip_a) + pip * pip_a
    return out


def _seen_through(rgb, style: DieStyle, body, face_uv, u, v, aa):
    """A translucent die's top face: its middle glows, and the pips of the face beneath (7 -
    value, mirrored) show through it, soft and tinted by the body. Refraction lifts the base to
    two thirds of its depth, so a leaning camera sees them two thirds of the side face's sweep
    (`tilt`) off the top face."""
    t = style.translucent
    glow = 1 + 0.35 * t * np.exp(-(u**2 + v**2) / 0.5)[..., None]
    rgb = rgb * glow
    tx, ty = style.tilt
    bu, bv = face_uv(tx / 6, ty / 6)
    d = marks(7 - style.value, 0, -bu / 0.9, bv / 0.9, style.pip_radius)
    ghost = np.clip(0.5 - d / (4 * aa), 0, 1)[..., None] * 0.45 * t
    tint = np.array(style.pip, np.float32) * 0.5 + body * 0.5
    return rgb * (1 - ghost) + tint * ghost


def render_die(style: DieStyle, rng: np.random.Generator, supersample: int | None = None):
    """Draw one die on a transparent square patch.

    Returns (rgb float32 HxWx3 in 0..1, alpha float32 HxW, outline Nx2 in patch pixels). The
    outline (top face plus swept side face) is what the label box is computed from, after any
    camera warp, so the box always hugs what is drawn.
    """
    # Small dice need 2x supersampling for round pips; from ~40 px the edge antialiasing suffices.
    ss = supersample or (2 if style.side < 40 else 1)
    half = style.side / 2.0
    reach = half * 1.45 + max(abs(style.tilt[0]), abs(style.tilt[1])) + 2
    size = int(np.ceil(2 * reach))
    n = size * ss
    coords = (np.arange(n, dtype=np.float32) + 0.5) / ss - size / 2.0
    px, py = np.meshgrid(coords, coords)
    c, s = np.cos(style.angle), np.sin(style.angle)
    px_per_unit = half  # one face unit in output pixels

    def face_uv(ox: float, oy: float):
        x, y = px - ox, py - oy
        return (c * x + s * y) / px_per_unit, (-s * x + c * y) / px_per_unit

    # The top face sits at the patch centre shifted by -tilt/2, the base at +tilt/2; the side face
    # is the rounded square swept between them.
    tx, ty = style.tilt
    u, v = face_uv(-tx / 2, -ty / 2)
    d_top = _box_sdf(u, v, style.corner)
    d_side = d_top
    steps = int(np.ceil(np.hypot(tx, ty) / (0.15 * style.side)))  # no tilt: no side face
    for t in np.linspace(1.0 / max(steps, 1), 1.0, steps):
        uu, vv = face_uv(-tx / 2 + t * tx, -ty / 2 + t * ty)
        d_side = np.minimum(d_side, _box_sdf(uu, vv, style.corner))

    aa = 1.0 / (px_per_unit)  # one output pixel in face units, for antialiasing
    alpha_top = np.clip(0.5 - d_top / aa, 0, 1)
    alpha_all = np.clip(0.5 - d_side / aa, 0, 1)

    body = np.array(style.body, dtype=np.float32)
    if style.marble > 0:
        # Swirled plastic: a low-frequency two-tone pattern in face coordinates.
        other = np.clip(body[::-1] * 0.6 + rng.uniform(0, 0.6, 3), 0, 1).astype(np.float32)
        f = rng.uniform(2, 5, 4)
        w = np.sin(f[0] * u + 2 * np.sin(f[1] * v)) * np.sin(f[2] * v + 2 * np.cos(f[3] * u))
        m = np.clip(w * 2, 0, 1)[..., None] * style.marble
        albedo = body * (1 - m) + other * m
    else:
        albedo = np.broadcast_to(body, (*u.shape, 3))

    # Bevel normals from the distance field: flat face, rounded rim of width `bevel`.
    bevel = 0.22
    rim = np.clip((d_top + bevel) / bevel, 0, 1) ** 1.5
    gy, gx = np.gradient(d_top)
    gn = np.hypot(gx, gy) + 1e-6
    # gradient in face frame -> image frame (the field was built in rotated coordinates already,
    # so np.gradient over the pixel grid is already in image axes)
    nx, ny = gx / gn * rim, gy / gn * rim
    nz = np.sqrt(np.clip(1 - nx**2 - ny**2, 0.05, 1))
    lx, ly, lz = style.light
    diffuse = np.clip(nx * lx + ny * ly + nz * lz, 0, 1)
    hx, hy, hz = lx, ly, lz + 1.0
    hn = np.sqrt(hx * hx + hy * hy + hz * hz)
    # The glint lives on the rounded rim; a flat face mirrors the lamp only as the soft sheen spot
    # below, never as a fully white face.
    spec = np.clip((nx * hx + ny * hy + nz * hz) / hn, 0, 1) ** 40 * style.gloss * (rim > 0.05)

    shade = (0.45 + 0.6 * diffuse)[..., None]
    rgb = albedo * shade

    if not style.blank:
        pr = style.pip_radius
        d_pip = marks(style.value, style.logo, u, v, pr, style.pip_stretch)
        pip_a = np.clip(0.5 - d_pip / aa, 0, 1)[..., None]
        # Dimple: darker towards the rim on the light side, a little lighter in the middle.
        depth = np.clip(1 + d_pip / pr, 0, 1)[..., None]
        pip_rgb = np.array(style.pip, dtype=np.float32) * (0.7 + 0.3 * depth)
        if style.translucent:
            rgb = _seen_through(rgb, style, body, face_uv, u, v, aa)
        rgb = rgb * (1 - pip_a) + pip_rgb * pip_a
    else:
        pip_a = np.zeros((*u.shape, 1), np.float32)
    if any(style.glare):  # light adds in linear light, not in the image's gamma-coded values
        # A mirror image ends where the bevel's normal turns away by more than the lamp's size.
        flat = np.clip(1 - rim / 0.1, 0, 1)[..., None] * (1 - pip_a)
        lin = np.clip(rgb, 0, 1) ** np.float32(2.2) + np.array(style.glare, np.float32) * flat
        rgb = lin ** np.float32(1 / 2.2)

    # A broad soft sheen plus the sharp glint.
    sheen = np.exp(-((u + lx * 0.8) ** 2 + (v + ly * 0.8) ** 2) / 0.6) * 0.12 * style.gloss
    rgb = rgb + (spec + sheen)[..., None]

    # Side face: darker body colour, only where the top face is not.
    side_rgb = albedo * (0.35 + 0.25 * max(0.0, -(tx * lx + ty * ly)) / (np.hypot(tx, ty) + 1e-6))
    if style.sides and not style.blank and np.hypot(tx, ty) > 0.15 * style.side:
        side_rgb = _side_pips(style, side_rgb, px, py, aa)
    rgb = rgb * alpha_top[..., None] + side_rgb * (1 - alpha_top[..., None])

    if ss > 1:
        rgb = rgb.reshape(size, ss, size, ss, 3).mean(axis=(1, 3))
        alpha_all = alpha_all.reshape(size, ss, size, ss).mean(axis=(1, 3))

    # Outline polygon for labels: the exact rounded-square outline of the top face and the base.
    h, r = 1.0 - style.corner, style.corner
    ang = np.linspace(0, np.pi / 2, 6)
    corner_pts = []
    for sx, sy, a0 in ((1, 1, 0.0), (-1, 1, np.pi / 2), (-1, -1, np.pi), (1, -1, 1.5 * np.pi)):
        corner_pts.append(
            np.stack([sx * h + r * np.cos(ang + a0), sy * h + r * np.sin(ang + a0)], 1)
        )
    fu, fv = np.concatenate(corner_pts).T
    pts = []
    for ox, oy in ((-tx / 2, -ty / 2), (tx / 2, ty / 2)):
        x = (c * fu - s * fv) * px_per_unit + ox + size / 2.0
        y = (s * fu + c * fv) * px_per_unit + oy + size / 2.0
        pts.append(np.stack([x, y], axis=1))
    outline = np.concatenate(pts).astype(np.float32)
    return np.clip(rgb, 0, 1).astype(np.float32), alpha_all.astype(np.float32), outline
