"""The dice colours learnt at the table (scanner.vision.palette): a die's colour is its body's.

The end-to-end tests draw dice the training renders never had (other shades of the five colours,
pips of the other colour, a purple die), take the reference from dice set on the sheet's swatch
squares, then read a game frame under the same light."""

from __future__ import annotations

import itertools
import json
from dataclasses import replace

import cv2
import numpy as np
import pytest

from scanner.errors import InputError
from scanner.rules.components import PLAYER_COLORS
from scanner.synth.arrange import TrueDie
from scanner.synth.dice import DieStyle, render_die
from scanner.synth.table import (
    DiceSet,
    before_the_game,
    mid_game_states,
    on_swatches,
    render_table,
)
from scanner.vision import palette as P
from scanner.vision.calibrate import Calibration, calibrate
from scanner.vision.layout import Layout, default_layout
from scanner.vision.scan import learn_colors, scan_image
from tests.cli import ROOT, alea, assert_bad_input

LAY = default_layout()
WHITE, BLACK = (0.95, 0.95, 0.93), (0.05, 0.05, 0.06)
# Shades unlike the renderer's own (scanner.synth.dice.GAME_COLORS), and the other pip colour.
BODIES = {
    "grey": (0.72, 0.72, 0.74),
    "brown": (0.55, 0.33, 0.18),
    "blue": (0.20, 0.45, 0.85),
    "green": (0.30, 0.65, 0.20),
    "yellow": (0.98, 0.85, 0.30),
    "purple": (0.45, 0.15, 0.55),  # no player's colour
}
SWAPPED = {"grey": BLACK, "brown": BLACK, "blue": BLACK, "green": BLACK, "purple": WHITE}


def die_image(body, pip, value=6, side=60, glare=0.0):
    """One die drawn straight from above on white paper (BGR uint8) and its box; `glare`, the
    white a lamp's mirror image lays over its flat face (`DieStyle.glare`)."""
    style = DieStyle(value, "x", body, pip, side, 0.3, 0.25, 0.16, (0.0, 0.0), (0, 0, 1), 0.3, 0.0)
    style = replace(style, glare=(glare,) * 3)
    rgb, alpha, _ = render_die(style, np.random.default_rng(0))
    h, w = alpha.shape[:2]
    img = np.ones((h + 40, w + 40, 3), np.float32)
    a = alpha[..., None] if alpha.ndim == 2 else alpha
    img[20 : 20 + h, 20 : 20 + w] = img[20 : 20 + h, 20 : 20 + w] * (1 - a) + rgb * a
    bgr = (np.clip(img[..., ::-1], 0, 1) * 255).astype(np.uint8)
    return bgr, np.array(
        [[20 + (w - side) / 2, 20 + (h - side) / 2, 20 + (w + side) / 2, 20 + (h + side) / 2]]
    )


@pytest.mark.parametrize("color", list(BODIES)[:5])
def test_pip_colour_does_not_change_a_dies_colour(color):
    labs = []
    for pip in (WHITE, BLACK):
        img, box = die_image(BODIES[color], pip)
        labs.append(P.srgb_to_lab(P.body_colors(img, box))[0])
    expected = P.srgb_to_lab(np.array([BODIES[color]]))[0]
    # The same body colour whichever its pips, and it is the body's (not the pips' mix).
    assert P.distances(labs[0][None], labs[1][None])[0, 0] < 4
    assert P.distances(labs[0][None], expected[None])[0, 0] < 8


def test_a_die_far_from_every_reference_is_unknown():
    pal = P.BUILT_IN.updated({c: [P.srgb_to_lab(np.array([BODIES[c]]))[0]] for c in PLAYER_COLORS})
    rgb = np.array([BODIES["blue"], BODIES["purple"], (0.95, 0.45, 0.08), (0.07, 0.07, 0.08)])
    assert pal.name(rgb) == ["blue", None, None, None]  # purple, orange, black: no player's
    # A table palette without a colour names no die that colour.
    only = P.BUILT_IN.updated({"blue": [P.srgb_to_lab(np.array([BODIES["blue"]]))[0]]})
    assert only.name(np.array([BODIES["green"], BODIES["blue"]])) == [None, "blue"]


def _three_references() -> P.Palette:
    refs = {c: [P.srgb_to_lab(np.array([BODIES[c]]))[0]] for c in ("green", "blue", "grey")}
    return P.BUILT_IN.updated(refs)


def _paler_green(pal: P.Palette, times: float) -> np.ndarray:
    """The green die mixed with white until it lies `times` the green limit from its reference."""
    return _paler(pal, times, "green")


def _paler(pal: P.Palette, times: float, color: str) -> np.ndarray:
    """The `color` die mixed with white until it lies `times` its limit from its reference."""
    body = np.array(BODIES[color])
    for t in np.linspace(0, 1, 2001):
        rgb = body + t * (1 - body)
        d = P.distances(P.srgb_to_lab(rgb[None]), np.array([pal.colors[color]]))[0, 0]
        if d >= times * pal.limit(color):
            return rgb
    raise AssertionError("never that far")


def test_a_die_a_little_beyond_its_reference_is_named_when_the_reader_agrees():
    """A paler green (a lamp's sheen) beyond the green reference's limit is unknown by the
    palette alone; the reader naming it green too names it, up to `AGREE_REACH` times the
    limit; a reader that says otherwise, or a die farther out, leaves it unknown."""
    pal = _three_references()
    near, far = (
        _paler_green(pal, 1 + (P.AGREE_REACH - 1) / 2),
        _paler_green(pal, P.AGREE_REACH + 0.2),
    )
    dice = np.array([near, far])
    assert pal.name(dice) == [None, None]
    assert pal.name(dice, reader=["green", "green"]) == ["green", None]
    assert pal.name(dice, reader=["blue", None]) == [None, None]
    assert pal.name(dice[:1], reader=[None]) == [None]


def test_the_readers_no_player_holds_outside_the_disagree_reach(monkeypatch):
    """`DISAGREE_REACH` (shipped 0.5; 1 is the ablation row "before session 29" of
    colour_source.py): a die the reader names no player's colour is named by the palette only
    within that share of its nearest reference's limit; a reader that names a colour, or none,
    changes nothing."""
    pal = _three_references()
    dice = np.array([_paler_green(pal, 0.3), _paler_green(pal, 0.7)])
    assert P.DISAGREE_REACH == 0.5
    assert pal.name(dice, reader=[None, None]) == ["green", None]
    monkeypatch.setattr(P, "DISAGREE_REACH", 1.0)
    assert pal.name(dice, reader=[None, None]) == ["green", "green"]
    monkeypatch.setattr(P, "DISAGREE_REACH", 0.5)
    assert pal.name(dice, reader=["green", "green"]) == ["green", "green"]
    assert pal.name(dice) == ["green", "green"]
    # A reader naming another colour, far from that colour's reference, disagrees just as much.
    assert pal.name(dice, reader=["blue", "blue"]) == ["green", None]


def _reader_p(**p: float) -> np.ndarray:
    """The reader's probabilities over PLAYER_COLORS and none, from the ones named (rest 0)."""
    return np.array([p.get(c, 0.0) for c in (*PLAYER_COLORS, "other")])


def test_the_readers_runner_up_lets_the_palette_name_a_die_within_its_limit(monkeypatch):
    """`READER_SECOND` (shipped 0.2; 0 is the row "before session 37" of colour_source.py): a
    die within its nearest reference's limit but beyond `DISAGREE_REACH` of it, which the reader
    names no player's colour or another player's colour it does not choose, is named that
    reference's colour when the reader gives that colour at least READER_SECOND; a die the
    reader gives less, one beyond the limit, or one nearest the grey reference
    (`SECOND_NOT_FOR`) stays unknown."""
    pal = _three_references()
    inside, beyond = _paler_green(pal, 0.7), _paler_green(pal, 1.1)
    dice = np.array([inside, inside, beyond])
    runner_up = np.array(
        [_reader_p(other=0.7, green=0.25), _reader_p(other=0.95, green=0.05)]
        + [_reader_p(other=0.7, green=0.3)]
    )
    assert P.READER_SECOND == 0.2
    assert pal.name(dice, reader=[None] * 3, reader_p=runner_up) == ["green", None, None]
    # Another player's colour the reader names, far from that colour's reference (blue).
    blue = np.array([_reader_p(blue=0.6, green=0.4), _reader_p(blue=0.97, green=0.03)])
    assert pal.name(dice[:2], reader=["blue", "blue"], reader_p=blue) == ["green", None]
    # Not for grey: the reader puts grey second on white and black dice of no player's colour.
    grey = _paler(pal, 0.7, "grey")
    assert pal.name(grey, reader=[None], reader_p=_reader_p(other=0.6, grey=0.4)[None]) == [None]
    monkeypatch.setattr(P, "SECOND_NOT_FOR", frozenset())
    assert pal.name(grey, reader=[None], reader_p=_reader_p(other=0.6, grey=0.4)[None]) == ["grey"]
    monkeypatch.setattr(P, "READER_SECOND", 0.0)
    assert pal.name(dice, reader=[None] * 3, reader_p=runner_up) == [None, None, None]
    assert pal.name(dice[:2], reader=["blue", "blue"], reader_p=blue) == [None, None]


def _greyish_brown() -> tuple[P.Palette, np.ndarray]:
    """A palette of a mid grey, a greyish brown and a blue, and a die between the first two,
    nearer the grey (as a lamp's glare leaves a brown die) but within both limits."""
    grey, brown = np.array([0.5, 0.5, 0.5]), np.array([0.58, 0.45, 0.33])
    refs = {"grey": grey, "brown": brown, "blue": np.array(BODIES["blue"])}
    pal = P.BUILT_IN.updated({c: [P.srgb_to_lab(v[None])[0]] for c, v in refs.items()})
    die = grey + 0.45 * (brown - grey)
    d = P.distances(P.srgb_to_lab(die[None]), np.array([pal.colors["grey"], pal.colors["brown"]]))
    assert d[0, 0] < d[0, 1] < pal.limit("brown")
    return pal, die[None]


def test_the_reader_chooses_between_references_the_die_lies_within(monkeypatch):
    """`READER_CHOOSES` (shipped 1.5; 0 is the row "before session 33" of colour_source.py): a
    die within two references' limits is named the one the reader names, not the nearer; a
    reader naming a colour farther away than that disagrees (`DISAGREE_REACH`); one naming a
    colour the palette never took leaves the die to the reader (`scan.READER_FOR_UNTAKEN`)."""
    pal, die = _greyish_brown()
    assert P.READER_CHOOSES == 1.5
    assert pal.name(die) == ["grey"]
    assert pal.name(die, reader=["grey"]) == ["grey"]
    assert pal.name(die, reader=["brown"]) == ["brown"]
    assert pal.name(die, reader=["blue"]) == [None]  # beyond half the grey's limit
    assert pal.name(die, reader=["yellow"]) == [None]  # the palette took no yellow
    assert pal.name(die, reader=[None]) == [None]
    monkeypatch.setattr(P, "READER_CHOOSES", 0.0)
    assert pal.name(die, reader=["brown"]) == ["grey"]
    assert pal.name(die, reader=["blue"]) == ["grey"]
    assert pal.name(die, reader=["yellow"]) == ["grey"]


def _glared(rgb, white: float) -> np.ndarray:
    """sRGB colours with `white` of the paper's white added in linear light (a lamp's glare)."""
    lin = P.srgb_to_linear(np.asarray(rgb, np.float64)) + white
    return np.where(lin <= 0.0031308, lin * 12.92, 1.055 * lin ** (1 / 2.4) - 0.055)


def test_glare_on_a_die_or_its_reference_is_allowed_for_on_coloured_references(monkeypatch):
    """`GLARE_REACH` (1.0 as shipped, 0.5 before session 37; 0 compares colours as seen), here
    with no face measured and so held by no rim (`GLARE_FROM_RIM` off; shipped, such a die holds
    no white): a green die
    that mirrors a lamp (white added in linear light) lies beyond its reference's limit as seen,
    and is named green once up to that much white may be taken off it, or laid on it when its
    reference mirrored the lamp instead; more white than allowed stays unknown. A paler grey
    is compared with grey as seen (colourless references), an almost grey die with green too
    (colourless dice), and white cannot be taken off a saturated colour, or laid on it under a
    saturated reference, beyond the darkest channel."""
    pal = _three_references()
    green = np.array([BODIES["green"]])
    glared = np.vstack([_glared(green, 0.3), _glared(green, 0.8)])
    assert P.GLARE_REACH == 1.0
    assert pal.name(glared) == [None, None]  # the face not measured: it holds no white
    monkeypatch.setattr(P, "GLARE_FROM_RIM", False)  # held by no rim
    assert pal.name(glared) == ["green", "green"]
    monkeypatch.setattr(P, "GLARE_REACH", 0.0)
    assert pal.name(glared) == [None, None]
    monkeypatch.setattr(P, "GLARE_REACH", 0.5)
    assert pal.name(glared) == ["green", None]
    seen = P.BUILT_IN.updated({"green": [P.srgb_to_lab(_glared(green, 0.3))[0]]})
    assert seen.name(green) == ["green"]

    def as_seen(rgb, ref):
        return P.distances(P.srgb_to_lab(rgb), ref)[0, 0]

    def allowing(rgb, ref):
        return P.glare_distances(rgb, ref)[0, 0]

    grey = np.array([pal.colors["grey"]])
    paler_grey = _glared(np.array([BODIES["grey"]]), 0.4)
    assert allowing(paler_grey, grey) == as_seen(paler_grey, grey) > 5
    faint = np.array([[0.70, 0.74, 0.70]])  # taken white off, its faint tint would be green
    green_ref = np.array([pal.colors["green"]])
    assert allowing(faint, green_ref) == as_seen(faint, green_ref) > 10
    # Pure green light holds no white: it is no glared darker green, nor lies beneath a glared
    # paler one. White a die or its reference did gain is allowed for.
    pure, darker = np.array([[0.0, 0.7, 0.0]]), np.array([[0.0, 0.5, 0.0]])
    for die, ref in ((pure, darker), (darker, pure)):
        lab = P.srgb_to_lab(ref)
        assert allowing(die, lab) == as_seen(die, lab) > 10
    assert allowing(_glared(pure, 0.2), P.srgb_to_lab(pure)) < 1
    assert allowing(pure, P.srgb_to_lab(_glared(pure, 0.2))) < 1


def test_a_face_paler_than_its_rim_holds_the_glare_a_pale_die_holds_none():
    """`face_glare`: a green die whose flat face mirrors a lamp (`DieStyle.glare`) holds about
    that white over its rim; the same die without glare, and an ivory die (pale all through),
    hold next to none, whatever the shading."""

    def held(body, glare):
        img, face = die_image(body, BLACK, value=4, side=80, glare=glare)
        return P.face_glare(img, face, P.NEUTRAL, np.zeros((1, 2))).white[0]

    green, ivory = (0.20, 0.45, 0.15), (0.85, 0.81, 0.70)  # room for the glare below white
    assert held(green, 0.0) < 0.03 and held(ivory, 0.0) < 0.03
    assert 0.2 < held(green, 0.3) < 0.4


def test_a_glared_brown_whose_face_lost_its_hue_is_named_by_its_rims_hue(monkeypatch):
    """A brown die whose whole flat face mirrors a lamp comes out an almost colourless pale
    face over a rim that keeps its brown: beyond both references as seen and with glare allowed
    for coloured faces only; named brown once its rim's hue counts (`GLARE_RIM_HUE`), or once
    the white its face holds over its rim is taken off (`GLARE_OFF`). A grey die in the same
    glare has a colourless rim: nothing is taken off it, and it stays unknown."""
    brown, grey = (0.45, 0.28, 0.15), (0.35, 0.35, 0.36)
    refs = {}
    for color, body in (("brown", brown), ("grey", grey)):
        img, face = die_image(body, WHITE, value=4, side=80)
        refs[color] = [P.srgb_to_lab(P.body_colors(img, face))[0]]
    pal = P.BUILT_IN.updated(refs)
    where = np.zeros((1, 2))

    def named(body, **switches):
        for key, value in switches.items():
            monkeypatch.setattr(P, key, value)
        img, face = die_image(body, WHITE, value=4, side=80, glare=0.3)
        held = P.held_glare(img, face, P.NEUTRAL, where)
        face_lab = P.srgb_to_lab(P.body_colors(img, face))[0]
        return pal.name(P.body_colors(img, face), glare=held)[0], face_lab

    assert (P.GLARE_REACH, P.GLARE_FROM_RIM, P.GLARE_RIM_HUE, P.GLARE_OFF) == (1.0, 1, 1, 0)
    assert named(brown)[0] == "brown" and named(grey)[0] is None  # as shipped
    off = {"GLARE_REACH": 0.0, "GLARE_FROM_RIM": False, "GLARE_RIM_HUE": False}
    name, face = named(brown, **off)
    assert name is None and np.hypot(face[1], face[2]) < P.GLARE_CHROMA
    assert named(brown, GLARE_REACH=0.5, GLARE_FROM_RIM=True)[0] is None
    assert named(brown, GLARE_RIM_HUE=True)[0] == "brown"
    assert named(grey)[0] is None
    assert named(brown, **off, GLARE_OFF=True)[0] == "brown"
    assert named(grey)[0] is None


def test_the_sheets_white_takes_the_lights_colour_out():
    lay = LAY
    board = cv2.resize(
        cv2.imread(str(ROOT / "calibration" / "markers-a3.png")),
        (int(lay.width * lay.px_per_mm), int(lay.height * lay.px_per_mm)),
        interpolation=cv2.INTER_AREA,
    )
    warm = np.float32([0.55, 0.8, 1.0])  # BGR gains: a warm bulb, dim
    lit = np.clip(board * warm, 0, 255).astype(np.uint8)
    light = P.sheet_light(lit, lay)
    assert np.allclose(light.white, warm[::-1], atol=0.03)
    assert max(light.black) < 0.05
    grey_die = np.array([[0.5, 0.5, 0.5]]) * warm[::-1]
    assert np.allclose(light.normalise(grey_die), 0.5, atol=0.04)


def sheet_board(lay=LAY):
    """The printed sheet as the rectified board shows it under white light (BGR uint8)."""
    return cv2.resize(
        cv2.imread(str(ROOT / "calibration" / "markers-a3.png")),
        (int(lay.width * lay.px_per_mm), int(lay.height * lay.px_per_mm)),
        interpolation=cv2.INTER_AREA,
    )


def across(board, left, right):
    """`board` lit from the left in BGR gains `left` and from the right in `right`, blended
    linearly across the sheet; and the gains (RGB) as a function of x in mm."""
    w = board.shape[1]
    t = np.linspace(0, 1, w, dtype=np.float32)[None, :, None]
    gains = (1 - t) * np.float32(left) + t * np.float32(right)
    lit = np.clip(board * gains, 0, 255).astype(np.uint8)
    s = LAY.px_per_mm

    def at(x_mm):
        return ((1 - x_mm * s / (w - 1)) * np.array(left) + x_mm * s / (w - 1) * np.array(right))[
            ::-1
        ]

    return lit, at


def test_the_papers_white_is_read_where_each_die_lies():
    """A bulb on one side, a window on the other: a grey die in the warm dim corner and one in
    the cool bright corner come out the same grey."""
    lit, at = across(sheet_board(), (0.45, 0.7, 0.95), (1.0, 0.95, 0.85))
    light = P.sheet_light(lit, LAY)
    for x in (60.0, 210.0, 360.0):
        assert np.allclose(light.white_at(np.array([[x, 100.0]]))[0], at(x), atol=0.03)
    where = np.array([[70.0, 100.0], [350.0, 100.0]])
    dice = np.array([0.5, 0.5, 0.5]) * np.array([at(70.0), at(350.0)])
    assert np.allclose(light.normalise(dice, where), 0.5, atol=0.03)
    # One white for the sheet would make them two different colours.
    flat = P.srgb_to_lab(light.normalise(dice))
    assert P.distances(flat[:1], flat[1:])[0, 0] > 15


def test_a_hand_over_a_marker_does_not_tilt_the_papers_white():
    board = sheet_board()
    s = LAY.px_per_mm
    cx, cy, side = LAY.markers[5]  # the right edge's middle marker
    x0, x1 = int((cx - side / 2 - 8) * s), int((cx + side / 2 + 8) * s)
    y0, y1 = int((cy - side / 2 - 8) * s), int((cy + side / 2 + 8) * s)
    board[y0:y1, x0:x1] = (board[y0:y1, x0:x1] * 0.55).astype(np.uint8)  # a hand's shadow
    light = P.sheet_light(board, LAY)
    corners = np.array([[40.0, 40.0], [380.0, 40.0], [380.0, 257.0], [40.0, 257.0]])
    assert np.allclose(light.white_at(corners), 1.0, atol=0.03)


def test_a_sheet_whose_white_the_camera_clips_is_told():
    """`exposure_warning`: a board whose paper lies below the top of the range says nothing; the
    same board brighter, its paper clipped in every channel, says how much of it clips. A
    pale colour clipped in one channel only is not the paper's white."""
    board = np.full((300, 400, 3), 235, np.uint8)
    board[100:200, 100:300] = (40, 120, 200)  # dice and ink
    assert P.clipped_share(board) == 0.0 and P.exposure_warning(board) is None
    bright = np.clip(board.astype(int) * 2, 0, 255).astype(np.uint8)
    assert P.clipped_share(bright) == pytest.approx(1 - 100 * 200 / (300 * 400), abs=0.01)
    said = P.exposure_warning(bright)
    assert said is not None and "83%" in said
    one_channel = board.copy()
    one_channel[..., 2] = 255
    assert P.exposure_warning(one_channel) is None
    assert P.exposure_warning(bright[..., 0]) is not None  # a grey camera too


def test_palette_json_round_trip_and_bad_input():
    pal = P.BUILT_IN.updated({"grey": [np.array([60.0, 1.0, -2.0]), np.array([64.0, 0.0, 0.0])]})
    again = P.Palette.from_json(json.loads(json.dumps(pal.to_json())))
    assert again.source == "table" and list(again.colors) == ["grey"]
    assert np.allclose(again.colors["grey"], pal.colors["grey"], atol=0.01)
    for bad in (
        {"colors": {"pink": {"lab": [1, 2, 3]}}},
        {"colors": {"grey": {"lab": [1, 2]}}},
        [],
    ):
        with pytest.raises(InputError):
            P.Palette.from_json(bad)


def test_layout_swatches_are_read_and_keep_their_size_on_a4():
    assert set(LAY.swatches) == set(PLAYER_COLORS)
    a4 = LAY.scaled(2**-0.5, "A4")
    assert {c: s[2] for c, s in a4.swatches.items()} == {c: 24.0 for c in PLAYER_COLORS}
    data = LAY.to_json()
    data["swatches"]["positions"][1]["color"] = "grey"
    with pytest.raises(InputError) as err:
        Layout.from_json(data)
    assert err.value.path == "$.swatches.positions[1].color"


# ------------------------------------------------------------------ the flow at the table
def frames(seed, glare=0.0):
    """A reference frame (one die of each colour on its square) and a game frame under the same
    light, with the odd dice of BODIES / SWAPPED and a purple die on the sheet; `glare`, a lamp
    wider than a die mirrored by the glossy top faces in a patch of both (`render_table`)."""
    state = next(itertools.islice(mid_game_states(seed), 0, None))
    on_squares = on_swatches(LAY, 3, yaw=0.3)
    ref = render_table(
        before_the_game(state),
        seed,
        look=seed,
        dice=DiceSet(BODIES, SWAPPED, on_squares),
        glare=glare,
    )
    purple = (TrueDie("purple", 5, "none", 150, 252, 0.2),)
    game = render_table(
        state, seed + 1, look=seed, dice=DiceSet(BODIES, SWAPPED, purple), glare=glare
    )
    return ref, game


def nearest_truth(die, game):
    """The labelled die nearest a read one, and the colour it should be read as."""
    truth = min(game.dice, key=lambda t: np.hypot(t.x - die.center_mm[0], t.y - die.center_mm[1]))
    return truth, truth.player if truth.player in PLAYER_COLORS else None


def wrong_colours(reading, game) -> int:
    """How many read dice carry another colour than the nearest labelled die's."""
    return sum(die.color != nearest_truth(die, game)[1] for die in reading.dice)


@pytest.fixture(scope="module")
def detect():
    from scanner.vision.models import load_detector

    try:
        return load_detector(None, 0)
    except InputError as err:
        pytest.skip(err.message)


@pytest.mark.parametrize("seed", [9103, 9108])
def test_reference_taken_at_the_table_then_dice_read_by_it(seed, detect):
    ref, game = frames(seed)
    cal = calibrate(ref.image, LAY)
    palette, taken = learn_colors(cal.rectify(ref.image), cal, detect)
    assert set(taken) >= {"grey", "brown", "blue", "green"} and palette.source == "table"
    reading = scan_image(game.image, replace(cal, palette=palette), detect)
    assert len(reading.dice) >= len(game.dice) - 1
    for die in reading.dice:
        truth, colour = nearest_truth(die, game)
        assert die.color == colour, truth


def _read_with_reference(ref, game, detect):
    """The game frame read with the palette learnt from the reference frame."""
    cal = calibrate(ref.image, LAY)
    palette, _ = learn_colors(cal.rectify(ref.image), cal, detect)
    return scan_image(game.image, replace(cal, palette=palette), detect)


@pytest.mark.parametrize("seed", [9124, 9129])
def test_under_a_lamps_glare_the_reference_flow_names_every_die(seed, detect, monkeypatch):
    """The flow end to end under a wide lamp's glare on both frames: every die found and named.
    On seed 9124 the reader before session 32, which never saw a glared face, lost 5 dice
    unless the palette took off the white each face holds over its rim; on 9129 it lost 2
    even so. Since session 33 either the white taken off (`GLARE_REACH`) or the reader's choice
    between references (`READER_CHOOSES`) names every die here; without both a die is lost
    on each."""
    ref, game = frames(seed, glare=0.4)
    seen = _read_with_reference(ref, game, detect)
    assert len(seen.dice) == len(game.dice) and wrong_colours(seen, game) == 0
    monkeypatch.setattr(P, "GLARE_REACH", 0.0)
    assert wrong_colours(_read_with_reference(ref, game, detect), game) == 0
    monkeypatch.setattr(P, "READER_CHOOSES", 0.0)
    assert wrong_colours(_read_with_reference(ref, game, detect), game) >= 1
    monkeypatch.setattr(P, "GLARE_REACH", 0.5)
    assert wrong_colours(_read_with_reference(ref, game, detect), game) == 0


@pytest.mark.parametrize("seed", [9124, 9127])
def test_under_a_brighter_glare_the_reader_chooses_between_near_references(
    seed, detect, monkeypatch
):
    """Twice that glare (0.8) pales grey, brown and blue dice toward one another: nearest
    reference alone (`READER_CHOOSES` 0) names several players' dice another player's colour;
    the reader choosing between the references a die lies within names every die."""
    ref, game = frames(seed, glare=0.8)
    seen = _read_with_reference(ref, game, detect)
    assert len(seen.dice) == len(game.dice) and wrong_colours(seen, game) == 0
    monkeypatch.setattr(P, "READER_CHOOSES", 0.0)
    before = _read_with_reference(ref, game, detect)
    wrong = [
        (nearest_truth(d, game)[1], d.color)
        for d in before.dice
        if d.color != nearest_truth(d, game)[1]
    ]
    assert len(wrong) >= 3 and all(truth in PLAYER_COLORS and c for truth, c in wrong), wrong


def test_a_colour_the_palette_never_took_is_the_readers(detect, monkeypatch):
    """A player forgot to set a die on their square (or the camera missed it): the palette has
    no blue, and the blue dice keep the reader's colour instead of coming out unknown."""
    from scanner.vision import scan

    ref, game = frames(9108)  # four blue dice
    cal = calibrate(ref.image, LAY)
    palette, _ = learn_colors(cal.rectify(ref.image), cal, detect)
    no_blue = P.Palette(
        {c: v for c, v in palette.colors.items() if c != "blue"},
        {c: v for c, v in palette.limits.items() if c != "blue"},
        "table",
    )
    reader = scan_image(game.image, cal, detect).dice
    filled = scan_image(game.image, replace(cal, palette=no_blue), detect).dice
    monkeypatch.setattr(scan, "READER_FOR_UNTAKEN", False)
    unknown = scan_image(game.image, replace(cal, palette=no_blue), detect).dice
    blue = [i for i, c in enumerate(reader.color) if c == "blue"]
    assert len(blue) >= 2 and len(filled) == len(reader)
    assert all(filled.color[i] == "blue" for i in blue)
    assert all(unknown.color[i] is None for i in blue)
    # The colours the palette took are still its own, the others' are not the reader's.
    assert [c for i, c in enumerate(filled.color) if i not in blue] == [
        c for i, c in enumerate(unknown.color) if i not in blue
    ]
    # Those blue dice are as sure as the reader's reading of them, colour and all.
    assert np.allclose(filled.confidence[blue], reader.confidence[blue])


def test_palette_cli_writes_the_colours_into_the_profile(tmp_path, detect):
    ref, game = frames(9103)
    cv2.imwrite(str(tmp_path / "ref.jpg"), ref.image)
    cv2.imwrite(str(tmp_path / "game.jpg"), game.image)
    cal_file = tmp_path / "cal.json"
    rc, out, err = alea("calibrate", str(tmp_path / "ref.jpg"), "--out", str(cal_file))
    assert rc == 0, err
    rc, out, err = alea("palette", str(tmp_path / "ref.jpg"), "--calibration", str(cal_file))
    assert rc == 0, err
    assert out["calibration"] == str(cal_file) and "grey" in out["taken"]
    assert Calibration.load(cal_file).palette is not None
    rc, out, err = alea("scan", str(tmp_path / "game.jpg"), "--calibration", str(cal_file))
    assert rc == 0, err
    grey = [d for d in out["dice"] if d["color"] == "grey"]
    assert len(grey) == sum(t.player == "grey" for t in game.dice)
    # No die on any square: a clear error, and the profile is left as it was.
    before = cal_file.read_text()
    rc, out, err = alea("palette", str(tmp_path / "game.jpg"), "--calibration", str(cal_file))
    assert_bad_input(rc, out, err, code="palette.no-dice")
    assert cal_file.read_text() == before


def test_eval_reads_a_table_set_with_and_without_its_reference(tmp_path, detect):
    """`alea eval --tables`: the format benchmarks/blender writes, here from our own frames."""
    for n, seed in enumerate((9103, 9108)):
        ref, game = frames(seed)
        for suffix, frame in (("_ref", ref), ("", game)):
            cv2.imwrite(str(tmp_path / f"{n:04d}{suffix}.png"), frame.image)
            dice = [
                {
                    "value": d.value,
                    "color": d.player if d.player in PLAYER_COLORS else None,
                    "pip": "black" if SWAPPED.get(d.player, WHITE) == BLACK else "white",
                    "center_mm": [d.x, d.y],
                }
                for d in frame.dice
            ]
            label = {"image": f"{n:04d}{suffix}.png", "dice": dice}
            (tmp_path / f"{n:04d}{suffix}.json").write_text(json.dumps(label))
    rc, out, err = alea(
        "eval",
        "--synth-n",
        "0",
        "--real-dir",
        str(tmp_path / "none"),
        "--tables",
        str(tmp_path),
        "--json",
        timeout=300,
    )
    assert rc == 0, err
    rows = {r["set"].split(", ")[1]: r for r in out}
    assert rows["table palette"]["images"] == 2 and rows["table palette"]["recall"] >= 95
    assert rows["table palette"]["color_acc"] == 100.0
    assert rows["reader colours"]["images"] == 2 and rows["reader colours"]["no_board"] == 0
    assert rows["table palette"]["color_acc_black_pips"] == 100.0
    # Read in two looks (the board detector finds, the detector boxes): the same dice.
    rc, out, err = alea(
        "eval", "--synth-n", "0", "--real-dir", str(tmp_path / "none"), "--tables",
        str(tmp_path), "--finder", "--json", timeout=300,
    )  # fmt: skip
    assert rc == 0, err
    found = {r["set"].split(", ")[1]: r for r in out}
    for key in ("recall", "precision", "value_acc", "color_acc"):
        assert found["table palette"][key] == rows["table palette"][key], key


def test_the_body_is_read_on_the_top_face_a_leaning_camera_sees():
    """Far from the point below a leaning camera, a die's box holds its side faces too; the
    window the body is read in must lie on the top face, not in the box's middle."""
    state = next(mid_game_states(12, LAY))
    frame = render_table(state, 12, max_tilt=30)
    cal = calibrate(frame.image, LAY)
    camera = cal.camera_position()
    s = LAY.px_per_mm

    def to_board(pts):
        return cal.board_to_rectified(cal.image_to_board(pts))

    boxes = frame.boxes(to_board)
    faces = P.top_faces(boxes, LAY, camera)
    tops = to_board(frame.project(np.array([[d.x, d.y, -LAY.die_size] for d in frame.dice])))
    off_box = np.linalg.norm((boxes[:, :2] + boxes[:, 2:]) / 2 - tops, axis=1)
    off_face = np.linalg.norm((faces[:, :2] + faces[:, 2:]) / 2 - tops, axis=1)
    far = off_box > 0.1 * LAY.die_size * s  # the dice the parallax pushes out the most
    assert far.sum() >= 3
    assert (off_face[far] < 0.25 * off_box[far]).all()
    assert (off_face < 0.05 * LAY.die_size * s).all()
    # Without the camera's position, the box itself.
    assert np.array_equal(P.top_faces(boxes, LAY, None), boxes)
