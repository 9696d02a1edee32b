"""Detected dice → board state: zones, the tolerance band, Forum order, Senate runs, Castrum sets,
and the warnings for boards that cannot be right."""

from __future__ import annotations

import numpy as np
import pytest

from scanner.errors import InputError
from scanner.rules.components import PLAYER_COLORS
from scanner.rules.state import BoardState
from scanner.vision.board import read_board
from scanner.vision.dice import Dice
from scanner.vision.layout import default_layout
from scanner.vision.zones import SEEN_TWICE

LAY = default_layout()
FOUR = ["grey", "brown", "blue", "green"]
# Zone centres in the default layout (mm).
TEMPLUM, SENATUS, CASTRUM, LATRINA = (100, 102), (210, 102), (320, 102), (320, 200)


def die(x, y, color="blue", value=3, conf=0.9):
    """A 16 mm die centred at (x, y) mm, boxed in rectified-board pixels as the detector does."""
    s = LAY.px_per_mm
    return {
        "value": value,
        "color": color,
        "confidence": conf,
        "bbox": [
            x * s - 8 * s - 0.5,
            y * s - 8 * s - 0.5,
            x * s + 8 * s - 0.5,
            y * s + 8 * s - 0.5,
        ],
    }


def pedestal(i):
    return 72 + 30 * i, 175


def read(dice, players=FOUR):
    return read_board(Dice.from_json(dice), LAY, players)


def test_each_zone_and_outside():
    r = read(
        [
            die(*TEMPLUM, "grey", 5),
            die(*SENATUS, "brown", 2),
            die(*CASTRUM, "blue", 6),
            die(*pedestal(0), "green", 1),
            die(*LATRINA, "blue", 4),
            die(210, 280, "green", 3),  # below the Forum, off every zone
        ]
    )
    assert [d.building for d in r.dice] == [
        "templum",
        "senatus",
        "castrum",
        "forum",
        "latrina",
        None,
    ]
    st = r.state.to_json()
    assert st["templum"] == {"grey": [5]}
    assert st["senatus"] == {"brown": [2]}
    assert st["castrum"] == [{"player": "blue", "value": 6, "count": 1}]
    assert st["forum"] == [{"player": "green", "value": 1}]
    assert st["latrina"] == {"blue": 1}
    # Every die not in a building is in front of its player.
    assert st["supply"] == {"grey": 7, "brown": 7, "blue": 6, "green": 7}
    assert r.warnings == []
    assert r.dice[3].pedestal == 0 and r.dice.to_json()[3]["center_mm"] == [72.0, 175.0]


def test_tolerance_band():
    # The Templum's left edge is x = 60; the band is 8 mm.
    assert read([die(55, 100)]).dice[0].building == "templum"
    assert read([die(53, 100)]).dice[0].building == "templum"
    assert read([die(51, 100)]).dice[0].building is None
    assert read([die(40, 100)]).dice[0].building is None
    # Between Templum (x <= 140) and Senate (x >= 150) the bands overlap: the nearer edge wins.
    assert read([die(143, 100)]).dice[0].building == "templum"
    assert read([die(147, 100)]).dice[0].building == "senatus"


def test_tolerance_is_the_layouts():
    tight = LAY.from_json({**LAY.to_json(), "tolerance": 2})
    assert read_board(Dice.from_json([die(55, 100)]), tight, FOUR).dice[0].building is None


def test_forum_left_to_right_by_pedestal():
    dice = [
        die(*pedestal(2), "blue", 4),
        die(*pedestal(0), "green", 1),
        die(*pedestal(1), "grey", 3),
        die(*pedestal(3), "brown", 4),
    ]
    r = read(dice)
    assert r.state.to_json()["forum"] == [
        {"player": "green", "value": 1},
        {"player": "grey", "value": 3},
        {"player": "blue", "value": 4},
        {"player": "brown", "value": 4},
    ]
    assert [d.pedestal for d in r.dice] == [2, 0, 1, 3]
    assert r.warnings == []


def test_forum_not_sorted_is_reordered_with_a_warning():
    r = read([die(*pedestal(0), "blue", 5), die(*pedestal(1), "green", 2)])
    assert [d["value"] for d in r.state.to_json()["forum"]] == [2, 5]
    assert any("not sorted" in w for w in r.warnings)


def test_forum_gap_and_shared_pedestal_warn():
    r = read([die(*pedestal(0), "blue", 1), die(*pedestal(2), "green", 2)])
    assert any("empty" in w for w in r.warnings)
    r = read([die(64, 175, "blue", 1), die(81, 175, "green", 2)])
    assert any("pedestal 1" in w and "holds one" in w for w in r.warnings)


def test_one_die_boxed_twice_is_read_once():
    """A leaning camera's detector may box a tall die's top face and its whole body: two
    boxes whose centres lie closer than two dice ever can. The more confident one is kept."""
    twice = [die(*pedestal(1), "blue", 4, conf=0.99), die(pedestal(1)[0] + 6, 171, "blue", 3, 0.7)]
    r = read([die(*pedestal(0), "green", 2), *twice])
    assert [(d.player, d.value) for d in r.state.forum] == [("green", 2), ("blue", 4)]
    assert not r.warnings
    assert len(r.dice) == 2
    # Two dice side by side, a die's width apart, are two dice.
    r = read([die(*SENATUS, "brown", 2), die(SENATUS[0] + 16, SENATUS[1], "brown", 3)])
    assert r.state.senatus == {"brown": (2, 3)}


def test_forum_pedestals_beyond_the_players():
    # 2 players: 4 columns. A die on the 5th pedestal lies where no Forum piece is.
    r = read([die(*pedestal(4), "blue", 3)], players=["blue", "green"])
    assert r.dice[0].building is None
    assert r.state.forum == ()
    assert any("pedestal 5" in w for w in r.warnings)
    # With 3 players there are 5 columns and it counts.
    r = read([die(*pedestal(4), "blue", 3)], players=["blue", "green", "grey"])
    assert r.dice[0].building == "forum"


def test_senate_runs_per_player():
    r = read(
        [
            die(170, 80, "blue", 3),
            die(190, 80, "blue", 4),
            die(210, 80, "blue", 5),
            die(170, 110, "green", 5),
            die(190, 110, "green", 4),
        ]
    )
    assert r.state.to_json()["senatus"] == {"blue": [3, 4, 5], "green": [4, 5]}
    assert r.warnings == []


def test_senate_not_a_run_keeps_the_longest_run():
    r = read([die(170, 80, "blue", 2), die(190, 80, "blue", 3), die(210, 80, "blue", 5)])
    assert r.state.senatus == {"blue": (2, 3)}
    assert any("not one run" in w for w in r.warnings)


def test_two_runs_of_one_colour_warn():
    r = read([die(170, 75, "blue", 2), die(190, 75, "blue", 3), die(230, 125, "blue", 4)])
    assert r.state.senatus == {"blue": (2, 3, 4)}  # the values still make one run
    assert any("2 separate groups" in w for w in r.warnings)


def test_identical_runs_give_the_closest_valid_state():
    r = read(
        [
            die(170, 80, "blue", 3),
            die(190, 80, "blue", 4),
            die(170, 120, "green", 3),
            die(190, 120, "green", 4),
        ]
    )
    assert len(r.state.senatus) == 1  # one of the two identical runs is left out
    assert any("same run" in w for w in r.warnings)


def test_castrum_sets_per_player_and_value():
    r = read(
        [
            die(290, 70, "grey", 4),
            die(350, 135, "grey", 4),  # far from the other 4: still the same set
            die(300, 100, "grey", 4),
            die(320, 120, "grey", 5),
            die(340, 80, "blue", 4),
            die(340, 100, "blue", 4),
        ]
    )
    assert r.state.to_json()["castrum"] == [
        {"player": "grey", "value": 4, "count": 3},
        {"player": "blue", "value": 4, "count": 2},
        {"player": "grey", "value": 5, "count": 1},
    ]


def test_identical_castrum_sets_warn():
    r = read([die(300, 80, "grey", 4), die(340, 80, "blue", 4)])
    assert len(r.state.castrum) == 1
    assert any("two sets of 1×4" in w for w in r.warnings)


def test_a_castrum_that_is_not_valid_reads_the_same_whatever_the_detectors_order():
    # Two equal sets (not valid): which one is left out must not hang on the order the
    # detector listed the dice in, or two reads of one still board would disagree.
    dice = [die(300, 80, "grey", 4), die(340, 80, "blue", 4), die(320, 120, "green", 6)]
    first, reversed_ = read(dice).state.to_json(), read(dice[::-1]).state.to_json()
    assert first == reversed_
    assert len(first["castrum"]) == 2


def test_templum_per_player_and_absent_with_three():
    r = read([die(80, 80, "blue", 5), die(100, 120, "green", 3), die(120, 120, "green", 6)])
    assert r.state.to_json()["templum"] == {"blue": [5], "green": [3, 6]}
    r = read([die(80, 80, "blue", 5)], players=["blue", "green", "grey"])
    assert r.state.templum == {}
    assert any("no Templum with 3 players" in w for w in r.warnings)


def test_latrina_counts():
    r = read([die(300, 180, "blue", 1), die(330, 200, "blue", 6), die(300, 220, "grey", 2)])
    assert r.state.to_json()["latrina"] == {"grey": 1, "blue": 2}


def test_unknown_colour_in_a_building_warns_and_outside_does_not():
    r = read([die(*LATRINA, None, 2), die(210, 280, None, 5)])
    assert [d.building for d in r.dice] == ["latrina", None]
    assert r.state.latrina == {}
    assert len(r.warnings) == 1 and "unknown colour in the Latrina" in r.warnings[0]


def test_more_than_eight_dice_of_a_colour_warn():
    r = read([die(65 + 17 * (i % 4), 70 + 17 * (i // 4), "blue", 1 + i % 6) for i in range(9)])
    assert any("9 blue dice" in w for w in r.warnings)


def test_players_inferred_from_colours():
    r = read_board(Dice.from_json([die(*SENATUS, "green", 2), die(*LATRINA, "brown", 1)]), LAY)
    assert r.state.players == ("brown", "green")
    assert any("--players" in w for w in r.warnings)
    r = read_board(Dice.empty(), LAY)
    assert len(r.state.players) == 2 and any("only 0" in w for w in r.warnings)


def test_colour_not_playing_warns():
    r = read([die(*LATRINA, "yellow", 2)])
    assert r.state.latrina == {}
    assert any("yellow is not playing" in w for w in r.warnings)


def test_bad_detections_are_input_errors():
    with pytest.raises(InputError) as err:
        read([{**die(*LATRINA), "value": 7}])
    assert err.value.code == "value.die" and err.value.path == "$.dice[0].value"
    with pytest.raises(InputError):
        read([{**die(*LATRINA), "color": "red"}])
    with pytest.raises(InputError):
        read([], players=["blue"])
    with pytest.raises(InputError) as err:
        read([die(*LATRINA), {**die(*LATRINA), "confidence": 1.5}])
    assert err.value.code == "value.range" and err.value.path == "$.dice[1].confidence"
    with pytest.raises(InputError) as err:
        read([{k: v for k, v in die(*LATRINA).items() if k != "bbox"}])
    assert err.value.code == "schema.missing"


def test_any_detections_give_a_valid_state():
    """Random dice anywhere, of any colour and value: never a crash, always a valid state."""
    rng = np.random.default_rng(5)
    colors = [*PLAYER_COLORS, None]
    for _ in range(150):
        n = int(rng.integers(0, 30))
        dice = [
            die(
                rng.uniform(0, LAY.width),
                rng.uniform(0, LAY.height),
                colors[rng.integers(0, 6)],
                int(rng.integers(1, 7)),
            )
            for _ in range(n)
        ]
        players = None if rng.random() < 0.3 else list(PLAYER_COLORS[: rng.integers(2, 6)])
        r = read_board(Dice.from_json(dice), LAY, players)
        assert BoardState.from_json(r.state.to_json()) == r.state
        # Every die is kept but those boxed twice (closer than any two dice can lie).
        c = np.asarray(r.dice.data["center_mm"]).reshape(-1, 2)
        gaps = np.linalg.norm(c[:, None] - c[None], axis=2) + np.eye(len(c)) * 1e9
        reach = SEEN_TWICE * LAY.die_size
        assert len(c) == 0 or gaps.min() >= reach
        lost = n - len(r.dice)
        assert lost == 0 or lost <= sum(
            np.hypot(a["bbox"][0] - b["bbox"][0], a["bbox"][1] - b["bbox"][1])
            < reach * LAY.px_per_mm
            for k, a in enumerate(dice)
            for b in dice[k + 1 :]
        )


def test_detector_output_with_a_colour_the_game_does_not_know_is_unknown():
    odd = {**die(*LATRINA), "color": "purple"}
    assert Dice.from_json([odd], strict=False).color == [None]
    with pytest.raises(InputError):
        Dice.from_json([odd])


def test_what_must_differ_between_players_is_repaired_by_leaving_the_second_out():
    """Equal Templum counts, equal Senate runs, equal Castrum sets: each building's own rule
    keeps the first (seating order; in the Castrum, the contract's order) and says so."""
    r = read(
        [
            die(80, 80, "blue", 5),
            die(110, 120, "grey", 3),  # grey sits before blue: blue's die is left out
            die(180, 80, "brown", 2),
            die(200, 80, "brown", 3),
            die(180, 125, "green", 2),
            die(200, 125, "green", 3),  # the same run as brown's, who sits first
            die(300, 80, "blue", 6),
            die(340, 125, "green", 6),  # two sets of 1×6: blue's, first in colour order, is kept
        ]
    )
    assert r.state.templum == {"grey": (3,)}
    assert r.state.senatus == {"brown": (2, 3)}
    assert [(s.player, s.value) for s in r.state.castrum] == [("blue", 6)]
    assert r.seen.templum == {"grey": (3,), "blue": (5,)}  # the referee sees all of them
    assert sum("left out of the state" in w for w in r.warnings) == 3


def test_unsure_dice_are_those_of_unknown_colour_or_low_confidence_in_a_building():
    r = read(
        [
            die(*SENATUS, "brown", 2, conf=0.95),
            die(*CASTRUM, "blue", 6, conf=0.55),
            die(*TEMPLUM, None, 4),
            die(210, 280, "green", 3, conf=0.5),  # off every zone: nobody's placement
        ]
    )
    assert r.unsure() == [
        {"building": "castrum", "player": "blue", "value": 6},
        {"building": "templum", "player": None, "value": 4},
    ]
