"""Board-state JSON: round trip and every way it can be wrong, each with its path."""

import pytest

from scanner.errors import InputError
from scanner.rules.state import BoardState

GOOD = {
    "players": ["grey", "brown", "blue", "green"],
    "templum": {"blue": [5], "green": [6, 3]},
    "senatus": {"grey": [3, 4, 5]},
    "castrum": [
        {"player": "grey", "value": 4, "count": 3},
        {"player": "blue", "value": 4, "count": 2},
    ],
    "forum": [{"player": "green", "value": 1}, {"player": "blue", "value": 2}],
    "latrina": {"blue": 1},
    "supply": {"grey": 2, "brown": 0},
}


def test_round_trip_is_canonical():
    out = BoardState.from_json(GOOD).to_json()
    assert out["templum"] == {"blue": [5], "green": [3, 6]}
    assert out["supply"] == {"grey": 2}
    assert BoardState.from_json(out).to_json() == out
    assert out["castrum"] == GOOD["castrum"] and out["forum"] == GOOD["forum"]


def test_missing_buildings_mean_empty():
    s = BoardState.from_json({"players": ["grey", "blue"]})
    assert s.forum == () and s.castrum == () and dict(s.latrina) == {}
    assert s.forum_columns == 4 and not s.has_templum


def bad(change, code, path):
    data = {**GOOD, **change}
    with pytest.raises(InputError) as err:
        BoardState.from_json(data)
    assert err.value.code == code, err.value.message
    assert err.value.path == path
    return err.value


@pytest.mark.parametrize(
    "change,code,path",
    [
        ({"players": ["grey"]}, "state.player-count", "$.players"),
        ({"players": ["grey", "grey", "blue"]}, "state.duplicate-player", "$.players[1]"),
        ({"players": ["grey", "pink", "blue", "green"]}, "value.color", "$.players[1]"),
        ({"players": "grey"}, "schema.type", "$.players"),
        ({"templum": {"blue": [7]}}, "value.die", "$.templum.blue[0]"),
        ({"templum": {"blue": [0]}}, "value.die", "$.templum.blue[0]"),
        ({"templum": {"blue": ["5"]}}, "schema.type", "$.templum.blue[0]"),
        ({"templum": {"blue": [True]}}, "schema.type", "$.templum.blue[0]"),
        ({"templum": {"yellow": [5]}}, "state.unknown-player", "$.templum.yellow"),
        ({"templum": {"blue": [5], "green": [6]}}, "state.templum-counts", "$.templum.green"),
        ({"senatus": {"grey": [3, 5]}}, "state.senatus-run", "$.senatus.grey"),
        ({"senatus": {"grey": [5, 4]}}, "state.senatus-run", "$.senatus.grey"),
        ({"senatus": {"grey": [4], "blue": [4]}}, "state.senatus-identical", "$.senatus.blue"),
        ({"castrum": [{"player": "grey", "value": 4}]}, "schema.missing", "$.castrum[0]"),
        (
            {"castrum": [{"player": "grey", "value": 4, "count": 0}]},
            "value.range",
            "$.castrum[0].count",
        ),
        (
            {
                "castrum": [
                    {"player": "grey", "value": 4, "count": 2},
                    {"player": "blue", "value": 4, "count": 2},
                ]
            },
            "state.castrum-identical",
            "$.castrum[1]",
        ),
        (
            {
                "castrum": [
                    {"player": "grey", "value": 4, "count": 2},
                    {"player": "grey", "value": 4, "count": 1},
                ]
            },
            "state.castrum-two-sets",
            "$.castrum[1]",
        ),
        (
            {"forum": [{"player": "green", "value": 3}, {"player": "blue", "value": 2}]},
            "state.forum-order",
            "$.forum[1]",
        ),
        ({"forum": [{"player": "green", "value": 1}] * 7}, "state.forum-columns", "$.forum"),
        (
            {"forum": [{"player": "green", "value": 1, "colour": "x"}]},
            "schema.unknown-field",
            "$.forum[0].colour",
        ),
        ({"latrina": {"blue": -1}}, "value.range", "$.latrina.blue"),
        ({"latrina": {"blue": 1.5}}, "schema.type", "$.latrina.blue"),
        ({"supply": []}, "schema.type", "$.supply"),
        ({"forumm": []}, "schema.unknown-field", "$.forumm"),
    ],
)
def test_bad_state(change, code, path):
    err = bad(change, code, path)
    assert err.message


def test_templum_with_three_players_is_rejected():
    with pytest.raises(InputError) as err:
        BoardState.from_json({"players": ["grey", "blue", "green"], "templum": {"grey": [3]}})
    assert err.value.code == "state.templum-absent"


def test_state_must_be_an_object_and_have_players():
    for data, code in (([], "schema.type"), ({}, "schema.missing"), (None, "schema.type")):
        with pytest.raises(InputError) as err:
            BoardState.from_json(data)
        assert err.value.code == code and err.value.path == "$"


def test_placed_dice_are_taken_from_the_supply_in_one_place():
    """`BoardState.taken`: what every placement does to the supply, whoever judged it."""
    s = BoardState.from_json({"players": ["grey", "blue"], "supply": {"grey": 3, "blue": 1}})
    assert s.taken("grey", 2).supply == {"grey": 1, "blue": 1}
    assert s.taken("blue", 1).supply == {"grey": 3}  # none left: gone, never a 0
    assert (
        s.taken("blue", 1).to_json() == BoardState.from_json(s.taken("blue", 1).to_json()).to_json()
    )
    assert BoardState.from_json({"players": ["grey", "blue"]}).taken("grey", 1).supply == {}


def test_a_die_read_anew_is_laid_as_its_building_holds_dice():
    s = BoardState.from_json(
        {
            "players": ["grey", "blue"],
            "senatus": {"grey": [3, 4]},
            "castrum": [
                {"player": "blue", "value": 6, "count": 2},
                {"player": "grey", "value": 5, "count": 1},
            ],
            "forum": [{"player": "blue", "value": 2}, {"player": "grey", "value": 4}],
        }
    )
    assert s.read_anew("senatus", ("grey", 4), ("grey", 5)).senatus == {"grey": (3, 5)}
    moved = s.read_anew("senatus", ("grey", 3), ("blue", 1)).senatus
    assert moved == {"grey": (4,), "blue": (1,)}
    castrum = s.read_anew("castrum", ("blue", 6), ("grey", 5)).to_json()["castrum"]
    assert castrum == [
        {"player": "blue", "value": 6, "count": 1},
        {"player": "grey", "value": 5, "count": 2},  # into the player's set of that value
    ]
    forum = s.read_anew("forum", ("grey", 4), ("grey", 1), column=1).to_json()["forum"]
    assert forum == [{"player": "blue", "value": 2}, {"player": "grey", "value": 1}]  # its column
    for building, die, column in [("senatus", ("grey", 6), None), ("forum", ("grey", 4), 0)]:
        with pytest.raises(ValueError):
            s.read_anew(building, die, ("grey", 1), column)
