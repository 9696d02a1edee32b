"""The players' dice colours as this table's camera sees them: a die's colour is its body's.

Why not the face reader's colour head alone: it learned colour from our renderer, which draws
each game colour with one pip colour and its own light, and on dice and light it never saw it
reads pips and casts instead of bodies. At a real table players replace lost dice, so a die's
player colour must come from its body, whatever its pips. Here:

1. `body_colors`: the median colour of the pixels of each die's top face (`top_faces`: where
   a leaning camera sees it) that are not pips (pips are the minority that stands out in
   lightness, darker or lighter than the body);
2. `sheet_light`: the same frame's paper white and marker black, sampled around the printed
   markers, which every frame shows; the white is fitted as a plane across the sheet through
   the markers at its corners and edges, and each die is divided by the white where it lies:
   that takes the light's colour and strength out, also where a lamp lights one side of the
   board more than the other, or a window and a bulb give its two sides two colours;
3. `Palette`: one reference per player colour, taken at this table (dice set down on the
   sheet's swatch squares, `take_reference`) or, until then, `BUILT_IN`; each die is named by
   its nearest reference, and a die far from every reference is None (unknown, not a guess).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, NamedTuple

import numpy as np

from scanner.errors import InputError
from scanner.rules.components import PLAYER_COLORS
from scanner.vision.layout import Layout

# Lightness counts three quarters in the distance: shading and the die's place in the light
# change it more than they change hue, yet it alone tells a grey die from a white one.
LIGHTNESS_WEIGHT = 0.75
# A die this far (weighted ΔE) from its nearest reference is no player's (None): the built-in
# guess is wide; a reference taken at the table is near, so its limit is tighter unless the
# reference dice themselves spread wider (`Palette.updated`).
MAX_DISTANCE = 22.0
TABLE_DISTANCE = 18.0
# The nominal body colours of the game's dice under neutral light, relative to the paper's white
# (Lab). A guess until a reference is taken at the table (the game's real dice were never
# measured); wide apart on purpose so that any plausible shade falls nearest its own colour.
BUILT_IN_LAB: dict[str, tuple[float, float, float]] = {
    "grey": (55.0, 0.0, 0.0),
    "brown": (38.0, 14.0, 24.0),
    "blue": (35.0, 12.0, -45.0),
    "green": (45.0, -38.0, 20.0),
    "yellow": (80.0, 2.0, 70.0),
}
# The share of a top face's middle that is searched for the body: the middle keeps clear of the
# rim, the side faces a tilted camera shows, and the shadow.
FACE_MIDDLE = 0.6
# The ablation switch of benchmarks/colour_source.py: False reads the body in the middle of the
# die's box, as before `top_faces`.
TOP_FACE = True
# A die beyond its nearest reference's limit but within this many times it is named that
# colour when the face reader names it so too: two readings that agree. A lamp's mirror image
# on a glossy die (or on its reference die) pales it in a way dividing by the matte paper's
# white does not undo (benchmarks/colour_source.py --sheen); 1 names by the palette alone.
# Chosen on validation (model card, "Two readings that agree").
AGREE_REACH = 1.5
# The other way round: a die the face reader names no player's colour is named by the palette
# only within this share of its nearest reference's limit; a palette learnt from one die of a
# mixed set otherwise reaches other colours' dice (benchmarks/colour_source.py --mixed), and a
# die of no player's colour beside a pale reference. 1 names by the palette alone, as before
# session 29. Chosen on validation (model card, "Mixed sets").
DISAGREE_REACH = 0.5
# A die the reader names another player's colour than its nearest reference's is named the
# reader's colour when it lies within this many times that colour's limit, and otherwise by its
# nearest reference only within `DISAGREE_REACH`: a lamp's glare pales grey, brown and blue dice
# toward one another (benchmarks/colour_source.py --glare), so the nearest of two references the
# die lies within is not always its own, while the reader, which looks at the whole face, tells
# them apart. A die the reader names a colour the palette never took is not the palette's to name
# (`scan.READER_FOR_UNTAKEN` keeps the reader's colour). 0 lets the nearest reference decide, as
# before session 33. Chosen on validation (model card, "Two readings that disagree").
READER_CHOOSES = 1.5
# A die within its nearest reference's limit that the face reader names no player's colour, or
# another player's colour it does not choose (`READER_CHOOSES`), is still named that reference's
# colour when the reader gives that colour at least this probability: its runner-up. A lamp's
# glare on a glossy face, or a golden yellow near orange, moves the reader's top answer while
# the die stays near its reference, and the reader mostly keeps the die's own colour second; a
# die of no player's colour near a reference mostly gets less from it. Not for grey
# (`SECOND_NOT_FOR`): the reader puts grey second on white and black dice of no player's colour
# as well, so there the runner-up says nothing. 0: the reader's top answer alone, as before
# session 37. Chosen on validation (model card, "The reader's runner-up").
READER_SECOND = 0.2
SECOND_NOT_FOR = frozenset({"grey"})
# A glossy top face mirrors a lamp wider than the die edge to edge when it lies where the lamp's
# mirror image is seen: the whole face gains the lamp's white, the matte paper does not, and
# dividing by the paper's white leaves it paler than its reference (or the reference paler than
# it). Up to this much white (a share of the paper's) added to either is allowed for: a die is
# as near a reference as it comes with any such white taken off it or laid on it. White added
# to a colourless die cannot be told from a lighter shade, so only dice and references with a
# chroma of at least GLARE_CHROMA take it into account. 0 compares the colours as seen, as
# before session 30. Chosen on validation with the two switches below (model card, "A lamp
# wider than a die"); ablation switches of benchmarks/colour_source.py (`--glare`). 0.5 until
# session 37: a lamp mirrored in a glossy face can be as bright as the paper, and on the other
# renderer's validation tables such faces lay beyond half the paper's white (model card, "The
# reader's runner-up").
GLARE_REACH = 1.0
GLARE_CHROMA = 15.0
GLARE_STEP = 0.025
# The glare covers the flat face; the die's rounded rim faces elsewhere and keeps its colour. A
# die of a pale colour shows no such step from rim to face, only shading, which scales the
# colour where glare adds white: no more white is taken off a die than its face holds over its
# rim (`face_glare`); without it, white taken off an ivory die makes it yellow.
GLARE_FROM_RIM = True
# A glared brown or green face can come out almost colourless while its rim keeps the hue: a die
# counts as coloured when its rim is (chroma of at least GLARE_CHROMA), so white may be taken
# off it up to what its face holds over that rim.
GLARE_RIM_HUE = True
# Instead of searching: each die's and each reference die's colour is its face less the white
# its face holds over its rim (`face_glare`), where the rim shows a hue (chroma of at least
# GLARE_OFF_CHROMA) for the fit to hold on to; a colourless rim cannot tell added white from a
# lighter shade. An ablation switch of benchmarks/colour_source.py (off: it named far fewer
# dice a wrong colour, and left more players' dice unknown without any glare; model card).
GLARE_OFF = False
GLARE_OFF_CHROMA = 5.0


# Linear sRGB → CIE XYZ (D65).
_XYZ = np.array(
    [[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]], np.float64
)


def srgb_to_lab(rgb: np.ndarray) -> np.ndarray:
    """(N, 3) sRGB values in 0..1 (white = 1) → CIE Lab (D65)."""
    return linear_to_lab(srgb_to_linear(rgb))


def srgb_to_linear(rgb: np.ndarray) -> np.ndarray:
    """(N, 3) sRGB values in 0..1 → linear light, where light adds."""
    c = np.clip(np.asarray(rgb, np.float64).reshape(-1, 3), 0, 4)
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def linear_to_lab(lin: np.ndarray) -> np.ndarray:
    """(N, 3) linear sRGB light (white = 1) → CIE Lab (D65)."""
    lin = np.asarray(lin, np.float64).reshape(-1, 3)
    xyz = lin @ _XYZ.T / np.array([0.9505, 1.0, 1.089])
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.stack(
        [116 * f[:, 1] - 16, 500 * (f[:, 0] - f[:, 1]), 200 * (f[:, 1] - f[:, 2])], axis=1
    )


def lab_to_linear(lab: np.ndarray) -> np.ndarray:
    """(N, 3) CIE Lab (D65) → linear sRGB light (white = 1): `linear_to_lab` undone."""
    lab = np.asarray(lab, np.float64).reshape(-1, 3)
    fy = (lab[:, 0] + 16) / 116
    f = np.stack([fy + lab[:, 1] / 500, fy, fy - lab[:, 2] / 200], axis=1)
    xyz = np.where(f > 0.206893, f**3, (f - 16 / 116) / 7.787) * np.array([0.9505, 1.0, 1.089])
    return xyz @ np.linalg.inv(_XYZ).T


def top_faces(
    boxes: np.ndarray, layout: Layout, camera: tuple[float, float, float] | None
) -> np.ndarray:
    """(N, 4) where each die's top face is seen in a rectified board, from its box (rectified
    pixels) and the camera's position (`Calibration.camera_position`, board mm).

    A die's box spans its footprint and its raised top face, which the camera sees pushed away
    from the point below it: far out on the board of a leaning camera the box is a third longer
    than the die, and the middle of the box reaches the darker side faces. The box's centre
    stands for a point half a die up (as in `zones.locate`); the top face, a die up, lies on
    the same ray from the camera, and is seen enlarged by its nearness. Without a camera
    position, the box itself."""
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    if camera is None or not TOP_FACE or not len(boxes):
        return boxes
    cx, cy, height = camera
    die, s = layout.die_size, layout.px_per_mm
    if height <= 2 * die:
        return boxes
    centre_mm = ((boxes[:, :2] + boxes[:, 2:]) / 2 + 0.5) / s
    foot = np.array([cx, cy])
    top_mm = foot + (centre_mm - foot) * (height - die / 2) / (height - die)
    half = die * s * height / (height - die) / 2
    half = np.minimum(half, (boxes[:, 2:] - boxes[:, :2]).min(axis=1, keepdims=True) / 2)
    top = top_mm * s - 0.5
    return np.concatenate([top - half, top + half], axis=1)


def _square(cx: float, cy: float, half: float, w: int, h: int) -> tuple[int, int, int, int]:
    """Columns a:b and rows c:d of the square of half side `half` about (cx, cy), within a
    w × h image."""
    a, b = int(max(0, math.floor(cx - half))), int(min(w, math.ceil(cx + half)))
    c, d = int(max(0, math.floor(cy - half))), int(min(h, math.ceil(cy + half)))
    return a, b, c, d


def body_colors(img: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """(N, 3) RGB 0..1: the colour of each die's body in `img` (BGR uint8), pips left out;
    `boxes` frame the die's top face (`top_faces`) or the whole die.

    In the middle of the box, the median lightness lies on the body (pips cover at most a
    quarter of it); the pips are the pixels on the far side of halfway to the extreme that lies
    farther from that median (dark pips or light ones, whichever this die has), glints are the
    brightest twentieth. The body is the median colour of the rest."""
    boxes = np.asarray(boxes, np.float64).reshape(-1, 4)
    h, w = img.shape[:2]
    out = np.zeros((len(boxes), 3))
    for i, (x0, y0, x1, y1) in enumerate(boxes):
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        half = max(1.0, FACE_MIDDLE * min(x1 - x0, y1 - y0) / 2)
        a, b, c, d = _square(cx, cy, half, w, h)
        px = img[c:d, a:b].reshape(-1, 3)[:, ::-1].astype(np.float64) / 255.0
        if not len(px):
            continue
        lum = px @ (0.299, 0.587, 0.114)
        mid = np.median(lum)
        lo, hi = np.quantile(lum, [0.03, 0.97])
        pip = lo if mid - lo > hi - mid else hi
        body = np.abs(lum - mid) < np.abs(pip - mid) / 2 + 1e-6
        body &= lum <= np.quantile(lum, 0.95) + 1e-9
        out[i] = np.median(px[body] if body.any() else px, axis=0)
    return out


@dataclass(frozen=True)
class SheetLight:
    """The frame's paper white and marker black (RGB 0..1), read off the printed sheet.

    `white` is the paper's white at `centre` (board mm); `slope` is how it changes per mm to the
    right and per mm down (RGB each). A lamp beside the table lights the near side of the sheet
    more, and a window and a bulb give its two sides two colours: a die is divided by the white
    of the paper where it lies, not by one white for the whole sheet."""

    white: tuple[float, float, float]
    black: tuple[float, float, float]
    slope: tuple[tuple[float, float, float], tuple[float, float, float]] = (
        (0.0, 0.0, 0.0),
        (0.0, 0.0, 0.0),
    )
    centre: tuple[float, float] = (0.0, 0.0)

    def white_at(self, where_mm: np.ndarray | None = None) -> np.ndarray:
        """(N, 3) the paper's white at each board point (N, 2) in mm; (1, 3) for None. Kept
        within a band around the centre's white: the plane is fitted on the sheet's rim and
        must not run away across a board it never saw."""
        white = np.array(self.white, np.float64)[None]
        if where_mm is None:
            return white
        d = np.asarray(where_mm, np.float64).reshape(-1, 2) - np.array(self.centre)
        field = white + d @ np.array(self.slope, np.float64)
        return np.clip(field, white * (1 - WHITE_BAND), white * (1 + WHITE_BAND))

    def normalise(self, rgb: np.ndarray, where_mm: np.ndarray | None = None) -> np.ndarray:
        """Colours as if the paper were pure white and the ink pure black; `where_mm`, the
        board points (N, 2) the colours were seen at, takes the white of the paper there."""
        white, black = self.white_at(where_mm), np.array(self.black)
        return (np.asarray(rgb, np.float64) - black) / np.maximum(white - black, 1e-3)


NEUTRAL = SheetLight((1.0, 1.0, 1.0), (0.0, 0.0, 0.0))
# How far the paper's white may stray from the sheet centre's across the board (a share of it).
WHITE_BAND = 0.35
# A marker's ring darker than the fitted white by more than this share is under a hand, a die
# or a shadow, and is left out of the fit.
SHADED = 0.07
# The ablation switch of benchmarks/colour_source.py: False reads one white for the whole sheet.
WHITE_ACROSS_SHEET = True


# A camera that clips the sheet's white (every channel at the top of its range) no longer shows
# the light's colour there, and clips pale dice with it: dice read as white, grey or unknown, and
# swatch dice go unfound. Above this share of the rectified sheet clipped, the players are told.
CLIPPED_LEVEL = 253
CLIPPED_SHARE = 0.1


def clipped_share(board: np.ndarray) -> float:
    """The share of a rectified board's pixels (every fourth row and column) whose every channel
    is at `CLIPPED_LEVEL` or above."""
    view = np.asarray(board)[::4, ::4]
    top = view if view.ndim == 2 else view.min(axis=2)
    return float((top >= CLIPPED_LEVEL).mean()) if top.size else 0.0


def exposure_warning(board: np.ndarray) -> str | None:
    """What to tell the players when the camera clips the sheet's white, or None."""
    share = clipped_share(board)
    if share < CLIPPED_SHARE:
        return None
    return (
        f"the camera clips the sheet's white ({share:.0%} of the board): dice colours are "
        "unsure; lower the camera's exposure or dim the lamp"
    )


def no_swatch_dice(clipped: str | None, path: str = "$") -> InputError:
    """The error of a frame with no die on any swatch square (`alea palette`, the Calibrate
    page), with the clipped sheet's warning (`exposure_warning`) when that may be why."""
    return InputError(
        "palette.no-dice",
        "no die lies on a swatch square: set one die of each player's colour on the square "
        "named after it, six up" + (f"; {clipped}" if clipped else ""),
        path,
    )


def sheet_light(board: np.ndarray, layout: Layout) -> SheetLight:
    """Paper white and ink black of a rectified board image (BGR uint8) at `layout`'s scale.

    White: a band of bare paper 2–6 mm around each marker (the quiet zone the markers need
    anyway, so nothing is printed or laid there), fitted as a plane across the sheet through
    the markers' rings (they stand at its corners and edges); black: each marker's darkest
    third. A hand or a die over a marker darkens its band, so the brighter half of the markers
    give the white at the centre and a ring that lies below the plane is left out of it.
    """
    h, w = board.shape[:2]
    flat_board = board.reshape(-1, 3)
    whites, blacks, where = [], [], []
    for (cx, cy), ring_at, ink_at in _marker_samples(_marker_key(layout), h, w):
        # Medians of the bytes (the cheap part), scaled after: the same numbers.
        whites.append(np.median(flat_board[ring_at], axis=0)[::-1] / 255.0)
        ink = flat_board[ink_at]
        lum = ink @ (0.114, 0.587, 0.299)
        blacks.append(np.median(ink[lum <= np.quantile(lum, 1 / 3)], axis=0)[::-1] / 255.0)
        where.append((cx, cy))
    if not whites:
        return NEUTRAL
    order = np.argsort([-(x @ (0.299, 0.587, 0.114)) for x in whites])
    keep = order[: max(1, (len(order) + 1) // 2)]
    white = np.median(np.array(whites)[keep], axis=0)
    black = np.median(np.array(blacks)[keep], axis=0)
    centre = (layout.width / 2, layout.height / 2)
    flat = SheetLight(tuple(white.tolist()), tuple(black.tolist()), centre=centre)  # type: ignore[arg-type]
    if not WHITE_ACROSS_SHEET:
        return flat
    fitted = _white_plane(np.array(where), np.array(whites), centre)
    if fitted is None:
        return flat
    at_centre, slope = fitted
    return SheetLight(
        tuple(at_centre.tolist()),  # type: ignore[arg-type]
        tuple(black.tolist()),  # type: ignore[arg-type]
        (tuple(slope[0].tolist()), tuple(slope[1].tolist())),  # type: ignore[arg-type]
        centre,
    )


def _marker_key(layout: Layout) -> tuple:
    return (layout.px_per_mm, tuple(sorted(layout.markers.items())))


@cache
def _marker_samples(
    key: tuple, h: int, w: int
) -> tuple[tuple[tuple[float, float], np.ndarray, np.ndarray], ...]:
    """For each marker wholly on a board of h × w: its centre (mm) and the flat pixel indices
    of its ring of bare paper (2–6 mm out) and of its ink (2 mm in). The same for every frame of
    a layout, so worked out once: the live loop reads the sheet's light on every read."""
    s, markers = key
    out = []
    for _, (cx, cy, side) in markers:
        outer = side / 2 + 6
        x0, x1 = int((cx - outer) * s), int((cx + outer) * s)
        y0, y1 = int((cy - outer) * s), int((cy + outer) * s)
        if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
            continue
        ys, xs = np.mgrid[y0:y1, x0:x1]
        dist = np.maximum(np.abs(xs / s - cx), np.abs(ys / s - cy)).reshape(-1) - side / 2
        flat = (ys * w + xs).reshape(-1)
        ring, ink = flat[(dist > 2) & (dist < 6)], flat[dist < -2]
        if len(ring) and len(ink):
            out.append(((cx, cy), ring, ink))
    return tuple(out)


def _white_plane(
    where: np.ndarray, whites: np.ndarray, centre: tuple[float, float]
) -> tuple[np.ndarray, np.ndarray] | None:
    """The paper's white as a plane over the sheet, (white at `centre`, slope (2, 3)), fitted
    to the markers' rings at `where` (mm) with the shaded ones left out; None when the rings
    left do not span the sheet (fewer than four, or all on one line)."""
    used = np.ones(len(where), bool)
    for _ in range(3):
        if used.sum() < 4:
            return None
        d = where[used] - np.array(centre)
        design = np.column_stack([np.ones(len(d)), d])
        if np.linalg.matrix_rank(design) < 3:
            return None
        coef = np.linalg.lstsq(design, whites[used], rcond=None)[0]  # (3, 3): centre, slopes
        full = np.column_stack([np.ones(len(where)), where - np.array(centre)]) @ coef
        lum = np.array((0.299, 0.587, 0.114))
        shaded = whites @ lum < (1 - SHADED) * (full @ lum)
        if np.array_equal(shaded, ~used):
            break
        used = ~shaded
    return coef[0], coef[1:]


def distances(lab: np.ndarray, refs: np.ndarray) -> np.ndarray:
    """(N, K) weighted ΔE from each colour to each reference."""
    d = np.asarray(lab, np.float64)[:, None, :] - np.asarray(refs, np.float64)[None, :, :]
    d[..., 0] *= LIGHTNESS_WEIGHT
    return np.sqrt((d**2).sum(-1))


class Rims(NamedTuple):
    """What each die's top face shows over its rounded rim (`face_glare`)."""

    white: np.ndarray  # (N,) the white (a share of the paper's) the face holds over its rim
    lab: np.ndarray  # (N, 3) the rim's colour, Lab relative to the paper's white


def face_glare(
    img: np.ndarray,
    faces: np.ndarray,
    light: SheetLight,
    where_mm: np.ndarray,
    body: np.ndarray | None = None,
) -> Rims:
    """The white (a share of the paper's) each die's top face holds over its rim, and the
    rim's colour, in a rectified board (BGR uint8) with `faces` from `top_faces`: the middle of
    the face (as `body_colors` reads it) fitted as the rim's colour scaled plus white,
    m = k·r + t, in linear light, t ≥ 0. The rim is the darkest tenth of the ring between the
    middle and the face's edge, black pips left out (white pips, paper and glints are lighter).
    Shading scales the colour and leaves t at 0. `body`: `body_colors(img, faces)` when
    already read."""
    faces = np.asarray(faces, np.float64).reshape(-1, 4)
    where = np.asarray(where_mm, np.float64).reshape(-1, 2)
    body = body_colors(img, faces) if body is None else body
    middle = srgb_to_linear(light.normalise(body, where))
    h, w = img.shape[:2]
    white, rims = np.zeros(len(faces)), middle.copy()
    for i, (x0, y0, x1, y1) in enumerate(faces):
        cx, cy, half = (x0 + x1) / 2, (y0 + y1) / 2, max(1.0, min(x1 - x0, y1 - y0) / 2)
        a, b, c, d = _square(cx, cy, half, w, h)
        ys, xs = np.mgrid[c:d, a:b]
        reach = np.maximum(np.abs(xs + 0.5 - cx), np.abs(ys + 0.5 - cy)) / half
        ring = (reach > FACE_MIDDLE) & (reach <= 0.95)
        if ring.sum() < 8:
            continue
        px = img[c:d, a:b][ring][:, ::-1].astype(np.float64) / 255.0
        lin = srgb_to_linear(light.normalise(px, where[i : i + 1]))  # one white for the die
        lum = lin @ (0.2126, 0.7152, 0.0722)
        rims[i] = rim = np.quantile(lin[lum >= 0.4 * np.median(lum)], 0.1, axis=0)
        fit = np.linalg.lstsq(np.stack([rim, np.ones(3)], axis=1), middle[i], rcond=None)[0]
        white[i] = float(np.clip(fit[1], 0, 1)) if fit[0] > 0 else 0.0
    return Rims(white, linear_to_lab(rims))


def held_glare(
    img: np.ndarray,
    faces: np.ndarray,
    light: SheetLight,
    where_mm: np.ndarray,
    body: np.ndarray | None = None,
) -> Rims | None:
    """`face_glare` where the palette bounds glare by the rim (`GLARE_FROM_RIM`) or takes it
    off (`GLARE_OFF`), else None."""
    if (GLARE_REACH and GLARE_FROM_RIM) or GLARE_OFF:
        return face_glare(img, faces, light, where_mm, body)
    return None


def glare_off(lin: np.ndarray, held: Rims | None) -> np.ndarray:
    """(N, 3) linear colours less the white each face holds over a rim that shows a hue
    (`GLARE_OFF`); as they are when off or not measured."""
    if not GLARE_OFF or held is None:
        return lin
    hued = np.hypot(held.lab[:, 1], held.lab[:, 2]) >= GLARE_OFF_CHROMA
    return np.clip(lin - np.where(hued, held.white, 0.0)[:, None], 0, None)


def glare_distances(rgb: np.ndarray, refs: np.ndarray, held: Rims | None = None) -> np.ndarray:
    """(N, K) `distances` from sRGB colours relative to the paper's white to Lab references,
    each the least over the lamp's white (`GLARE_REACH`) the colour or its reference may have
    gained, where both the colour and the reference are coloured (white taken off an almost
    grey die would make a strong colour of its faint tint). A colour holds no more white than
    its darkest channel: white is taken off the die only up to it, and laid on the die (taken
    off its reference) only up to the reference's. `held`, when given, bounds the white taken
    off each die by what its face holds over its rim (`face_glare`; with `GLARE_FROM_RIM`, a
    die without it holds none), and with `GLARE_RIM_HUE` a die whose rim is coloured counts as
    coloured."""
    lin = glare_off(srgb_to_linear(rgb), held)
    lab = linear_to_lab(lin)
    d = distances(lab, refs)
    refs = np.asarray(refs, np.float64).reshape(-1, 3)
    coloured = np.hypot(refs[:, 1], refs[:, 2]) >= GLARE_CHROMA
    tinted = np.hypot(lab[:, 1], lab[:, 2]) >= GLARE_CHROMA
    if held is not None and GLARE_RIM_HUE:
        tinted |= np.hypot(held.lab[:, 1], held.lab[:, 2]) >= GLARE_CHROMA
    if not GLARE_REACH or not coloured.any() or not tinted.any():
        return d
    lin, refs = lin[tinted], refs[coloured]
    held_white = None  # with GLARE_FROM_RIM, a face not measured holds no white
    if held is not None or GLARE_FROM_RIM:
        held_white = np.zeros(len(lin)) if held is None else np.asarray(held.white)[tinted]
    ref_white = lab_to_linear(refs).min(axis=1)
    steps = int(round(GLARE_REACH / GLARE_STEP))
    t = np.linspace(-GLARE_REACH, GLARE_REACH, 2 * steps + 1)[:, None]  # (S, 1): each step
    left = lin[None] - t[..., None]  # (S, N, 3): white taken off (t > 0) or laid on each die
    lab_left = linear_to_lab(np.clip(left, 0, None).reshape(-1, 3))
    seen = distances(lab_left, refs).reshape(len(t), len(lin), len(refs))
    seen[left.min(axis=2) < -0.01] = np.inf  # more white than the die holds
    seen = np.where((ref_white < -t - 0.01)[:, None, :], np.inf, seen)  # than its reference
    if held_white is not None:
        seen[held_white < t - 0.01] = np.inf  # more than its face holds over its rim
    d[np.ix_(tinted, coloured)] = np.minimum(d[np.ix_(tinted, coloured)], seen.min(axis=0))
    return d


@dataclass(frozen=True)
class Palette:
    """One reference Lab colour per player colour (relative to the paper white), and how far
    from its reference a die of that colour may still be."""

    colors: Mapping[str, tuple[float, float, float]]
    limits: Mapping[str, float] = field(default_factory=dict)
    source: str = "built-in"  # or "table": taken with dice set down on the sheet
    # The colours whose set prints an emblem on its six, seen at the table (scanner.vision.sixes).
    emblems: frozenset[str] = frozenset()

    def limit(self, color: str) -> float:
        return float(self.limits.get(color, MAX_DISTANCE))

    def name(
        self,
        rgb: np.ndarray,
        light: SheetLight = NEUTRAL,
        where_mm: np.ndarray | None = None,
        reader: Sequence[str | None] | None = None,
        glare: Rims | None = None,
        reader_p: np.ndarray | None = None,
    ) -> list[str | None]:
        """The player colour of each body colour (`body_colors`) seen under `light`, at the
        board points `where_mm` (N, 2) when known (`SheetLight.normalise`); with the face
        reader's colours of the same dice, a die a little beyond its limit that the reader
        names alike is named (`AGREE_REACH`), and one the reader names no player's colour
        only within `DISAGREE_REACH` of it. A lamp's glare on a die or on its reference is
        allowed for (`glare_distances`, `GLARE_REACH`), no more white taken off each die than
        `glare` says its face holds over its rim (`held_glare`). `reader_p`: the reader's
        probabilities (`Dice.data["color_p"]`), whose runner-up may agree (`READER_SECOND`)."""
        rgb = np.asarray(rgb, np.float64).reshape(-1, 3)
        if not len(rgb) or not self.colors:
            return [None] * len(rgb)
        names = list(self.colors)
        refs = np.array([self.colors[c] for c in names])
        d = glare_distances(light.normalise(rgb, where_mm), refs, glare)
        out: list[str | None] = []
        for i, row in enumerate(d):
            k = int(row.argmin())
            said = None if reader is None else reader[i]
            reach = 1.0
            # Where the reader disagrees: its runner-up may still name the nearest reference.
            second = reader_p is not None and _runner_up(reader_p[i], names[k])
            disagree = 1.0 if second else DISAGREE_REACH
            if reader is None:
                pass
            elif said == names[k]:
                reach = AGREE_REACH
            elif said is None:
                reach = disagree
            elif READER_CHOOSES:
                if said not in self.colors:
                    out.append(None)
                    continue
                if row[names.index(said)] <= READER_CHOOSES * self.limit(said):
                    out.append(said)
                    continue
                reach = disagree
            out.append(names[k] if row[k] <= reach * self.limit(names[k]) else None)
        return out

    def updated(self, refs: Mapping[str, Sequence[np.ndarray]]) -> Palette:
        """This palette with the colours in `refs` (each a list of Lab colours of dice of that
        colour) taken from them; a table palette keeps what it had for the others."""
        colors = dict(self.colors) if self.source == "table" else {}
        limits = dict(self.limits) if self.source == "table" else {}
        for color, seen in refs.items():
            labs = np.asarray(seen, np.float64).reshape(-1, 3)
            if not len(labs):
                continue
            centre = np.median(labs, axis=0)
            spread = float(distances(labs, centre[None]).max()) if len(labs) > 1 else 0.0
            colors[color] = (float(centre[0]), float(centre[1]), float(centre[2]))
            limits[color] = max(TABLE_DISTANCE, 3 * spread)
        emblems = self.emblems if self.source == "table" else frozenset()
        return Palette(colors, limits, "table", emblems)

    # ------------------------------------------------------------------------------- JSON
    def to_json(self) -> dict:
        out: dict[str, Any] = {
            "source": self.source,
            "colors": {
                c: {"lab": [round(v, 2) for v in lab], "limit": round(self.limit(c), 2)}
                for c, lab in self.colors.items()
            },
        }
        if self.emblems:
            out["emblem_sixes"] = sorted(self.emblems, key=PLAYER_COLORS.index)
        return out

    @classmethod
    def from_json(cls, data: Any, path: str = "$") -> Palette:
        if not isinstance(data, dict) or not isinstance(data.get("colors"), dict):
            raise InputError("schema.type", "a palette is {colors: {colour: {lab, limit}}}", path)
        colors, limits = {}, {}
        for color, entry in data["colors"].items():
            where = f"{path}.colors.{color}"
            if color not in PLAYER_COLORS:
                raise InputError("value.color", f"unknown colour {color!r}", where)
            lab = entry.get("lab") if isinstance(entry, dict) else None
            limit = entry.get("limit", MAX_DISTANCE) if isinstance(entry, dict) else None
            if (
                not isinstance(lab, list)
                or len(lab) != 3
                or not all(_finite(v) for v in lab)
                or not isinstance(limit, int | float)
                or not _finite(limit)
                or not 0 < limit <= 200
            ):
                raise InputError("schema.type", "lab is 3 numbers, limit a number 0..200", where)
            colors[color] = (float(lab[0]), float(lab[1]), float(lab[2]))
            limits[color] = float(limit)
        emblems = data.get("emblem_sixes", [])
        if not isinstance(emblems, list) or not all(c in PLAYER_COLORS for c in emblems):
            raise InputError(
                "value.color", "emblem_sixes is a list of player colours", f"{path}.emblem_sixes"
            )
        source = data.get("source", "table")
        source = source if source in ("table", "built-in") else "table"
        return cls(colors, limits, source, frozenset(emblems))


def _runner_up(p: np.ndarray, color: str) -> bool:
    """Whether the reader's probabilities `p` (PLAYER_COLORS, then none) give `color` at least
    `READER_SECOND`."""
    if not READER_SECOND or color in SECOND_NOT_FOR:
        return False
    return float(p[PLAYER_COLORS.index(color)]) >= READER_SECOND


def _finite(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)


BUILT_IN = Palette(BUILT_IN_LAB)


def swatch_at(layout: Layout, point_mm: Sequence[float] | np.ndarray) -> str | None:
    """The player colour whose swatch square holds this board point, if any."""
    for color, (cx, cy, side) in layout.swatches.items():
        if abs(point_mm[0] - cx) <= side / 2 and abs(point_mm[1] - cy) <= side / 2:
            return color
    return None


def take_reference(
    board: np.ndarray,
    boxes: np.ndarray,
    centres_mm: np.ndarray,
    layout: Layout,
    palette: Palette | None = None,
    camera: tuple[float, float, float] | None = None,
) -> tuple[Palette, list[str]]:
    """Learn the colours of the dice lying on the sheet's swatch squares of a rectified board.

    `boxes` are the detected dice (rectified pixels), `centres_mm` where each lies on the
    board and `camera` where the camera is (`top_faces`). Returns the palette with every colour
    that had a die on its square taken anew (the others kept from `palette`) and the colours
    taken."""
    light = sheet_light(board, layout)
    faces = top_faces(boxes, layout, camera)
    where = np.asarray(centres_mm, np.float64).reshape(-1, 2)
    body = body_colors(board, faces)
    held = face_glare(board, faces, light, where, body) if GLARE_OFF else None
    labs = linear_to_lab(glare_off(srgb_to_linear(light.normalise(body, where)), held))
    refs: dict[str, list[np.ndarray]] = {}
    for lab, centre in zip(labs, np.asarray(centres_mm).reshape(-1, 2), strict=True):
        color = swatch_at(layout, centre)
        if color is not None:
            refs.setdefault(color, []).append(lab)
    base = palette or BUILT_IN
    return base.updated(refs), sorted(refs, key=PLAYER_COLORS.index)
