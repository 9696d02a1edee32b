"""A whole table as the webcam sees it: the printed marker sheet with the buildings' dice areas,
the game's dice lying where a board state says, under a random camera pose, light and sensor.

The truth is known by construction (the board state drawn), so these frames measure the whole
pipeline (calibrate → detect → board) and make the demo game `alea serve` plays without a
camera. Dice are 16 mm cubes seen through a pinhole camera, so their top faces show the parallax
the board reader corrects for. Where the dice lie is scanner.synth.arrange's; the board tiles
cut from these frames to train a detector are written by scanner.synth.board_tiles.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field, replace
from functools import lru_cache

import cv2
import numpy as np

from scanner.rules.state import BoardState
from scanner.synth.arrange import TooManyDice, TrueDie, die_rng, lay_out
from scanner.synth.dice import (
    GAME_COLORS,
    GAME_SHADES,
    LOGOS,
    DieStyle,
    game_pip,
    render_die,
    shade,
    shade_set,
)
from scanner.synth.scene import composite
from scanner.synth.surfaces import noise, wood
from scanner.vision.layout import Layout, default_layout
from scanner.vision.sheet import board_to_pixels, render_sheet

FRAME_SIZE = (1280, 720)
SHEET_PX_PER_MM = 4.0
# Printed building artwork under the dice: a tint per building (RGB 0..1).
BUILDING_TINT = {
    "templum": (0.95, 0.88, 0.70),
    "senatus": (0.88, 0.82, 0.90),
    "castrum": (0.82, 0.88, 0.78),
    "forum": (0.93, 0.85, 0.74),
    "latrina": (0.80, 0.86, 0.93),
}


# ------------------------------------------------------------------------- the camera
@dataclass(frozen=True)
class Camera:
    """A pinhole camera over the board: board mm (x, y, z into the table) → image pixels."""

    k: np.ndarray
    r: np.ndarray
    t: np.ndarray

    def project(self, pts: np.ndarray) -> np.ndarray:
        cam = (self.r @ np.asarray(pts, np.float64).reshape(-1, 3).T).T + self.t
        uv = (self.k @ cam.T).T
        return uv[:, :2] / uv[:, 2:3]

    def plane_homography(self) -> np.ndarray:
        """Board plane (z = 0) mm → image pixels."""
        h = self.k @ np.column_stack([self.r[:, 0], self.r[:, 1], self.t])
        return h / h[2, 2]


@dataclass
class TableFrame:
    image: np.ndarray  # BGR uint8, what the camera delivers
    state: BoardState  # what lies on the board (supply not shown)
    dice: list[TrueDie]
    camera: Camera

    def project(self, pts: np.ndarray) -> np.ndarray:
        """Board mm (x, y, z into the table) → this frame's pixels."""
        return self.camera.project(pts)

    def boxes(self, to_pixels=None, die: float = 16.0) -> np.ndarray:
        """(N, 4) box of each die's cube as seen, in this frame's pixels or, through
        `to_pixels` (an image → other pixels map, e.g. a calibration's rectification), in
        another image's: what a perfect detector would report, in `dice` order."""
        out = []
        for d in self.dice:
            cube = np.array(
                [
                    [d.x + sx * die / 2, d.y + sy * die / 2, z]
                    for sx in (-1, 1)
                    for sy in (-1, 1)
                    for z in (0.0, -die)
                ]
            )
            pts = self.project(cube)
            if to_pixels is not None:
                pts = to_pixels(pts)
            out.append([*pts.min(axis=0), *pts.max(axis=0)])
        return np.array(out, np.float64).reshape(-1, 4)


# How far off vertical the camera of a table frame leans by default. A webcam on a stand beside
# the table leans more: a board detector's training and a harder validation pass `max_tilt`.
MAX_TILT_DEG = 20.0


def random_camera(
    layout: Layout, rng: np.random.Generator, size=FRAME_SIZE, max_tilt: float = MAX_TILT_DEG
) -> Camera:
    """Above the board, tilted up to `max_tilt` degrees, turned any way, the sheet filling most
    of the frame."""
    w, h = size
    f = w * rng.uniform(0.8, 1.05)
    k = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]])
    centre = np.array(
        [layout.width / 2 + rng.uniform(-15, 15), layout.height / 2 + rng.uniform(-15, 15), 0.0]
    )
    # Board frame: x right, y down the sheet, z into the table (right-handed, like OpenCV's
    # camera frame), so the camera hangs at negative z and a die's top face is at z = -16 mm.
    tilt, azimuth = np.radians(rng.uniform(0, max_tilt)), rng.uniform(0, 2 * np.pi)
    z = np.array(
        [np.sin(tilt) * np.cos(azimuth), np.sin(tilt) * np.sin(azimuth), np.cos(tilt)]
    )  # the view direction, from the camera towards the board
    # Image "up" roughly along the board's -y (upright), sometimes turned round.
    roll = np.radians(rng.uniform(-8, 8) + (180 if rng.random() < 0.2 else 0))
    down = np.array([-np.sin(roll), np.cos(roll), 0.0])
    y = down - (down @ z) * z
    y /= np.linalg.norm(y)
    x = np.cross(y, z)
    r = np.stack([x, y, z])
    corners = np.array(
        [[0, 0, 0], [layout.width, 0, 0], [layout.width, layout.height, 0], [0, layout.height, 0]],
        np.float64,
    )
    distance = f * layout.width / (w * rng.uniform(0.8, 0.95))
    for _ in range(40):  # back off until the whole sheet is in view with a margin
        cam = Camera(k, r, -r @ (centre - z * distance))
        uv = cam.project(corners)
        if (
            uv[:, 0].min() > 0.02 * w
            and uv[:, 0].max() < 0.98 * w
            and uv[:, 1].min() > 0.02 * h
            and uv[:, 1].max() < 0.98 * h
        ):
            return cam
        distance *= 1.05
    return cam


# ------------------------------------------------------------------------- drawing
def board_artwork(layout: Layout, px_per_mm: float = SHEET_PX_PER_MM) -> np.ndarray:
    """The printed sheet with each building's area tinted like its cardboard piece (RGB).
    Cached per layout: it is the same for every frame of a game."""
    return _artwork(json.dumps(layout.to_json(), sort_keys=True), px_per_mm).copy()


@lru_cache(maxsize=4)
def _artwork(layout_json: str, px_per_mm: float) -> np.ndarray:
    layout = Layout.from_json(json.loads(layout_json))
    sheet = render_sheet(layout, px_per_mm)
    tint = np.ones((*sheet.shape, 3), np.float32)
    m = board_to_pixels(px_per_mm)
    shapes = [(b, z.polygon) for b, z in layout.zones.items()]
    shapes += [("forum", z.polygon) for z in layout.pedestals]
    for building, polygon in shapes:
        pts = cv2.perspectiveTransform(polygon.reshape(-1, 1, 2).astype(np.float64), m)
        cv2.fillPoly(tint, [np.round(pts).astype(np.int32)], BUILDING_TINT[building])
    return (sheet.astype(np.float32) / 255.0)[..., None] * tint


def _die_style(
    player: str, value: int, side: float, tilt, light, yaw, rng, dice: DiceSet | None = None
) -> DieStyle:
    nominal = (dice.bodies.get(player) if dice else None) or GAME_COLORS[player]
    body = np.clip(np.array(nominal) * rng.uniform(0.9, 1.08) + rng.normal(0, 0.015, 3), 0, 1)
    if dice and dice.mixed and player in GAME_SHADES:  # a die from another set: its own shade
        dark, light = (np.array(v) for v in GAME_SHADES[player])
        body = np.clip(body + (light - dark) * rng.uniform(-dice.mixed, dice.mixed), 0, 1)
    pip = (dice.pips.get(player) if dice else None) or game_pip(player)
    return DieStyle(
        value=value,
        color=player,
        body=tuple(body.tolist()),
        pip=pip,
        side=float(side),
        angle=float(yaw),
        corner=float(rng.uniform(0.18, 0.3)),
        pip_radius=float(rng.uniform(0.14, 0.18)),
        tilt=(float(tilt[0]), float(tilt[1])),
        light=light,
        gloss=float(rng.uniform(0.2, 0.6)),
        marble=0.0,
        logo=dice.logo if dice else 0,
    )


def draw_hand(img: np.ndarray, rng: np.random.Generator) -> None:
    """A hand and forearm reaching in from a frame edge (a moving, unsettled table)."""
    h, w = img.shape[:2]
    skin = np.float32(rng.choice([(0.87, 0.67, 0.55), (0.7, 0.5, 0.38), (0.45, 0.3, 0.2)]))
    mask = np.zeros((h, w), np.uint8)
    tip = (int(rng.uniform(0.25, 0.75) * w), int(rng.uniform(0.3, 0.7) * h))
    edge = (tip[0] + int(rng.uniform(-0.2, 0.2) * w), h + 50)
    cv2.line(mask, edge, tip, 255, int(0.12 * h))
    cv2.circle(mask, tip, int(0.09 * h), 255, -1)
    a = cv2.GaussianBlur(mask, (0, 0), 3).astype(np.float32)[..., None] / 255
    shade = 0.85 + 0.15 * noise(rng, h, w, 60)[..., None]
    img[:] = img * (1 - a) + skin * shade * a


@dataclass(frozen=True)
class DiceSet:
    """Other dice than the renderer's own: body and pip colours (RGB 0..1) by the name a die
    is drawn under (a player colour, or any name for a die of no player's colour), and `loose`
    dice drawn besides the state's (on the swatch squares, say). What the colour tests and the
    reference flow need: dice whose colours and pips the training renders never had.
    `mixed` moves each die of a player's colour up to that share of its colour's range (renderer
    5's) from the set's shade, darker or lighter, as when dice from other sets replaced lost
    ones: a palette learnt from one die must still name the others; 0 draws as before.
    `logo` prints that emblem (`scanner.synth.dice.LOGOS`, 1..) on every six, as one maker's
    set does; 0: six pips."""

    bodies: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    pips: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    loose: tuple[TrueDie, ...] = ()
    mixed: float = 0.0
    logo: int = 0


def random_dice(rng: np.random.Generator, beyond: float = 0.0, shades: str = "game") -> DiceSet:
    """A set of the game's dice as one table might have: each colour in one shade of its range,
    with white or black pips (the face reader's board frames are drawn with these). `beyond`
    reaches past both ends of each range by that share of it (darker and lighter dice than
    any the reader learnt, as real sets have); 0 draws the sets of before, number for number.
    `shades` names the ranges (scanner.synth.dice.SHADE_CHOICES)."""
    bodies = {
        c: tuple(np.clip(shade(c, _along(rng, beyond), shade_set(rng, shades)), 0, 1).tolist())
        for c in GAME_COLORS
    }
    pips = {c: PIPS[int(rng.integers(2))] for c in GAME_COLORS}
    return DiceSet(bodies, pips)  # type: ignore[arg-type]


def emblem_set(dice: DiceSet, seed: tuple[int, ...], share: float) -> DiceSet:
    """`dice`, `share` of the time with one maker's emblem on every six (`DiceSet.logo`), drawn
    from a stream of its own (`seed` + 6) so the frame's other draws stay as they were; 0 takes
    no random number, and 1 always prints one."""
    if not share:
        return dice
    rng = np.random.default_rng((*seed, 6))
    if share < 1 and rng.random() >= share:
        return dice
    return replace(dice, logo=int(rng.integers(1, len(LOGOS) + 1)))


def on_swatches(
    layout: Layout, value: int, colors: Collection[str] | None = None, yaw: float = 0.4
) -> tuple[TrueDie, ...]:
    """One die of each colour (`colors`, or every swatch's) on its swatch square of the sheet,
    `value` up: what a reference frame holds when the palette is taken (`alea palette`)."""
    return tuple(
        TrueDie(c, value, "swatch", x, y, yaw)
        for c, (x, y, _) in layout.swatches.items()
        if colors is None or c in colors
    )


def before_the_game(state: BoardState) -> BoardState:
    """`state` with no die in any building: the sheet as it lies when the palette is taken."""
    return state.with_(templum={}, senatus={}, castrum=[], forum=[], latrina={})


# The two pip colours a set is drawn with: white or black.
PIPS = ((0.95, 0.95, 0.93), (0.05, 0.05, 0.06))


def _along(rng: np.random.Generator, beyond: float) -> float:
    """Where a die lies along its colour's range: 0..1, or `beyond` of it past either end."""
    return rng.random() * (1 + 2 * beyond) - beyond


def render_table(
    state: BoardState,
    seed: int | tuple[int, ...],
    layout: Layout | None = None,
    hand: bool = False,
    camera: Camera | None = None,
    size=FRAME_SIZE,
    look: int | tuple[int, ...] | None = None,
    dice: DiceSet | None = None,
    max_tilt: float = MAX_TILT_DEG,
    sheen: float = 0.0,
    glare: float = 0.0,
) -> TableFrame:
    """Draw `state` on the table; the same seed gives the same frame.

    `look` seeds what stays put while a game is filmed (table, light, white balance, lens blur);
    by default it follows `seed`. Frames of one game share a look, as a mounted webcam's do, so
    only dice, hands and sensor noise change between them. `dice` draws other dice (DiceSet);
    `max_tilt` bounds the random camera's lean (random_camera). `sheen`, when above 0, is the
    strongest share of the paper's white that the lamp's mirror image lays over a glossy die
    (`_sheen`); 0 draws the frames as before, pixel for pixel. `glare` is the same spot from a
    lamp wider than a die, mirrored by the flat top faces only, each filled edge to edge
    (`DieStyle.glare`): the strongest share of the paper's white it adds; 0 draws as before."""
    rng = np.random.default_rng(seed)
    env = np.random.default_rng(seed if look is None else look)
    layout = layout or default_layout()
    w, h = size
    die_seed = seed if look is None else look
    truth = lay_out(state, layout, die_seed) + list(dice.loose if dice else ())
    cam = camera or random_camera(layout, env, size, max_tilt)

    img = wood(env, h, w)
    art = board_artwork(layout)
    to_image = cam.plane_homography() @ np.linalg.inv(board_to_pixels(SHEET_PX_PER_MM))
    warped = cv2.warpPerspective(art, to_image, (w, h), flags=cv2.INTER_AREA)
    inside = cv2.warpPerspective(np.ones(art.shape[:2], np.float32), to_image, (w, h))[..., None]
    paper = np.float32(1 + env.normal(0, 0.02, 3)) * env.uniform(0.92, 1.0)
    img = img * (1 - inside) + warped * paper * inside

    # Light from one side: shadows fall the other way, highlights face it.
    az = env.uniform(0, 2 * np.pi)
    elev = env.uniform(0.6, 0.95)
    light = (
        float(np.cos(az) * np.sqrt(1 - elev**2)),
        float(np.sin(az) * np.sqrt(1 - elev**2)),
        float(elev),
    )
    die = layout.die_size
    veil = _sheen(cam, light, sheen, die_seed) if sheen else None
    mirror = _sheen(cam, light, glare, die_seed) if glare else None
    order = sorted(truth, key=lambda d: -np.linalg.norm(cam.r @ (d.x, d.y, 0) + cam.t))
    for d in order:
        own = die_rng(die_seed, "style", d.building, d.player, d.value, d.yaw)
        base, top = cam.project(np.array([[d.x, d.y, 0.0], [d.x, d.y, -die]]))
        edge = cam.project(np.array([[d.x - die / 2, d.y, -die], [d.x + die / 2, d.y, -die]]))
        side = float(np.linalg.norm(edge[1] - edge[0]))
        style = _die_style(d.player, d.value, side, base - top, light, d.yaw, own, dice)
        if mirror is not None:
            style = replace(style, glare=tuple(mirror(d.x, d.y, -die).tolist()))
        rgb, alpha, _ = render_die(style, own)
        if veil is not None:
            rgb = np.clip(rgb + veil(d.x, d.y, -die), 0, 1)
        centre = (base + top) / 2
        shadow = cv2.GaussianBlur(alpha, (0, 0), max(1.0, side * 0.12)) * 0.45
        shift = np.array(light[:2]) * side * 0.35
        composite(img, None, shadow, centre[0] - shift[0], centre[1] - shift[1])
        composite(img, rgb, alpha, centre[0], centre[1])
    if hand:
        draw_hand(img, rng)

    # Sensor: white balance, exposure, uneven light, blur (the look), then noise and JPEG.
    warmth = env.normal(0, 0.06)
    gains = np.array([1 + warmth, 1 + env.normal(0, 0.02), 1 - warmth], np.float32)
    gains *= env.uniform(0.85, 1.1)
    img = np.clip(img * gains, 0, 1) ** np.float32(env.uniform(0.9, 1.1))
    img = img * (1 - env.uniform(0, 0.25) * noise(env, h, w, max(h, w) / 2))[..., None]
    sigma = float(env.choice([0, 0.5, 0.8]))
    if sigma:
        img = cv2.GaussianBlur(img, (0, 0), sigma)
    img = img + rng.normal(0, env.uniform(0.005, 0.02), img.shape).astype(np.float32)
    bgr = (np.clip(img[..., ::-1], 0, 1) * 255).astype(np.uint8)
    ok, jpg = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, int(env.integers(75, 96))])
    decoded = cv2.imdecode(jpg, cv2.IMREAD_COLOR) if ok else None
    return TableFrame(bgr if decoded is None else decoded, state.with_(supply={}), truth, cam)


def _sheen(cam: Camera, light: tuple[float, float, float], strength: float, look):
    """The lamp's mirror image on the dice's glossy top faces: a lamp above the table is seen
    reflected in a flat top face where the face's normal halves the angle between the lamp and
    the camera, and a rough plastic spreads that spot over a wide patch of the board. Matte
    paper shows no such spot, so dividing by the paper's white does not take it away: a die in
    the patch reads lighter and paler than one outside it, its reference die too. Returns the
    light (RGB, a share of the paper's white) a top face at a board point gains."""
    rng = np.random.default_rng([*np.atleast_1d(look).tolist(), 7411])
    peak = strength * rng.uniform(0.5, 1.0)
    rough = rng.uniform(0.1, 0.25)  # radians: how far from the mirror angle the spot reaches
    tint = np.float32(1 + rng.normal(0, 0.03, 3))
    eye = -cam.r.T @ cam.t  # the camera's centre on the board (z into the table)
    # A ceiling lamp, high above the table (65-85 degrees up), on the side the light comes from.
    up = np.radians(rng.uniform(65, 85))
    side = np.array(light[:2]) / max(float(np.linalg.norm(light[:2])), 1e-9)
    lamp = np.array([*(side * np.cos(up)), -np.sin(up)])  # towards the lamp: up is -z

    def veil(x: float, y: float, z: float) -> np.ndarray:
        view = eye - np.array([x, y, z])
        half = lamp + view / np.linalg.norm(view)
        cos = -half[2] / np.linalg.norm(half)  # against the top face's normal (0, 0, -1)
        angle = float(np.arccos(np.clip(cos, -1, 1)))
        return np.asarray(tint * np.float32(peak * np.exp(-0.5 * (angle / rough) ** 2)))

    return veil


def mid_game_states(seed: int, layout: Layout | None = None) -> Iterator[BoardState]:
    """Endless board states caught at a random moment of random legal games (2–5 players),
    each one that fits the layout's printed zones: what a table camera sees during play."""
    from scanner.rules.simulate import play_random_game

    layout = layout or default_layout()
    rng = np.random.default_rng(seed)
    game = 0
    states: list[BoardState] = []
    while True:
        states.clear()
        play_random_game(
            int(rng.integers(2, 6)), seed * 1000 + game, after_each=lambda g: states.append(g.state)
        )
        game += 1
        st = states[int(rng.integers(len(states)))]
        try:
            lay_out(st, layout)
        except TooManyDice:
            continue
        yield st
