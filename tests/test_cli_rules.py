"""`alea check` and `alea round` as CONTRACT.md specifies them, run as subprocesses."""

import json

import pytest

from tests.cli import alea, assert_bad_input

FORUM = [
    {"player": "green", "value": 1},
    {"player": "blue", "value": 2},
    {"player": "grey", "value": 2},
    {"player": "blue", "value": 3},
    {"player": "green", "value": 3},
]
PLAYERS = ["grey", "brown", "blue", "green"]


def test_check_legal_from_file(tmp_path):
    f = tmp_path / "in.json"
    f.write_text(
        json.dumps(
            {
                "state": {"players": PLAYERS, "forum": FORUM},
                "move": {"player": "brown", "building": "forum", "dice": [2, 3]},
                "roll": [2, 3, 5],
            }
        )
    )
    rc, out, err = alea("check", str(f))
    assert rc == 0, err
    assert out["legal"] is True
    assert out["pushed_out"] == [{"player": "green", "value": 3}]
    assert out["state"]["latrina"] == {"green": 1}
    assert [d["player"] for d in out["state"]["forum"]] == [
        "green",
        "brown",
        "blue",
        "grey",
        "brown",
        "blue",
    ]
    assert set(out["state"]) == {
        "players",
        "templum",
        "senatus",
        "castrum",
        "forum",
        "latrina",
        "supply",
    }


def test_check_illegal_from_stdin():
    rc, out, _ = alea(
        "check",
        "-",
        stdin=json.dumps(
            {
                "state": {"players": PLAYERS, "senatus": {"grey": [3, 4, 5]}},
                "move": {"player": "blue", "building": "senatus", "dice": [3, 4, 5]},
            }
        ),
    )
    assert rc == 0
    assert out["legal"] is False and out["rule"] == "senatus.identical"
    assert "3-4-5" in out["reason"] and "Senatus" in out["reason"]
    assert set(out) == {"legal", "rule", "reason"}


def test_round_contract():
    rc, out, _ = alea(
        "round",
        "-",
        stdin=json.dumps(
            {
                "players": PLAYERS,
                "templum": {"blue": [5], "green": [3, 6]},
                "senatus": {"grey": [3, 4, 5]},
                "latrina": {"blue": 1},
                "supply": {"grey": 5},
            }
        ),
    )
    assert rc == 0
    assert out == {
        "templum": {"green": 2, "blue": 1},
        "senatus": ["grey"],
        "castrum": [],
        "forum": [],
        "repete": {"blue": 1, "grey": 5},
    }


def move_input(**move):
    return {
        "state": {"players": PLAYERS},
        "move": {"player": "grey", "building": "forum", "dice": [3], **move},
    }


@pytest.mark.parametrize(
    "stdin,code,path",
    [
        ("{not json", "json.malformed", "$"),
        ("", "json.malformed", "$"),
        ("[]", "schema.type", "$"),
        (json.dumps({"move": {}}), "schema.missing", "$"),
        (json.dumps(move_input(player="pink")), "value.color", "$.move.player"),
        (json.dumps(move_input(player="yellow")), "state.unknown-player", "$.move.player"),
        (json.dumps(move_input(building="circus")), "value.building", "$.move.building"),
        (json.dumps(move_input(dice=[7])), "value.die", "$.move.dice[0]"),
        (json.dumps(move_input(dice=[0])), "value.die", "$.move.dice[0]"),
        (json.dumps(move_input(dice=["3"])), "schema.type", "$.move.dice[0]"),
        (json.dumps(move_input(dice=3)), "schema.type", "$.move.dice"),
        (
            json.dumps({**move_input(), "roll": [1, 2, 3, 4, 5, 6, 1, 2, 3]}),
            "value.range",
            "$.roll",
        ),
        (
            json.dumps({**move_input(), "state": {"players": ["grey", "grey"]}}),
            "state.duplicate-player",
            "$.state.players[1]",
        ),
        (
            json.dumps(
                {**move_input(), "state": {"players": ["grey", "blue"], "latrina": {"grey": "x"}}}
            ),
            "schema.type",
            "$.state.latrina.grey",
        ),
    ],
)
def test_check_bad_input(stdin, code, path):
    assert_bad_input(*alea("check", "-", stdin=stdin), code=code, path=path)


def test_check_missing_file():
    assert_bad_input(*alea("check", "/nonexistent/x.json"), code="input.not-found")


@pytest.mark.parametrize(
    "state,code",
    [
        ({"players": ["grey", "blue"], "forum": [{"player": "grey", "value": 7}]}, "value.die"),
        ({"players": ["grey", "red"]}, "value.color"),
        ({"players": ["grey", "blue"], "castrum": {}}, "schema.type"),
    ],
)
def test_round_bad_input(state, code):
    assert_bad_input(*alea("round", "-", stdin=json.dumps(state)), code=code)


def test_round_reads_check_output_from_a_pipe():
    rc, out, _ = alea(
        "check",
        "-",
        stdin=json.dumps(
            {
                "state": {
                    "players": PLAYERS,
                    "senatus": {"grey": [3, 4, 5]},
                    "supply": {"blue": 8},
                },
                "move": {"player": "blue", "building": "senatus", "dice": [4, 5, 6]},
            }
        ),
    )
    assert rc == 0 and out["legal"]
    rc, scored, _ = alea("round", "-", stdin=json.dumps(out))
    assert rc == 0 and scored["senatus"] == ["blue", "grey"]
    assert scored["repete"] == {"blue": 5}
    assert_bad_input(
        *alea("round", "-", stdin='{"state": null}'), code="state.none", path="$.state"
    )
