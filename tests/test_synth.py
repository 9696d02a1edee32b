"""The renderer draws what its labels say: pips counted back, boxes hugging the die, same seed
same pixels, and the dataset writer's files are valid YOLO."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from scanner.synth.dataset import write_dataset
from scanner.synth.dice import (
    GAME_COLORS,
    GAME_PIP_CONTRAST,
    LOGOS,
    OTHER_COLORS,
    PIP_CONTRAST,
    PIP_LAYOUTS,
    DieStyle,
    game_pip,
    luminance,
    marks,
    random_style,
    render_die,
    side_values,
    stretched_pips,
)
from scanner.synth.scene import SceneConfig, render_scene
from scanner.synth.surfaces import loose_tiles, sculpted_keyboard

REPO = Path(__file__).resolve().parents[1]


def _clean_style(value: int, angle: float, color: str = "blue") -> DieStyle:
    body = GAME_COLORS.get(color) or OTHER_COLORS[color]
    pip = (0.95, 0.95, 0.95) if sum(body) < 1.6 else (0.05, 0.05, 0.05)
    return DieStyle(
        value=value,
        color=color,
        body=body,
        pip=pip,
        side=80,
        angle=angle,
        corner=0.2,
        pip_radius=0.16,
        tilt=(0.0, 0.0),
        light=(0.0, 0.0, 1.0),
        gloss=0.0,
        marble=0.0,
    )


def count_pips(rgb: np.ndarray, alpha: np.ndarray, pip: tuple[float, float, float]) -> int:
    """A simple blob counter: pixels near the pip colour, inside the die, as connected blobs."""
    near = np.linalg.norm(rgb - np.array(pip, np.float32), axis=2) < 0.3
    mask = (near & (alpha > 0.99)).astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    return int(sum(1 for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= 20))


@pytest.mark.parametrize("value", range(1, 7))
@pytest.mark.parametrize("angle", [0.0, 0.4, 1.1, 2.7])
@pytest.mark.parametrize("color", ["blue", "yellow", "brown", "white"])
def test_pips_drawn_match_label(value, angle, color):
    style = _clean_style(value, angle, color)
    rgb, alpha, _ = render_die(style, np.random.default_rng(0))
    assert count_pips(rgb, alpha, style.pip) == value


def test_random_dice_pips_always_stand_out_from_the_body():
    # Renderer 2 drew white dice with white pips and yellow ones with gold: labels unreadable.
    rng = np.random.default_rng(3)
    styles = [random_style(rng, 3, 40.0) for _ in range(4000)]
    # the pip's own jitter (sigma 0.03 a channel) may eat a little of the margin, no more; the
    # game's dice may wear white on yellow (GAME_PIP_CONTRAST), as real sets do
    gaps = [abs(luminance(s.pip) - luminance(s.body)) for s in styles if s.color not in GAME_COLORS]
    assert min(gaps) >= PIP_CONTRAST - 0.1
    game = [abs(luminance(s.pip) - luminance(s.body)) for s in styles if s.color in GAME_COLORS]
    assert min(game) >= GAME_PIP_CONTRAST - 0.1
    assert np.mean(np.array(gaps) < PIP_CONTRAST - 0.05) < 0.002
    # and the palette still has both kinds of pips on bright dice, and gold and red ones
    bright = [s for s in styles if luminance(s.body) >= 0.55]
    assert any(luminance(s.pip) > 0.8 for s in bright)
    assert any(luminance(s.pip) < 0.2 for s in bright)
    assert any(s.pip[2] < 0.4 < s.pip[1] for s in styles)  # gold


def test_the_games_dice_wear_either_pip_colour_in_photos_and_one_on_the_table():
    from scanner.synth.table import _die_style, random_dice

    rng = np.random.default_rng(5)
    styles = [random_style(rng, 2, 40.0, game_share=1.0) for _ in range(2000)]
    for color in GAME_COLORS:
        own = [s for s in styles if s.color == color]
        pips = np.array([luminance(s.pip) for s in own])
        assert len(pips) > 100
        # Renderer 5: white and black pips on every game colour, about half each, so the
        # reader cannot learn a colour from its pips; and a range of shades of the body.
        assert 0.35 < (pips > 0.5).mean() < 0.65
        bodies = np.array([luminance(s.body) for s in own])
        assert bodies.max() - bodies.min() > 0.1
        # The table draws the game's own pips unless told another set of dice.
        table = _die_style(color, 3, 40.0, (0.0, 0.0), (0.0, 0.0, 1.0), 0.0, rng)
        assert table.pip == game_pip(color)
    sets = [random_dice(rng) for _ in range(40)]
    assert {s.pips["yellow"] for s in sets} == {(0.95, 0.95, 0.93), (0.05, 0.05, 0.06)}
    assert luminance(game_pip("grey")) > 0.9 and luminance(game_pip("yellow")) < 0.1


def along(color: str, body) -> np.ndarray:
    """Where bodies lie along their colour's range (renderer 5's): 0 the dark end, 1 the light."""
    from scanner.synth.dice import GAME_SHADES

    dark, light = (np.array(v) for v in GAME_SHADES[color])
    return (np.asarray(body) - dark) @ (light - dark) / np.sum((light - dark) ** 2)


def test_random_dice_reach_past_their_shade_ranges_only_when_asked():
    """`beyond` draws dice darker and lighter than renderer 5's ranges (a validation variant);
    0 draws the very sets of before, so every frame drawn with it is unchanged."""
    from scanner.synth.dice import shade
    from scanner.synth.table import random_dice

    for k in range(60):  # each set's bodies are its generator's first draws
        drawn = random_dice(np.random.default_rng((11, k))).bodies
        again = np.random.default_rng((11, k))
        assert drawn == {c: tuple(shade(c, again.random()).tolist()) for c in GAME_COLORS}
    wide = [random_dice(np.random.default_rng((11, k)), beyond=0.3) for k in range(60)]
    t = np.array([[float(along(c, s.bodies[c])) for c in ("blue", "green")] for s in wide])
    assert t.min() < -0.15 and t.max() > 1.15 and t.min() >= -0.31 and t.max() <= 1.31
    assert all(0 <= v <= 1 for s in wide for body in s.bodies.values() for v in body)


def test_mixed_sets_move_each_players_die_along_its_range_and_leave_the_others_alone():
    """`DiceSet.mixed` gives each die of a player's colour its own shade about the set's (dice
    from other sets, a validation variant); 0 takes no random number more, so every die is
    drawn as before, and a die of no player's colour keeps its body."""
    from dataclasses import replace

    from scanner.synth.table import _die_style, random_dice

    drawn = random_dice(np.random.default_rng(3))
    dice = replace(
        drawn,
        bodies={**drawn.bodies, "red": (0.8, 0.1, 0.1)},
        pips={**drawn.pips, "red": (0.95, 0.95, 0.93)},
    )

    def draw(color, mixed, rng):
        return _die_style(color, 3, 40.0, (0, 0), (0, 0, 1), 0.0, rng, replace(dice, mixed=mixed))

    def bodies(color, mixed, n=300):
        rng = np.random.default_rng(9)
        return np.array([draw(color, mixed, rng).body for _ in range(n)])

    unmixed, mixed = np.random.default_rng(9), np.random.default_rng(9)
    draw("blue", 0.0, unmixed)
    draw("blue", 0.3, mixed)
    no_set = np.random.default_rng(9)
    _die_style("blue", 3, 40.0, (0, 0), (0, 0, 1), 0.0, no_set)
    assert unmixed.random() == no_set.random() != mixed.random()
    assert np.array_equal(bodies("red", 0.3), bodies("red", 0.0))
    for color in ("blue", "green", "brown"):
        spread = along(color, bodies(color, 0.3)).var() - along(color, bodies(color, 0.0)).var()
        # On top of the brightness jitter every die has, a uniform draw of ±0.3 of the range
        # adds 0.3² / 3 = 0.03 of variance along it.
        assert 0.02 < spread < 0.04


def test_wide_shades_reach_past_renderer5s_ranges_and_call_a_lime_die_green():
    """`shades="wide"` draws every game colour darker and lighter than renderer 5's ranges, a
    lime die among them as green (never as a colour of no player); the default draws as before,
    number for number."""
    from scanner.synth.dice import GAME_SHADES, WIDE_SHADES, other_colors, random_style, shade
    from scanner.synth.table import random_dice

    for c in GAME_COLORS:
        assert luminance(shade(c, 0, "wide")) < luminance(GAME_SHADES[c][0])
        assert luminance(shade(c, 1, "wide")) > luminance(GAME_SHADES[c][1])
    assert "lime" in other_colors() and "lime" not in other_colors("wide")
    game = [random_style(np.random.default_rng((3, k)), 2, 40.0) for k in range(300)]
    again = [random_style(np.random.default_rng((3, k)), 2, 40.0, 0.6, "game") for k in range(300)]
    assert game == again
    wide = [random_style(np.random.default_rng((3, k)), 2, 40.0, 0.6, "wide") for k in range(300)]
    assert "lime" in {s.color for s in game} and "lime" not in {s.color for s in wide}
    # The same draws, other bodies: the wide green reaches lime green's yellowish light end.
    greens = [s.body for s in wide if s.color == "green"]
    assert max(b[0] for b in greens) > GAME_SHADES["green"][1][0] * 1.12 + 0.05
    sets = [random_dice(np.random.default_rng((11, k)), shades="wide") for k in range(40)]
    lemon = np.array(WIDE_SHADES["yellow"][1])
    assert max(-np.abs(np.array(s.bodies["yellow"]) - lemon).max() for s in sets) > -0.03


def test_half_the_dice_in_wide_shades_the_rest_in_renderer5s():
    """`shades="half"` draws each die (each colour of a table's set) from the wide or renderer
    5's ranges at even odds, and no lime die among the others."""
    from scanner.synth.dice import GAME_SHADES, WIDE_SHADES, other_colors, shade_set
    from scanner.synth.table import random_dice

    rng = np.random.default_rng(4)
    picks = [shade_set(rng, "half") for _ in range(400)]
    assert 150 < picks.count("wide") < 250 and set(picks) == {"wide", "game"}
    assert shade_set(rng, "game") == "game" and "lime" not in other_colors("half")

    def on(ranges, body):  # the body lies on that colour's segment (no per-die jitter here)
        dark, light = (np.array(v) for v in ranges["grey"])
        t = float((np.array(body) - dark) @ (light - dark) / np.sum((light - dark) ** 2))
        return np.abs(dark + t * (light - dark) - np.array(body)).max() < 1e-9 and 0 <= t <= 1

    greys = [
        random_dice(np.random.default_rng((12, k)), shades="half").bodies["grey"] for k in range(60)
    ]
    wide = [on(WIDE_SHADES, b) and not on(GAME_SHADES, b) for b in greys]
    game = [on(GAME_SHADES, b) for b in greys]
    assert all(w or g for w, g in zip(wide, game, strict=True)) and 15 < sum(wide) < 45


def test_spread_draws_the_other_colours_along_ranges_and_leaves_the_other_choices_alone():
    """`shades="spread"` draws each die of no player's colour along that colour's range
    (magenta among them, lime never), and the players' dice as `half` does; the other choices
    draw the same dice as before the ranges existed, number for number."""
    from scanner.synth.dice import OTHER_COLORS, OTHER_SHADES, other_colors, random_style

    assert set(other_colors("spread")) == set(OTHER_SHADES)
    assert "magenta" in OTHER_SHADES and "lime" not in OTHER_SHADES
    spread = [
        random_style(np.random.default_rng((5, k)), 3, 40.0, 0.0, "spread") for k in range(400)
    ]
    assert {s.color for s in spread} == set(OTHER_SHADES)
    reds = np.array([s.body for s in spread if s.color == "red"])
    # burgundy to scarlet: the red bodies spread far wider than one colour's brightness jitter
    assert reds[:, 0].max() - reds[:, 0].min() > 0.4
    for shades in ("game", "half"):
        dice = [
            random_style(np.random.default_rng((5, k)), 3, 40.0, 0.0, shades) for k in range(50)
        ]
        assert all(s.color in OTHER_COLORS for s in dice)
        for s in (s for s in dice if s.color == "red"):  # one red, only the exposure's jitter
            assert abs(s.body[0] / OTHER_COLORS["red"][0] - 1) < 0.2


def test_pip_layouts_are_standard():
    assert [len(PIP_LAYOUTS[v]) for v in range(1, 7)] == [1, 2, 3, 4, 5, 6]
    # opposite-corner symmetry: every layout is symmetric under a half turn
    for pts in PIP_LAYOUTS.values():
        assert sorted(pts) == sorted((-x + 0.0, -y + 0.0) for x, y in pts)


@pytest.mark.parametrize("angle", [0.0, 0.3, 0.785])
def test_outline_box_hugs_drawn_die(angle):
    style = DieStyle(**{**_clean_style(5, angle).__dict__, "tilt": (6.0, -4.0)})
    rgb, alpha, outline = render_die(style, np.random.default_rng(0))
    ys, xs = np.nonzero(alpha > 0.5)
    drawn = np.array([xs.min(), ys.min(), xs.max() + 1, ys.max() + 1], float)
    labelled = np.array([*outline.min(0), *outline.max(0)], float)
    assert np.abs(drawn - labelled).max() <= 1.5


def test_scene_is_deterministic_and_labels_valid():
    a, b, c = render_scene((3, 7)), render_scene((3, 7)), render_scene((3, 8))
    assert np.array_equal(a.image, b.image)
    assert [d.box for d in a.dice] == [d.box for d in b.dice]
    assert not np.array_equal(a.image, c.image)
    h, w = a.image.shape[:2]
    assert a.image.dtype == np.uint8 and a.image.shape == (320, 320, 3)
    for scene in (a, c):
        for d in scene.dice:
            x0, y0, x1, y1 = d.box
            assert 0 <= x0 < x1 <= w and 0 <= y0 < y1 <= h
            assert 1 <= d.value <= 6
            assert d.color in GAME_COLORS or d.color in OTHER_COLORS


def test_each_die_knows_how_much_of_it_the_frame_shows():
    # benchmarks/frame_edge.py sets aside the dice the frame cuts: `visible` must be 1 for a die
    # wholly inside and shrink with what the frame's edge takes off it.
    from scanner.synth.scene import photo_config

    seen = []
    # (1015, 112) and (1039, 3) are scenes with dice the tilt cuts to a thin strip (renderer 5)
    for seed in [(1015, 112), (1039, 3), (1000, 8), *((s, 1) for s in range(4))]:
        for d in render_scene(seed, photo_config()).dice:
            x0, y0, x1, y1 = d.box
            touches = x0 <= 0 or y0 <= 0 or x1 >= 640 or y1 >= 640
            assert 0 <= d.visible <= 1
            if not touches:
                assert d.visible > 0.999
            seen.append((touches, d.visible, min(x1 - x0, y1 - y0) / max(x1 - x0, y1 - y0)))
    cut = [(v, aspect) for touches, v, aspect in seen if touches]
    assert len(cut) >= 3 and min(v for v, _ in cut) < 0.4
    # a die cut to a thin strip shows less of itself than one barely touching the edge
    thin = [v for v, aspect in cut if aspect < 0.5]
    wide = [v for v, aspect in cut if aspect > 0.9]
    assert thin and wide and max(thin) < 0.6 < min(wide)


def test_swirled_pipless_cubes_are_drawn_only_when_asked():
    # The face reader's extra negatives (face_train.hard_negatives): pip-less cubes in swirled
    # plastic. They carry no label; and leaving the share at 0 must leave every scene as it was,
    # or the held-out test sets would change under the figures.
    plain = SceneConfig(blank_cube_share=1.0, jpeg_share=0.0)
    swirled = SceneConfig(blank_cube_share=1.0, blank_marble_share=1.0, jpeg_share=0.0)
    a, b = render_scene((2, 5), plain), render_scene((2, 5), swirled)
    assert a.dice == [] and b.dice == []
    assert not np.array_equal(a.image, b.image)
    default, zero = render_scene((2, 6)), render_scene((2, 6), SceneConfig(blank_marble_share=0))
    assert np.array_equal(default.image, zero.image)


def test_sixes_wear_an_emblem_only_when_asked():
    """SceneConfig.logo_sixes (issue 19: a six printed as the maker's emblem read as 1 or 2): at
    0 it takes no random number, so every set drawn before keeps its pixels; asked for, the
    sixes change and nothing else, and each emblem's ink is one mark of its own, not the six
    pips (no ink on the face's middle column between the pip rows, where a six has none)."""
    default, zero = render_scene((2, 9)), render_scene((2, 9), SceneConfig(logo_sixes=0.0))
    assert np.array_equal(default.image, zero.image) and default.dice == zero.dice
    logos = render_scene((2, 9), SceneConfig(logo_sixes=1.0))
    assert [(d.value, d.box) for d in logos.dice] == [(d.value, d.box) for d in default.dice]
    assert 6 in [d.value for d in default.dice]
    assert not np.array_equal(default.image, logos.image)
    u, v = np.meshgrid(np.linspace(-1, 1, 201), np.linspace(-1, 1, 201))
    pips = marks(6, 0, u, v, 0.16) < 0
    for k in range(1, len(LOGOS) + 1):
        ink = marks(6, k, u, v, 0.16) < 0
        assert 0.02 < ink.mean() < 0.4 and ink[:, 100].any()
    assert pips.mean() > 0.02 and not pips[:, 100].any()  # a six's pips leave it bare


def test_long_pips_are_drawn_only_when_asked_and_stay_apart():
    """SceneConfig.long_pips (issue 19: readers taught emblem sixes took a real three whose pips
    the light drew long for a six): at 0 it takes no random number, so every set drawn before
    keeps its pixels (emblems drawn beside it keep theirs too); asked for, the pips change and
    nothing else. A long pip reaches further along its direction than across it, and even the
    longest stay apart on a six, the face with the closest pips."""
    default = render_scene((2, 9), SceneConfig(logo_sixes=1.0))
    zero = render_scene((2, 9), SceneConfig(logo_sixes=1.0, long_pips=0.0))
    assert np.array_equal(default.image, zero.image) and default.dice == zero.dice
    long = render_scene((2, 9), SceneConfig(logo_sixes=1.0, long_pips=1.0))
    assert [(d.value, d.box) for d in long.dice] == [(d.value, d.box) for d in default.dice]
    assert not np.array_equal(default.image, long.image)
    u, v = np.meshgrid(np.linspace(-1, 1, 201), np.linspace(-1, 1, 201))
    one = marks(1, 0, u, v, 0.16, (1.6, 0.0)) < 0  # one pip in the middle, long along u
    cols, rows = np.flatnonzero(one.any(axis=0)), np.flatnonzero(one.any(axis=1))
    assert np.ptp(cols) > 1.5 * np.ptp(rows)
    rng = np.random.default_rng(0)
    for radius in (0.14, 0.16, 0.18):  # random_style's pip radii
        for _ in range(30):
            stretch = stretched_pips(rng, radius)
            assert 1.2 <= stretch[0] <= 1.6
            ink = marks(6, 0, u, v, radius, stretch) < 0
            assert cv2.connectedComponents(ink.astype(np.uint8))[0] - 1 == 6
    assert (marks(6, 2, u, v, 0.16, (1.6, 0.3)) == marks(6, 2, u, v, 0.16)).all()  # emblem kept


def test_translucent_dice_are_drawn_only_when_asked_and_show_the_pips_beneath():
    """SceneConfig.translucent (issue 19: a real translucent three, its four showing through, was
    read as a six): at 0 it takes no random number, so every set drawn before keeps its pixels;
    asked for, the dice change and their labels do not. On a clear die showing 1, the six beneath
    shows through: its pips' places change more than the bare face between them."""
    default, zero = render_scene((2, 9)), render_scene((2, 9), SceneConfig(translucent=0.0))
    assert np.array_equal(default.image, zero.image) and default.dice == zero.dice
    clear = render_scene((2, 9), SceneConfig(translucent=1.0))
    assert [(d.value, d.box) for d in clear.dice] == [(d.value, d.box) for d in default.dice]
    assert not np.array_equal(default.image, clear.image)
    rng = np.random.default_rng(0)
    style = replace(random_style(rng, 1, 80.0), angle=0.0, tilt=(0.0, 0.0), marble=0.0, gloss=0.0)
    opaque, _, _ = render_die(style, np.random.default_rng(1))
    seen, _, _ = render_die(replace(style, translucent=1.0), np.random.default_rng(1))
    change = np.abs(seen - opaque).sum(axis=2)
    mid, off = opaque.shape[0] // 2, 20  # half a face unit: a face is 80 px, 2 units wide
    # As far from the middle (the same glow): the six's middle pips (u = ±0.5, v = 0) and the
    # bare face between its columns (u = 0, v = ±0.5).
    beneath = [change[mid, mid - off], change[mid, mid + off]]
    between = [change[mid - off, mid], change[mid + off, mid]]
    assert min(beneath) > 1.5 * max(between)  # the glow alone: about equal


def _changes_only_the_table_and_only_when_asked(option: str, seed: tuple[int, int]) -> None:
    """A world scene with `option` at 0 is the scene as before (no random number taken); at 1
    its pixels change and its dice and labels do not."""
    world = SceneConfig(world=1.0, jpeg_share=0.0)
    default, zero = render_scene(seed, world), render_scene(seed, replace(world, **{option: 0.0}))
    assert np.array_equal(default.image, zero.image) and default.dice == zero.dice
    asked = render_scene(seed, replace(world, **{option: 1.0}))
    assert asked.dice == default.dice and not np.array_equal(default.image, asked.image)


def test_sculpted_keyboards_are_drawn_only_when_asked_under_the_dice():
    """SceneConfig.keyboards (issue 19: another renderer's keycaps, a small legend on a tapered
    cap, were read as ones): at 0 it takes no random number, so every set drawn before keeps its
    pixels; asked for, the keyboard changes the table and neither the dice nor their labels, and
    its caps are the dice's size, the size at which they pass for a die."""
    _changes_only_the_table_and_only_when_asked("keyboards", (3, 2))
    flat = np.full((400, 400, 3), 0.5, np.float32)
    drawn = sculpted_keyboard(np.random.default_rng(1), flat, np.zeros((400, 400)), 30.0)
    drawn = drawn.astype(np.float32)
    changed = np.abs(drawn - flat).sum(axis=2) > 0.02
    assert changed.mean() > 0.2
    # The caps' top faces are flat patches, each cut off from the next by its shaded skirt.
    grey = drawn.mean(axis=2)
    slope = np.abs(cv2.Sobel(grey, cv2.CV_32F, 1, 0)) + np.abs(cv2.Sobel(grey, cv2.CV_32F, 0, 1))
    tops = ((slope < 0.01) & changed).astype(np.uint8)
    _, _, stats, _ = cv2.connectedComponentsWithStats(tops, connectivity=4)
    sides = [max(w, h) for _, _, w, h, area in stats[1:] if 100 < area < 3000]
    assert len(sides) >= 20 and 15 <= np.median(sides) <= 45


def test_loose_tiles_and_a_card_sized_to_the_dice_are_drawn_only_when_asked():
    """SceneConfig.tiles (issue 19: letter tiles read as ones, a close card's clubs as threes):
    at 0 the scenes keep their pixels; asked for, the table under the dice changes and the dice
    and their labels do not."""
    _changes_only_the_table_and_only_when_asked("tiles", (3, 4))
    flat = np.full((300, 300, 3), 0.3, np.float32)
    drawn = loose_tiles(np.random.default_rng(0), flat, np.zeros((300, 300)), 40.0)
    # A white card three to four and a half dice wide: its paper covers at least 3 x 4 dice.
    paper = (drawn.astype(np.float32).min(axis=2) > 0.75).sum()
    assert paper > 3 * 4 * 40 * 40 * 0.5


def test_world_scenes_are_drawn_only_when_asked():
    # SceneConfig.world (issue 19) draws keyboards, cards, grids, planks, small and big dice
    # and leaning cameras; at 0 it must take no random number, or every set rendered before
    # (the held-out test scenes among them) would change under its figures.
    default, zero = render_scene((2, 7)), render_scene((2, 7), SceneConfig(world=0.0))
    assert np.array_equal(default.image, zero.image) and default.dice == zero.dice
    sides, sizes = [], set()
    for i in range(40):
        scene = render_scene((3, i), SceneConfig(world=1.0))
        assert scene.image.shape == (320, 320, 3)
        for d in scene.dice:
            x0, y0, x1, y1 = d.box
            assert 0 <= x0 < x1 <= 320 and 0 <= y0 < y1 <= 320 and 1 <= d.value <= 6
            if d.visible == 1.0:
                sides.append(min(x1 - x0, y1 - y0))
        sizes.add(len(scene.dice) <= 5)
    # From crowds of small dice to close-ups of a few big ones.
    assert min(sides) < 26 and max(sides) > 120 and sizes == {True, False}


@pytest.mark.parametrize("top", range(1, 7))
def test_side_faces_carry_the_values_a_real_die_has_around_its_top(top):
    rng = np.random.default_rng(top)
    for _ in range(20):
        ring = side_values(rng, top)
        assert sorted(ring + (top, 7 - top)) == [1, 2, 3, 4, 5, 6]
        for i in range(4):  # neighbours on the ring are neighbours on the die, never opposite
            assert ring[i] + ring[(i + 1) % 4] != 7 and ring[i] + ring[(i + 2) % 4] == 7


def test_a_leaning_camera_sees_pips_on_the_side_faces_it_is_shown():
    # White pips on a dark body, tilted so the side face is as tall as the top: with `sides`
    # the side face below the top face holds pip-white pixels, without them none.
    base = random_style(np.random.default_rng(0), 5, 60.0)
    style = DieStyle(
        **{
            **base.__dict__,
            "body": (0.1, 0.2, 0.6),
            "pip": (0.95, 0.95, 0.93),
            "angle": 0.0,
            "tilt": (0.0, 50.0),
            "marble": 0.0,
            "gloss": 0.0,
        }
    )
    plain, _, _ = render_die(style, np.random.default_rng(1))
    pipped, alpha, _ = render_die(
        DieStyle(**{**style.__dict__, "sides": (2, 6, 5, 1)}), np.random.default_rng(1)
    )
    size = pipped.shape[0]
    # The face seen is the +v one (6): below the top face, which ends 5 px under the middle.
    band = (slice(size // 2 + 10, size // 2 + 50), slice(size // 2 - 25, size // 2 + 25))
    assert (plain[band].min(axis=2) > 0.6).sum() == 0
    assert (pipped[band].min(axis=2) > 0.5).sum() > 30
    top = (slice(size // 2 - 50, size // 2 - 10), slice(size // 2 - 25, size // 2 + 25))
    assert np.array_equal(plain[top], pipped[top])  # the top face is not touched


def test_a_wide_lamps_glare_fills_the_flat_top_face_and_spares_the_rim_the_pips_and_sides():
    """`DieStyle.glare`: the flat top face gains the glare's light (linear), edge to edge; the
    rim, the pips and the side face keep their colour, and no glare draws the die as before."""
    style = DieStyle(**{**_clean_style(5, 0.0, "green").__dict__, "tilt": (0.0, 30.0)})
    plain, alpha, outline = render_die(style, np.random.default_rng(1))
    lit, lit_alpha, lit_outline = render_die(
        replace(style, glare=(0.3, 0.3, 0.3)), np.random.default_rng(1)
    )
    assert np.array_equal(lit_alpha, alpha) and np.array_equal(lit_outline, outline)
    gain = (lit - plain).max(axis=2)
    size = plain.shape[0]
    c = size // 2 - 15  # the top face's middle (it sits tilt/2 above the patch's)
    # Between the pips of a five, on the flat face: the full glare, added in linear light.
    added = lit[c - 20, size // 2] ** 2.2 - plain[c - 20, size // 2] ** 2.2
    assert np.allclose(added, 0.3, atol=1e-4)
    pip = np.linalg.norm(plain - np.array(style.pip, np.float32), axis=2) < 0.1
    assert pip.sum() > 100 and gain[pip].max() < 0.05  # the pips' dimples mirror elsewhere
    side = (slice(size // 2 + 30, size // 2 + 50), slice(size // 2 - 10, size // 2 + 10))
    assert alpha[side].min() > 0.99 and gain[side].max() == 0  # the side face below the top
    assert np.array_equal(render_die(replace(style), np.random.default_rng(1))[0], plain)


def test_glare_draws_only_where_asked_and_pales_only_the_dice():
    """`render_table(glare=G)`: 0 draws the frame as before, pixel for pixel; above 0 only
    dice change (the matte paper and table do not mirror the lamp), and none gets darker."""
    from scanner.synth.table import mid_game_states, render_table
    from scanner.vision.layout import default_layout

    state = next(mid_game_states(3))
    frame = render_table(state, 11)
    assert np.array_equal(render_table(state, 11, glare=0.0).image, frame.image)
    lit = render_table(state, 11, glare=1.0).image
    diff = lit.astype(int) - frame.image.astype(int)
    changed = np.abs(diff).max(axis=2) > 12  # beyond the JPEG's noise
    assert changed.sum() > 200
    assert (diff[changed].sum(axis=-1) > 0).mean() > 0.98  # darker: the JPEG's ringing only
    die = default_layout().die_size
    near = np.zeros(changed.shape, np.uint8)
    for d in frame.dice:
        top, edge = frame.camera.project(np.array([[d.x, d.y, -die], [d.x + die, d.y, -die]]))
        radius = int(np.linalg.norm(edge - top))  # a whole side: the top face, any yaw
        cv2.circle(near, (int(top[0]), int(top[1])), radius, 1, -1)
    assert changed[near == 0].sum() < 0.02 * changed.sum()


def test_a_tables_sixes_wear_its_makers_emblem_and_nothing_else_changes():
    """`DiceSet.logo` (issue 19: the table detector measured on emblem sixes): 0 draws the frame
    as before, pixel for pixel; an emblem changes the sixes' boxes only (beyond the JPEG's
    noise), and every six's box changes."""
    from scanner.synth.table import DiceSet, mid_game_states, render_table

    state = next(s for s in mid_game_states(3) if 6 in [d for v in s.templum.values() for d in v])
    frame = render_table(state, 11)
    assert np.array_equal(render_table(state, 11, dice=DiceSet()).image, frame.image)
    emblem = render_table(state, 11, dice=DiceSet(logo=2))
    assert [(d.x, d.y, d.value) for d in emblem.dice] == [(d.x, d.y, d.value) for d in frame.dice]
    changed = np.abs(emblem.image.astype(int) - frame.image.astype(int)).max(axis=2) > 12
    sixes = np.zeros(changed.shape, bool)
    for d, (x0, y0, x1, y1) in zip(frame.dice, frame.boxes(), strict=True):
        box = changed[int(y0) : int(y1) + 1, int(x0) : int(x1) + 1]
        if d.value == 6:
            assert box.sum() > 10
            sixes[max(0, int(y0) - 4) : int(y1) + 5, max(0, int(x0) - 4) : int(x1) + 5] = True
    assert changed[~sixes].sum() < 0.02 * changed.sum()


def test_a_leaning_camera_foreshortens_the_table_and_magnifies_its_near_edge():
    # The world's oblique views (25-45 degrees): the table is drawn taller than the frame and
    # the camera squeezes it in, so a square on it comes out shorter than wide, and one near
    # the camera (the frame's bottom) bigger than the same square far from it.
    from scanner.synth.scene import _camera, _margin

    w, seen = 320, 240
    h = 320  # the table drawn at seen / cos(41 degrees)
    pad = _margin(h, w)
    canvas = np.full((h + 2 * pad, w + 2 * pad, 3), 0.2, np.float32)
    square = np.float32([[0, 0], [40, 0], [40, 40], [0, 40]])
    far, near = (
        square + np.float32([pad + 140, pad + 10]),
        square + np.float32([pad + 140, pad + 270]),
    )
    _, (f, n) = _camera(np.random.default_rng(1), canvas, [far, near], pad, seen_h=seen)
    for q in (f, n):
        width, height = np.ptp(q[:, 0]), np.ptp(q[:, 1])
        assert height < 0.85 * width
    assert np.ptp(n[:, 0]) > np.ptp(f[:, 0]) * 1.03


def test_tilted_camera_sees_the_table_beyond_the_frame_not_a_mirror_of_it():
    # A grey frame inside a black margin: wherever the tilt shows past the frame's edge the
    # picture must come from the margin (drawn before any die), never from the frame mirrored,
    # which once drew unlabelled mirror copies of the dice near the edge.
    from scanner.synth.scene import _camera, _margin

    h = w = 320
    pad = _margin(h, w)
    canvas = np.zeros((h + 2 * pad, w + 2 * pad, 3), np.float32)
    canvas[pad : pad + h, pad : pad + w] = 0.8
    dark_bands = 0
    for seed in range(12):
        img, _ = _camera(np.random.default_rng(seed), canvas.copy(), [], pad)
        inner = img[h // 4 : -h // 4, w // 4 : -w // 4]
        assert inner.min() > 50  # the frame itself is seen as it is
        edges = np.concatenate(
            [
                img[:3].reshape(-1, 3),
                img[-3:].reshape(-1, 3),
                img[:, :3].reshape(-1, 3),
                img[:, -3:].reshape(-1, 3),
            ]
        )
        dark_bands += int((edges.max(1) < 30).any())
    assert dark_bands >= 4  # most seeds tilt, and a tilt shows some margin


def test_neutral_light_renders_the_same_scene_without_the_cameras_colour_and_exposure():
    # benchmarks/light_ablation.py compares the same scenes under the camera's random light and
    # under neutral light: the dice, boxes and table must be the same, only the light differs.
    lit = render_scene((4, 2), SceneConfig(jpeg_share=0.0))
    flat = render_scene((4, 2), SceneConfig(jpeg_share=0.0, light_shift=False))
    assert [(d.value, d.color, d.box) for d in lit.dice] == [
        (d.value, d.color, d.box) for d in flat.dice
    ]
    assert not np.array_equal(lit.image, flat.image)
    # One gain per channel and one gamma turn the neutral picture into the lit one, up to
    # the blur and the sensor noise drawn after them: a per-channel fit in log space explains
    # nearly all of it, where a different scene would not fit at all.
    a, b = (
        np.log(im.astype(np.float64).reshape(-1, 3) / 255 + 0.02) for im in (flat.image, lit.image)
    )
    keep = (flat.image.reshape(-1, 3) > 30).all(1) & (lit.image.reshape(-1, 3) < 250).all(1)
    for ch in range(3):
        r = np.corrcoef(a[keep, ch], b[keep, ch])[0, 1]
        assert r > 0.99


def test_scene_dice_sizes_follow_config():
    cfg = SceneConfig(width=400, height=300, die_px=(30.0, 40.0), min_dice=5, max_dice=5)
    scene = render_scene(11, cfg)
    assert scene.image.shape == (300, 400, 3)
    sides = [
        min(d.box[2] - d.box[0], d.box[3] - d.box[1])
        for d in scene.dice
        if d.box[0] > 0 and d.box[2] < 400 and d.box[1] > 0 and d.box[3] < 300
    ]
    assert sides and all(28 <= s <= 40 * 1.45 + 12 for s in sides)


def test_dataset_writer(tmp_path):
    yaml_path = write_dataset(tmp_path, n=4, seed=5, val=2, workers=1)
    text = yaml_path.read_text()
    assert "0: one" in text and "5: six" in text and "val: images/val" in text
    images = sorted((tmp_path / "images" / "train").glob("*.jpg"))
    assert len(images) == 4 and len(list((tmp_path / "images" / "val").glob("*.jpg"))) == 2
    for img in images:
        rows = (tmp_path / "labels" / "train" / f"{img.stem}.txt").read_text().split("\n")
        colors = (tmp_path / "colors" / "train" / f"{img.stem}.txt").read_text().split("\n")
        rows, colors = [r for r in rows if r], [c for c in colors if c]
        assert len(rows) == len(colors)
        for r in rows:
            cls, *box = r.split()
            assert 0 <= int(cls) <= 5 and all(0 <= float(v) <= 1 for v in box)
    # same seed, same bytes
    again = write_dataset(tmp_path / "again", n=4, seed=5, workers=1)
    assert (tmp_path / "again" / "images" / "train" / images[0].name).read_bytes() == images[
        0
    ].read_bytes()
    assert again.exists()


def test_synth_cli(tmp_path):
    env_cmd = [
        sys.executable,
        "-m",
        "scanner",
        "synth",
        "--out",
        str(tmp_path / "d"),
        "--n",
        "3",
        "--seed",
        "2",
        "--workers",
        "1",
        "--size",
        "160",
    ]
    res = subprocess.run(env_cmd, capture_output=True, text=True, cwd=REPO, timeout=120)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["train"] == 3 and Path(out["dataset"]).exists()
    img = cv2.imread(str(next((tmp_path / "d" / "images" / "train").glob("*.jpg"))))
    assert img.shape == (160, 160, 3)
    bad = subprocess.run(
        [sys.executable, "-m", "scanner", "synth", "--out", str(tmp_path / "e"), "--n", "-1"],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )
    assert bad.returncode == 2
    assert json.loads(bad.stdout)["error"]["code"] == "synth.count"
    assert len(bad.stderr.strip().splitlines()) == 1


def test_test_sets_drawn_by_an_older_renderer_are_drawn_again(tmp_path):
    from scanner.synth.dataset import ensure_test_set, renderer_of
    from scanner.synth.scene import RENDERER

    cfg = SceneConfig(width=160, height=160, min_dice=2, max_dice=3)
    images = ensure_test_set(tmp_path, 2, 9, cfg)
    assert renderer_of(tmp_path) == RENDERER and len(list(images.glob("*.jpg"))) == 2
    first = images / "s9_000000.jpg"
    drawn = first.read_bytes()
    first.write_bytes(b"scribbled over")
    ensure_test_set(tmp_path, 2, 9, cfg)  # up to date: reused as it is
    assert first.read_bytes() == b"scribbled over"
    (images / "mine.jpg").write_bytes(b"a user's file")
    (tmp_path / "renderer.txt").write_text("1\n")
    ensure_test_set(tmp_path, 2, 9, cfg)  # stale: drawn again, the user's file left alone
    assert first.read_bytes() == drawn and renderer_of(tmp_path) == RENDERER
    assert (images / "mine.jpg").read_bytes() == b"a user's file"
    ensure_test_set(tmp_path, 3, 9, cfg)  # short: completed
    assert len(list(images.glob("s9_*.jpg"))) == 3
