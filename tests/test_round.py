"""Round scoring: Fortuna tiles kept, Senate and Castrum order, Forum picks, Repete chips."""

from scanner.rules.round import score_round
from tests.helpers import FOUR, forum, state

FIVE = FOUR + ["yellow"]


def test_contract_example_round():
    s = state(
        templum={"blue": [5], "green": [3, 6]},
        senatus={"grey": [3, 4, 5], "blue": [1, 2, 3], "brown": [6]},
        castrum=[
            {"player": "grey", "value": 4, "count": 3},
            {"player": "blue", "value": 4, "count": 2},
            {"player": "brown", "value": 6, "count": 2},
            {"player": "grey", "value": 2, "count": 2},
            {"player": "green", "value": 1, "count": 1},
        ],
        forum=forum(
            ("grey", 1), ("brown", 2), ("blue", 2), ("brown", 3), ("green", 5), ("blue", 6)
        ),
        latrina={"green": 2},
        supply={"brown": 1},
    )
    r = score_round(s).to_json()
    assert r["templum"] == {"green": 2, "blue": 1}
    assert r["senatus"] == ["grey", "blue"]  # 3-4-5 beats 1-2-3; brown's lone 6 gets nothing
    assert r["castrum"] == ["grey", "brown", "blue", "grey"]  # 3×4, 2×6, 2×4, 2×2; 1×1 loses
    assert r["forum"] == ["grey", "brown", "blue", "brown", "green", "blue"]
    assert r["repete"] == {"green": 3, "brown": 2}


def test_lone_templum_die_keeps_two():
    assert score_round(state(templum={"grey": [1]})).templum == {"grey": 2}


def test_senate_takers_by_player_count():
    runs = {"grey": [1], "brown": [1, 2], "blue": [4, 5, 6]}
    two = score_round(state(FOUR[:2], senatus={"grey": [1], "brown": [1, 2]}))
    assert two.senatus == ("brown",) and two.repete == {"grey": 1}
    assert score_round(state(senatus=runs)).senatus == ("blue", "brown")
    assert score_round(state(FIVE, senatus=runs)).senatus == ("blue", "brown", "grey")


def test_senate_tie_on_length_goes_to_higher_top():
    r = score_round(state(senatus={"grey": [2, 3, 4, 5], "blue": [1, 2, 3, 4], "green": [6]}))
    assert r.senatus == ("grey", "blue") and r.repete == {"green": 1}


def test_castrum_picks_at_most_players():
    sets = [
        {"player": p, "value": v, "count": 1} for p, v in (("grey", 1), ("grey", 2), ("brown", 3))
    ]
    r = score_round(state(FOUR[:2], castrum=sets))
    assert r.castrum == ("brown", "grey") and r.repete == {"grey": 1}


def test_castrum_tie_on_count_goes_to_higher_value():
    r = score_round(
        state(
            castrum=[
                {"player": "blue", "value": 3, "count": 3},
                {"player": "grey", "value": 5, "count": 3},
            ]
        )
    )
    assert r.castrum == ("grey", "blue")


def test_templum_and_forum_dice_never_earn_chips():
    r = score_round(state(templum={"grey": [1]}, forum=forum(("blue", 2))))
    assert r.repete == {}


def test_empty_board():
    r = score_round(state(supply={"grey": 8}))
    assert r.to_json() == {
        "templum": {},
        "senatus": [],
        "castrum": [],
        "forum": [],
        "repete": {"grey": 8},
    }
