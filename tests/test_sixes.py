"""A set's six learnt at the table (scanner.vision.sixes): pips, or the maker's emblem.

The end-to-end tests draw a reference frame (one die of each player's colour on its swatch
square) and a game frame of the same table, the set's sixes an emblem or six pips, and read the
game as `alea scan` does with the palette learnt from the reference."""

from __future__ import annotations

import itertools
import json
from dataclasses import replace

import numpy as np
import pytest

from scanner.errors import InputError
from scanner.synth.table import (
    DiceSet,
    before_the_game,
    mid_game_states,
    on_swatches,
    render_table,
)
from scanner.vision import palette as P
from scanner.vision import sixes
from scanner.vision.calibrate import calibrate
from scanner.vision.dice import Dice
from scanner.vision.layout import default_layout
from scanner.vision.scan import learn_colors, scan_image

LAY = default_layout()


@pytest.fixture(scope="module")
def detect():
    from scanner.vision.models import load_detector

    if sixes.emblem_reader() is None:
        pytest.fail(f"the emblem reader is not shipped ({sixes.EMBLEM_MODEL})")
    try:
        return load_detector(None, 0)
    except InputError as err:
        pytest.skip(err.message)


def table(seed: int, logo: int, up: int = 6):
    """A reference frame (each player's die on its square, `up` on top) and a game frame of
    one table, every six of its set the emblem `logo` (0: six pips)."""
    state = next(itertools.islice(mid_game_states(seed), 0, None))
    squares = on_swatches(LAY, up, state.players, yaw=0.3)
    ref = render_table(
        before_the_game(state), (seed, 1), look=seed, dice=DiceSet(loose=squares, logo=logo)
    )
    game = render_table(state, seed, dice=DiceSet(logo=logo))
    return ref, game


def learnt(ref, detect) -> P.Palette:
    cal = calibrate(ref.image, LAY)
    palette, taken = learn_colors(cal.rectify(ref.image), cal, detect)
    assert taken
    return palette


def sixes_read(game, palette, detect) -> tuple[int, int]:
    """How many of the game's sixes are read as sixes of their colour where they lie, and how
    many dice are read as sixes in all."""
    reading = scan_image(game.image, replace(calibrate(game.image, LAY), palette=palette), detect)
    got = 0
    for truth in (t for t in game.dice if t.value == 6):
        near = [
            d
            for d in reading.dice
            if np.hypot(d.center_mm[0] - truth.x, d.center_mm[1] - truth.y) < LAY.die_size / 2
        ]
        got += any(d.value == 6 and d.color == truth.player for d in near)
    return got, sum(d.value == 6 for d in reading.dice)


@pytest.mark.parametrize("seed,logo", [(8007, 3), (8009, 5)])
def test_a_sets_emblem_six_is_learnt_at_the_table_then_its_sixes_are_read(seed, logo, detect):
    ref, game = table(seed, logo)
    palette = learnt(ref, detect)
    assert palette.emblems == set(game.state.players)
    sixes_in_game = sum(t.value == 6 for t in game.dice)
    assert sixes_in_game >= 2
    with_emblems, read_six = sixes_read(game, palette, detect)
    assert with_emblems == read_six == sixes_in_game  # every six, and no other die made one
    # The same table read as if its sixes had pips: the reader alone loses them.
    assert sixes_read(game, replace(palette, emblems=frozenset()), detect)[0] < with_emblems


@pytest.mark.parametrize("seed", [8007, 8009])
def test_a_set_whose_sixes_have_pips_learns_no_emblem(seed, detect):
    ref, game = table(seed, 0)
    assert learnt(ref, detect).emblems == frozenset()


def test_a_one_set_down_for_the_six_learns_no_emblem(detect):
    """A player who sets the die down one up: its one is no emblem, and the set's ones stay
    ones (were it learnt, the emblem reader would look at that colour's ones again)."""
    ref, _ = table(8009, 5, up=1)
    assert learnt(ref, detect).emblems == frozenset()


def test_the_swatch_verdict_needs_the_emblem_readers_six_and_the_readers_doubt(monkeypatch):
    """Per swatch die: (the reader's value, its value confidence, the emblem reader's P(six))."""
    swatch = {
        "grey": (1, 0.9995, 0.9),  # an emblem the reader surely takes for a one
        "brown": (6, 0.5, 0.8),  # an emblem the reader takes for a six, unsure
        "blue": (6, 0.9995, 0.99),  # six pips: both read a six, the reader surely
        "green": (5, 0.25, 0.45),  # a glared five: the emblem reader's six below even odds
        "yellow": (3, 0.9995, 0.05),  # a three left up
    }
    n = len(swatch)
    p_six = np.array([p for _, _, p in swatch.values()])
    p_value = np.column_stack([np.tile((1 - p_six) / 5, (5, 1)).T, p_six])
    monkeypatch.setattr(sixes, "emblem_reader", lambda: object())
    monkeypatch.setattr(sixes, "_read", lambda reader, board, dice, idx: p_value[idx])
    dice = Dice(
        np.tile([0.0, 0.0, 10.0, 10.0], (n, 1)),
        np.array([v for v, _, _ in swatch.values()]),
        np.full(n, 0.9),
        list(swatch),
        {"value_confidence": np.array([c for _, c, _ in swatch.values()])},
    )
    board = np.zeros((20, 20, 3), np.uint8)
    assert sixes.emblem_colors(board, dice, list(swatch)) == {"grey", "brown"}
    assert sixes.emblem_colors(board, dice, [None] * n) == set()


def test_a_new_reference_keeps_the_emblems_of_colours_it_did_not_take():
    pal = P.BUILT_IN.updated(
        {"grey": [np.array([60.0, 0, 0])], "blue": [np.array([35.0, 12, -45])]}
    )
    pal = replace(pal, emblems=frozenset({"grey", "blue"}))
    again = pal.updated({"grey": [np.array([61.0, 0, 0])]})
    assert again.emblems == {"grey", "blue"}  # `learn_colors` then decides grey's anew
    assert P.BUILT_IN.updated({"grey": [np.array([60.0, 0, 0])]}).emblems == frozenset()


def test_palette_json_carries_the_emblem_sixes_and_refuses_bad_ones():
    pal = replace(
        P.BUILT_IN.updated({"grey": [np.array([60.0, 0, 0])]}), emblems=frozenset({"grey"})
    )
    data = json.loads(json.dumps(pal.to_json()))
    assert data["emblem_sixes"] == ["grey"]
    assert P.Palette.from_json(data).emblems == {"grey"}
    assert "emblem_sixes" not in P.BUILT_IN.updated({"grey": [np.array([60.0, 0, 0])]}).to_json()
    for bad in ("grey", ["pink"], [["grey"]]):
        with pytest.raises(InputError) as err:
            P.Palette.from_json({**data, "emblem_sixes": bad})
        assert err.value.path == "$.emblem_sixes"
