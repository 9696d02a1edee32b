"""Every placement rule id, legal and illegal, from the rulebook's own examples and edge cases."""

from pathlib import Path

import pytest

from scanner.rules.move import Move
from scanner.rules.placement import RULE_IDS, check
from scanner.rules.state import BoardState
from tests.helpers import FOUR, forum, state, verdict


def illegal(v, rule):
    assert not v.legal, v
    assert v.rule == rule, (v.rule, v.reason)
    assert v.reason and v.reason.endswith(".")


# ---------------------------------------------------------------- move.*
def test_empty_move():
    illegal(verdict(state(), "grey", "forum", []), "move.empty")


def test_dice_not_in_roll():
    illegal(verdict(state(), "grey", "castrum", [4, 4], roll=[4, 5, 6]), "move.not-in-roll")
    assert verdict(state(), "grey", "castrum", [4, 4], roll=[4, 4, 6]).legal


def test_roll_defaults_to_the_moves_dice():
    assert verdict(state(), "grey", "senatus", [3, 4, 5]).legal


# ---------------------------------------------------------------- Templum
def test_templum_antonius_and_brutus():
    """Rulebook: Antonius 5; Brutus 3+6=9 > 5; Antonius adds two dice to reach three, sum > 9."""
    s = state()
    v = verdict(s, "grey", "templum", [5])
    assert v.legal and v.state.templum == {"grey": (5,)}
    v = verdict(v.state, "brown", "templum", [3, 6])
    assert v.legal and v.state.templum["brown"] == (3, 6)
    illegal(verdict(v.state, "grey", "templum", [1, 2]), "templum.sum")  # 5+1+2 = 8 ≤ 9
    illegal(verdict(v.state, "grey", "templum", [6]), "templum.count")  # 2 dice, 3 needed
    after = verdict(v.state, "grey", "templum", [2, 3])  # 5+2+3 = 10 > 9
    assert after.legal and after.state.templum["grey"] == (2, 3, 5)


def test_templum_first_die_any_value_and_count_must_be_one():
    assert verdict(state(), "blue", "templum", [1]).legal
    illegal(verdict(state(), "blue", "templum", [5, 6]), "templum.count")


def test_templum_equal_sum_is_not_higher():
    s = state(templum={"grey": [5]})
    illegal(verdict(s, "brown", "templum", [2, 3]), "templum.sum")
    assert verdict(s, "brown", "templum", [2, 4]).legal


def test_templum_absent_with_three_players():
    illegal(verdict(state(FOUR[:3]), "grey", "templum", [6]), "templum.absent")


def test_templum_absent_reported_before_count():
    illegal(verdict(state(FOUR[:2]), "grey", "templum", [6, 6, 6]), "templum.absent")


# ---------------------------------------------------------------- Senatus
def test_senatus_claudius():
    """Rulebook: Claudius 3-4-5; nobody else may lay 3-4-5, 4-5-6 or 3-4-5-6 are fine; later
    Claudius may add a 2 unless 2-3-4-5 lies there."""
    s = verdict(state(), "grey", "senatus", [3, 4, 5]).state
    illegal(verdict(s, "blue", "senatus", [3, 4, 5]), "senatus.identical")
    assert verdict(s, "blue", "senatus", [4, 5, 6]).legal
    s2 = verdict(s, "blue", "senatus", [3, 4, 5, 6]).state
    v = verdict(s2, "grey", "senatus", [2])
    assert v.legal and v.state.senatus["grey"] == (2, 3, 4, 5)
    s3 = state(senatus={"grey": [3, 4, 5], "blue": [2, 3, 4, 5]})
    illegal(verdict(s3, "grey", "senatus", [2]), "senatus.identical")


def test_senatus_single_die_is_a_run():
    assert verdict(state(), "green", "senatus", [6]).legal


def test_senatus_not_a_run():
    illegal(verdict(state(), "grey", "senatus", [2, 4]), "senatus.not-a-run")
    illegal(verdict(state(), "grey", "senatus", [3, 3, 4]), "senatus.not-a-run")


def test_senatus_extension_up_and_down_at_once():
    v = verdict(state(senatus={"grey": [3, 4, 5]}), "grey", "senatus", [2, 6])
    assert v.legal and v.state.senatus["grey"] == (2, 3, 4, 5, 6)


def test_senatus_not_extending():
    s = state(senatus={"grey": [3, 4, 5]})
    illegal(verdict(s, "grey", "senatus", [1]), "senatus.not-extending")  # gap at 2
    illegal(verdict(s, "grey", "senatus", [5, 6]), "senatus.not-extending")  # 5 twice
    # CONTRACT reserves not-a-run for a new run: repeated dice on a run do not extend it.
    illegal(verdict(s, "grey", "senatus", [2, 2]), "senatus.not-extending")
    illegal(
        verdict(state(senatus={"grey": [3, 4]}), "grey", "senatus", [5, 5]),
        "senatus.not-extending",
    )
    assert verdict(s, "grey", "senatus", [1, 2]).legal  # 1-2-3-4-5


def test_senatus_second_separate_run_forbidden():
    illegal(
        verdict(state(senatus={"grey": [1, 2]}), "grey", "senatus", [5, 6]), "senatus.not-extending"
    )


# ---------------------------------------------------------------- Castrum
def test_castrum_darius_and_antonius():
    """Rulebook: Darius three 4s, Antonius two 4s; Darius later adds 4s or a new set of 5s;
    Antonius's single extra 4 would equal Darius's set, two more would not."""
    s = verdict(state(), "grey", "castrum", [4, 4, 4], roll=[1, 2, 3, 4, 4, 4, 4, 5]).state
    s = verdict(s, "brown", "castrum", [4, 4], roll=[1, 1, 2, 2, 3, 4, 4, 5]).state
    assert {(c.player, c.value, c.count) for c in s.castrum} == {("grey", 4, 3), ("brown", 4, 2)}
    grown = verdict(s, "grey", "castrum", [4, 4], roll=[4, 4, 5, 5])
    assert grown.legal and ("grey", 4, 5) in {
        (c.player, c.value, c.count) for c in grown.state.castrum
    }
    illegal(verdict(s, "grey", "castrum", [4, 4, 5, 5], roll=[4, 4, 5, 5]), "castrum.mixed")
    s = verdict(s, "grey", "castrum", [5, 5], roll=[4, 4, 5, 5]).state
    illegal(verdict(s, "brown", "castrum", [4]), "castrum.identical")  # 3×4 like Darius
    assert verdict(s, "brown", "castrum", [4, 4]).legal  # 4×4 beats Darius


def test_castrum_new_set_identical_to_another_players():
    illegal(
        verdict(
            state(castrum=[{"player": "grey", "value": 6, "count": 2}]), "blue", "castrum", [6, 6]
        ),
        "castrum.identical",
    )


def test_castrum_single_die_set_is_legal():
    assert verdict(state(), "blue", "castrum", [1]).legal


# ---------------------------------------------------------------- Forum
def test_forum_brutus_two_and_three_push_green_three():
    """Rulebook: Brutus (brown) places a 2 and a 3 and pushes the green 3 onto the Latrina."""
    s = state(forum=forum(("green", 1), ("blue", 2), ("grey", 2), ("blue", 3), ("green", 3)))
    v = verdict(s, "brown", "forum", [2, 3], roll=[2, 3, 6])
    assert v.legal
    assert [(d.player, d.value) for d in v.state.forum] == [
        ("green", 1),
        ("brown", 2),
        ("blue", 2),
        ("grey", 2),
        ("brown", 3),
        ("blue", 3),
    ]
    assert [(d.player, d.value) for d in v.pushed_out] == [("green", 3)]
    assert v.state.latrina == {"green": 1}


def test_forum_first_die_on_leftmost_column():
    v = verdict(state(), "grey", "forum", [6])
    assert [(d.player, d.value) for d in v.state.forum] == [("grey", 6)]


def test_forum_shape():
    illegal(verdict(state(), "grey", "forum", [2, 4]), "forum.shape")
    illegal(verdict(state(), "grey", "forum", [1, 1, 3]), "forum.shape")
    assert verdict(state(), "grey", "forum", [1, 4]).legal


def test_forum_no_column():
    full = forum(*[("blue", 1)] * 2, *[("grey", 2)] * 4)
    illegal(verdict(state(forum=full), "green", "forum", [3]), "forum.no-column")
    illegal(verdict(state(forum=full), "green", "forum", [2, 3]), "forum.no-column")
    v = verdict(state(forum=full), "green", "forum", [2])  # goes left of the 2s
    assert v.legal and [(d.player, d.value) for d in v.pushed_out] == [("grey", 2)]


def test_forum_pushes_the_placers_own_old_die():
    s = state(FOUR[:2], forum=forum(("grey", 1), ("grey", 2), ("brown", 3), ("grey", 4)))
    v = verdict(s, "grey", "forum", [1])
    assert v.legal and [(d.player, d.value) for d in v.pushed_out] == [("grey", 4)]


# ---------------------------------------------------------------- Latrina
def test_latrina_one_die():
    illegal(verdict(state(), "grey", "latrina", [1, 2], roll=[1, 2]), "latrina.one-die")


def test_latrina_not_forced_when_anything_fits():
    v = verdict(state(), "grey", "latrina", [6], roll=[6])
    illegal(v, "latrina.not-forced")
    assert "6" in v.reason


def test_latrina_forced():
    """A 6 with no room: Senate run 6 exists, Castrum 1×6 exists, the Forum is full of lower dice,
    and the Templum wants three dice."""
    s = state(
        templum={"grey": [1], "brown": [2, 3]},
        senatus={"brown": [6]},
        castrum=[{"player": "grey", "value": 6, "count": 1}],
        forum=forum(*[("grey", 1)] * 6),
        supply={"green": 1},
    )
    v = verdict(s, "green", "latrina", [6], roll=[6])
    assert v.legal and v.state.latrina == {"green": 1} and v.state.supply == {}


def test_first_failing_rule_in_table_order_wins():
    # Not in roll beats the building rule.
    illegal(verdict(state(), "grey", "forum", [2, 4], roll=[2]), "move.not-in-roll")


def test_every_rule_id_is_covered_by_this_file():
    source = Path(__file__).read_text()
    for rule in RULE_IDS:
        assert f'"{rule}"' in source, rule


@pytest.mark.parametrize("building", ["templum", "senatus", "castrum", "forum"])
def test_legal_move_takes_dice_from_supply(building):
    v = check(state(supply={"blue": 5}), Move("blue", building, (1,)))
    assert v.legal and v.state.supply == {"blue": 4}


def test_reasons_say_one_die_in_the_singular():
    """#21: 'a 1 do not extend', 'a 5 in the Templum make 1 dice'."""
    s = BoardState.from_json({"players": ["grey", "blue"], "senatus": {"grey": [3, 4]}})
    assert "a 1 does not extend it" in check(s, Move("grey", "senatus", (1,))).reason
    assert "a 1 and a 6 do not extend it" in check(s, Move("grey", "senatus", (1, 6))).reason
    four = BoardState.from_json(
        {"players": ["grey", "blue", "green", "yellow"], "templum": {"blue": [5]}}
    )
    reason = check(four, Move("grey", "templum", (6,))).reason
    assert "a 6 in the Templum makes 1 die;" in reason, reason


def test_every_rule_id_has_its_sentence_in_the_rulebook():
    """The help behind a flag's rule id (RULES.md, read by scanner.rules.rulebook)."""
    from scanner.rules import rulebook
    from scanner.rules.placement import RULE_IDS

    said = rulebook.sentences()
    for rule in (*RULE_IDS, "play.turn"):
        assert len(said.get(rule, "")) > 15, rule
    assert said["forum.shape"] == "neither one die nor two dice summing to 5"
