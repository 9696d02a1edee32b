"""A whole table as the webcam sees it: the printed marker sheet with the buildings' dice areas,
the game's dice lying where a board state says, under a random camera pose, light and sensor.

The truth is known by construction (the board state drawn), so these frames measure the whole
pipeline (calibrate → detect → board) and make the demo game `alea serve` plays without a
camera. Dice are 16 mm cubes seen through a pinhole camera, so their top faces show the parallax
the board reader corrects for.
"""

from __future__ import annotations

import json
import zlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np

from scanner.rules.state import BoardState
from scanner.synth.dice import GAME_COLORS, DieStyle, game_pip, render_die, shade
from scanner.synth.scene import _composite, _noise, _wood
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


@dataclass(frozen=True)
class TrueDie:
    """A die drawn on the table: who, what, in which building, where (board mm)."""

    player: str
    value: int
    building: str
    x: float
    y: float
    yaw: float = 0.0  # radians: how the die is turned


class TooManyDice(ValueError):
    """The state has more dice in a building than its printed area holds."""


# ------------------------------------------------------------------------- where dice lie
def _die_rng(die_seed, *identity) -> np.random.Generator:
    """A generator for one die's own looks (spin, nudge, style): keyed by who and what it is,
    so a die keeps them from frame to frame while others are placed around it."""
    return np.random.default_rng((die_seed, zlib.crc32(repr(identity).encode())))


def _groups(state: BoardState, die_seed) -> dict[str, list[list[tuple]]]:
    """Each building's dice as groups of (player, value): a player's Templum dice, Senate run
    and each Castrum set lie together, as players lay them; Latrina dice lie anyhow (the state
    counts them, so each shows a value of its own)."""
    latrina = [
        (p, int(_die_rng(die_seed, "latrina", p, k).integers(1, 7)))
        for p, n in state.latrina.items()
        for k in range(n)
    ]
    return {
        "templum": [[(p, v) for v in dice] for p, dice in state.templum.items()],
        "senatus": [[(p, v) for v in run] for p, run in state.senatus.items()],
        "castrum": [[(s.player, s.value)] * s.count for s in state.castrum],
        "latrina": [latrina] if latrina else [],
    }


def _pack(groups: list[list], cols: int) -> list[tuple[int, int]]:
    """(column, row) for each die: a group that does not fit in what is left of a row starts
    the next one, and a group longer than a row wraps straight below itself."""
    cells, row, col = [], 0, 0
    for group in groups:
        if col and col + min(len(group), cols) > cols:
            row, col = row + 1, 0
        for _ in group:
            if col == cols:
                row, col = row + 1, 0
            cells.append((col, row))
            col += 1
    return cells


def _slots(polygon: np.ndarray, groups: list[list], die: float) -> list[tuple[float, float]]:
    """Die positions for `groups` in a grid from the zone's top-left corner, so dice already
    there stay put when more are laid."""
    x0, y0 = polygon.min(axis=0) + die * 0.2
    x1, y1 = polygon.max(axis=0) - die * 0.2
    n = sum(len(g) for g in groups)
    # At most 1.25 dice apart: a run or set lies side by side (the board reader chains dice
    # closer than 1.5 dice into one group).
    for spacing in np.linspace(die * 1.25, die * 1.06, 8):
        cols = int((x1 - x0 - die) // spacing) + 1
        rows = int((y1 - y0 - die) // spacing) + 1
        cells = _pack(groups, cols)
        if max(r for _, r in cells) < rows:
            return [(x0 + die / 2 + c * spacing, y0 + die / 2 + r * spacing) for c, r in cells]
    raise TooManyDice(f"{n} dice do not fit in a zone of {x1 - x0:.0f}×{y1 - y0:.0f} mm")


def lay_out(state: BoardState, layout: Layout, die_seed=0) -> list[TrueDie]:
    """Where every die of `state` lies in its building's printed area (board mm)."""
    die = layout.die_size
    placed = []
    seen: Counter = Counter()

    def put(building: str, p: str, v: int, x: float, y: float, nudge: float) -> None:
        seen[(building, p, v)] += 1
        r = _die_rng(die_seed, building, p, v, seen[(building, p, v)])
        placed.append(
            TrueDie(
                p,
                v,
                building,
                x + r.uniform(-nudge, nudge),
                y + r.uniform(-nudge, nudge),
                float(r.uniform(0, 2 * np.pi)),
            )
        )

    for building, groups in _groups(state, die_seed).items():
        if groups:
            slots = _slots(layout.zones[building].polygon, groups, die)
            for (p, v), (x, y) in zip([d for g in groups for d in g], slots, strict=True):
                put(building, p, v, x, y, die * 0.08)
    pedestals = layout.forum_pedestals(len(state.players))
    if len(state.forum) > len(pedestals):
        raise TooManyDice("more Forum dice than pedestals")
    for d, pedestal in zip(state.forum, pedestals, strict=False):
        put("forum", d.player, d.value, *pedestal.centre, 1.0)
    return placed


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


def random_camera(layout: Layout, rng: np.random.Generator, size=FRAME_SIZE) -> Camera:
    """Above the board, tilted up to ~20°, turned any way, the sheet filling most of the frame."""
    w, h = size
    f = w * rng.uniform(0.8, 1.05)
    k = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]])
    centre = np.array(
        [layout.width / 2 + rng.uniform(-15, 15), layout.height / 2 + rng.uniform(-15, 15), 0.0]
    )
    # Board frame: x right, y down the sheet, z into the table (right-handed, like OpenCV's
    # camera frame), so the camera hangs at negative z and a die's top face is at z = -16 mm.
    tilt, azimuth = np.radians(rng.uniform(0, 20)), rng.uniform(0, 2 * np.pi)
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
    shade = 0.85 + 0.15 * _noise(rng, h, w, 60)[..., None]
    img[:] = img * (1 - a) + skin * shade * a


@dataclass(frozen=True)
class DiceSet:
    """Other dice than the renderer's own: body and pip colours (RGB 0..1) by the name a die
    is drawn under (a player colour, or any name for a die of no player's colour), and `loose`
    dice drawn besides the state's (on the swatch squares, say). What the colour tests and the
    reference flow need: dice whose colours and pips the training renders never had."""

    bodies: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    pips: dict[str, tuple[float, float, float]] = field(default_factory=dict)
    loose: tuple[TrueDie, ...] = ()


def random_dice(rng: np.random.Generator) -> DiceSet:
    """A set of the game's dice as one table might have: each colour in one shade of its range,
    with white or black pips (the face reader's board frames are drawn with these)."""
    bodies = {c: tuple(shade(c, rng.random()).tolist()) for c in GAME_COLORS}
    pips = {c: (_WHITE, _BLACK)[int(rng.integers(2))] for c in GAME_COLORS}
    return DiceSet(bodies, pips)  # type: ignore[arg-type]


_WHITE, _BLACK = (0.95, 0.95, 0.93), (0.05, 0.05, 0.06)


def render_table(
    state: BoardState,
    seed: int | tuple[int, ...],
    layout: Layout | None = None,
    hand: bool = False,
    camera: Camera | None = None,
    size=FRAME_SIZE,
    look: int | tuple[int, ...] | None = None,
    dice: DiceSet | None = None,
) -> TableFrame:
    """Draw `state` on the table; the same seed gives the same frame.

    `look` seeds what stays put while a game is filmed (table, light, white balance, lens blur);
    by default it follows `seed`. Frames of one game share a look, as a mounted webcam's do, so
    only dice, hands and sensor noise change between them. `dice` draws other dice (DiceSet)."""
    rng = np.random.default_rng(seed)
    env = np.random.default_rng(seed if look is None else look)
    layout = layout or default_layout()
    w, h = size
    die_seed = seed if look is None else look
    truth = lay_out(state, layout, die_seed) + list(dice.loose if dice else ())
    cam = camera or random_camera(layout, env, size)

    img = _wood(env, h, w)
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
    order = sorted(truth, key=lambda d: -np.linalg.norm(cam.r @ (d.x, d.y, 0) + cam.t))
    for d in order:
        own = _die_rng(die_seed, "style", d.building, d.player, d.value, d.yaw)
        base, top = cam.project(np.array([[d.x, d.y, 0.0], [d.x, d.y, -die]]))
        edge = cam.project(np.array([[d.x - die / 2, d.y, -die], [d.x + die / 2, d.y, -die]]))
        side = float(np.linalg.norm(edge[1] - edge[0]))
        style = _die_style(d.player, d.value, side, base - top, light, d.yaw, own, dice)
        rgb, alpha, _ = render_die(style, own)
        centre = (base + top) / 2
        shadow = cv2.GaussianBlur(alpha, (0, 0), max(1.0, side * 0.12)) * 0.45
        shift = np.array(light[:2]) * side * 0.35
        _composite(img, None, shadow, centre[0] - shift[0], centre[1] - shift[1])
        _composite(img, rgb, alpha, centre[0], centre[1])
    if hand:
        draw_hand(img, rng)

    # Sensor: white balance, exposure, uneven light, blur (the look), then noise and JPEG.
    warmth = env.normal(0, 0.06)
    gains = np.float32([1 + warmth, 1 + env.normal(0, 0.02), 1 - warmth]) * env.uniform(0.85, 1.1)
    img = np.clip(img * gains, 0, 1) ** np.float32(env.uniform(0.9, 1.1))
    img = img * (1 - env.uniform(0, 0.25) * _noise(env, h, w, max(h, w) / 2))[..., None]
    sigma = float(env.choice([0, 0.5, 0.8]))
    if sigma:
        img = cv2.GaussianBlur(img, (0, 0), sigma)
    img = img + rng.normal(0, env.uniform(0.005, 0.02), img.shape).astype(np.float32)
    bgr = (np.clip(img[..., ::-1], 0, 1) * 255).astype(np.uint8)
    ok, jpg = cv2.imencode(".jpg", bgr, [cv2.IMWRITE_JPEG_QUALITY, int(env.integers(75, 96))])
    bgr = cv2.imdecode(jpg, cv2.IMREAD_COLOR) if ok else bgr
    return TableFrame(bgr, state.with_(supply={}), truth, cam)


def mid_game_states(seed: int, layout: Layout | None = None) -> Iterator[BoardState]:
    """Endless board states caught at a random moment of random legal games (2–5 players),
    each one that fits the layout's printed zones: what a table camera sees during play."""
    from scanner.rules.game import play_random_game

    layout = layout or default_layout()
    rng = np.random.default_rng(seed)
    game = 0
    while True:
        states: list[BoardState] = []
        play_random_game(
            int(rng.integers(2, 6)),
            seed * 1000 + game,
            after_each=lambda g, states=states: states.append(g.state),
        )
        game += 1
        st = states[int(rng.integers(len(states)))]
        try:
            lay_out(st, layout)
        except TooManyDice:
            continue
        yield st


def write_board_tiles(
    out,
    boards: int,
    seed: int,
    tile: int = 320,
    per_board: int = 4,
    layout: Layout | None = None,
    px_per_mm: tuple[float, float] | None = None,
    label_boxes=None,
) -> int:
    """A YOLO dataset of the rectified board as the scanner sees it (class = pips − 1), cut
    into `tile`-pixel squares. Boards come from mid-game states of random games, under random
    cameras and light. The board is rectified at the layout's px/mm, as the scanner does; with
    `px_per_mm` (low, high) each board is then shrunk to a scale drawn in that range, as the
    detector's letterbox shrinks it (area interpolation), so a detector can learn the board at
    a cheaper scale. `label_boxes(board, boxes)`, when given, turns the dice's true boxes on the
    rectified board into the boxes to teach (for example those a detector that reads the board
    well draws, so a new one learns the same boxes). Returns the tile count."""
    from pathlib import Path

    from scanner.vision.calibrate import calibrate

    layout = layout or default_layout()
    out = Path(out)
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    written = 0
    for n, st in enumerate(mid_game_states(seed, layout)):
        if written >= boards * per_board:
            break
        frame = render_table(st, (seed, n), layout)
        cal = calibrate(frame.image, layout)
        board = cal.rectify(frame.image)
        boxes = frame.boxes(lambda p, cal=cal: cal.board_to_rectified(cal.image_to_board(p)))
        if label_boxes is not None:
            boxes = label_boxes(board, boxes)
        if px_per_mm is not None:
            f = rng.uniform(*px_per_mm) / layout.px_per_mm
            h0, w0 = board.shape[:2]
            board = cv2.resize(board, (round(w0 * f), round(h0 * f)), interpolation=cv2.INTER_AREA)
            boxes = boxes * np.tile([board.shape[1] / w0, board.shape[0] / h0], 2)
        values = [d.value for d in frame.dice]
        h, w = board.shape[:2]
        for _ in range(per_board):
            # Centre tiles on dice most of the time: empty paper teaches little.
            if len(boxes) and rng.random() < 0.85:
                b = boxes[int(rng.integers(len(boxes)))]
                cx, cy = (
                    (b[0] + b[2]) / 2 + rng.uniform(-tile / 3, tile / 3),
                    (b[1] + b[3]) / 2 + rng.uniform(-tile / 3, tile / 3),
                )
            else:
                cx, cy = rng.uniform(tile / 2, w - tile / 2), rng.uniform(tile / 2, h - tile / 2)
            x0 = int(np.clip(cx - tile / 2, 0, w - tile))
            y0 = int(np.clip(cy - tile / 2, 0, h - tile))
            crop = board[y0 : y0 + tile, x0 : x0 + tile]
            lines = []
            for (bx0, by0, bx1, by1), v in zip(boxes, values, strict=True):
                cx0, cy0 = max(bx0 - x0, 0), max(by0 - y0, 0)
                cx1, cy1 = min(bx1 - x0, tile), min(by1 - y0, tile)
                area = (bx1 - bx0) * (by1 - by0)
                if cx1 <= cx0 or cy1 <= cy0 or (cx1 - cx0) * (cy1 - cy0) < 0.6 * area:
                    continue
                lines.append(
                    f"{v - 1} {(cx0 + cx1) / 2 / tile:.6f} {(cy0 + cy1) / 2 / tile:.6f} "
                    f"{(cx1 - cx0) / tile:.6f} {(cy1 - cy0) / tile:.6f}"
                )
            name = f"board{seed}_{written:05d}"
            cv2.imwrite(str(out / "images" / f"{name}.jpg"), crop, [cv2.IMWRITE_JPEG_QUALITY, 92])
            (out / "labels" / f"{name}.txt").write_text("\n".join(lines))
            written += 1
    return written
