"""The referee over a whole evening: flags accepted then taken back, hand corrections that
hold, take-backs of every kind seen, missed settled boards, and one tap when it is lost
(issue #23's defects 2, 4, 9 and 10). Each goes through `Session`, as `alea serve` does."""

import pytest

from scanner.session import Session
from scanner.store import MemoryStore

PLAYERS = ["grey", "brown", "blue"]


def board(**buildings):
    return {"players": PLAYERS, **buildings}


def session():
    return Session(MemoryStore(), players=PLAYERS, seed=3)


def test_an_accepted_flag_taken_back_puts_the_turn_back_and_play_goes_on():
    """Defect 2: after Accept anyway and a take-back, every later reading was 'several
    placements at once' and the board froze."""
    s = session()
    s.observe(board(senatus={"grey": [2, 3]}))
    r = s.observe(board(senatus={"grey": [2, 3], "brown": [2, 3]}))
    assert r["rule"] == "senatus.identical"
    s.accept()
    assert s.game.current_player == "blue"
    r = s.observe(board(senatus={"grey": [2, 3]}))  # brown takes the dice back
    assert s.game.current_player == "brown" and s.game.state.senatus == {"grey": (2, 3)}
    assert any("taken back" in n for n in r["notes"]) and s.summary()["unclear"] is None
    r = s.observe(board(senatus={"grey": [2, 3]}, forum=[{"player": "brown", "value": 4}]))
    assert r["kind"] == "placement" and r["legal"] and s.game.current_player == "blue"
    r = s.observe(
        board(senatus={"grey": [2, 3], "blue": [5]}, forum=[{"player": "brown", "value": 4}])
    )
    assert r["legal"] and s.game.current_player == "grey"


def test_a_taken_back_latrina_placement_clears_its_flag():
    """Defect 9: a state `infer` calls 'no change' was never recorded, so the flag survived
    and the next placement of the same player was flagged play.turn."""
    s = session()
    r = s.observe(board(latrina={"grey": 2}))
    assert r["rule"] == "latrina.one-die" and s.summary()["flag"] is not None
    r = s.observe(board())
    assert r is not None and s.summary()["flag"] is None
    r = s.observe(board(forum=[{"player": "grey", "value": 3}]))
    assert r["legal"] and r["move"]["player"] == "grey" and s.game.current_player == "brown"


def test_a_taken_back_templum_placement_is_not_kept_when_the_next_player_places():
    players = ["grey", "brown", "blue", "green"]
    s = Session(MemoryStore(), players=players, seed=3)
    s.observe({"players": players, "templum": {"grey": [5]}})
    r = s.observe({"players": players, "templum": {"grey": [5], "brown": [2]}})
    assert r["rule"] == "templum.count"
    # Brown takes the die back and places in the Senatus in one go (no settled board between).
    r = s.observe({"players": players, "templum": {"grey": [5]}, "senatus": {"brown": [1]}})
    assert r["kind"] == "placement" and r["legal"] and r["move"]["player"] == "brown"
    assert s.game.state.templum == {"grey": (5,)}
    assert not any("kept" in n for n in r["notes"])


def test_a_hand_correction_holds_until_the_die_moves():
    """Defect 4: the next camera reading put the misread value back."""
    s = session()
    s.observe(board(castrum=[{"player": "grey", "value": 3, "count": 2}]))
    fixed = board(castrum=[{"player": "grey", "value": 5, "count": 2}])
    s.correct(fixed)
    # The camera keeps reading 3-3 where the players said 5-5.
    s.observe(
        board(
            castrum=[{"player": "grey", "value": 3, "count": 2}],
            senatus={"brown": [1, 2]},
        )
    )
    assert s.game.state.castrum[0].value == 5 and s.game.current_player == "blue"
    assert s.game.state.senatus == {"brown": (1, 2)}
    # Grey adds a third 5 later: the dice moved, what the camera reads is judged again.
    later = {"senatus": {"brown": [1, 2]}, "forum": [{"player": "blue", "value": 6}]}
    s.observe(board(castrum=[{"player": "grey", "value": 3, "count": 2}], **later))
    r = s.observe(board(castrum=[{"player": "grey", "value": 5, "count": 3}], **later))
    assert r["kind"] == "placement" and r["legal"] and r["move"]["dice"] == [5]
    assert s.referee.held.groups == {}


def test_a_missed_settled_board_is_read_as_placements_in_turn_order():
    """Defect 10: after one board the referee could not explain, every later change was
    'several placements at once' until the round ended."""
    s = session()
    r = s.observe(board(senatus={"grey": [2, 3], "brown": [5]}))  # grey's board was missed
    assert r["kind"] == "placement" and r["legal"] and r["move"]["player"] == "brown"
    assert "turn order" in r["notes"][0]
    assert s.game.current_player == "blue" and s.game.state.senatus == {
        "grey": (2, 3),
        "brown": (5,),
    }


def test_an_unclear_board_is_said_and_taken_as_seen_with_one_tap():
    s = session()
    s.observe(board(senatus={"grey": [2, 3]}))
    # Brown's dice appear while grey's vanish: no placement explains that.
    r = s.observe(
        board(senatus={"brown": [4]}, castrum=[{"player": "grey", "value": 6, "count": 1}])
    )
    assert r["kind"] == "unclear" and r["notes"]
    lost = s.summary()["unclear"]
    assert lost is not None and lost["notes"] == r["notes"]
    s.take_as_seen()
    assert s.summary()["unclear"] is None
    assert s.game.state.senatus == {"brown": (4,)}
    # The game resumes from the log as it was taken.
    again = Session(s.store)
    assert again.game.state == s.game.state and again.summary()["unclear"] is None


def test_a_die_the_camera_is_unsure_of_never_grounds_a_flag():
    """The page asks 'blue 4?' instead of flagging; once the die is read surely, it is judged."""
    s = session()
    s.observe(board(senatus={"grey": [3, 4]}))
    same = board(senatus={"grey": [3, 4], "brown": [3, 4]})  # senatus.identical, if true
    r = s.observe(same, [{"building": "senatus", "player": "brown", "value": 4}])
    assert r["kind"] == "unsure" and r["notes"][0].startswith("brown 4?")
    assert s.summary()["flag"] is None and s.summary()["unclear"]["notes"][0].startswith("brown 4?")
    assert s.game.current_player == "brown"
    r = s.observe(same)  # read again, surely this time
    assert r["rule"] == "senatus.identical" and s.summary()["unclear"] is None
    # A die of unknown colour in the building is doubt enough too.
    s2 = session()
    s2.observe(board(senatus={"grey": [3, 4]}))
    r = s2.observe(same, [{"building": "senatus", "player": None, "value": 4}])
    assert r["kind"] == "unsure"


def test_unsure_dice_are_checked_like_any_input():
    from scanner.errors import InputError

    s = session()
    with pytest.raises(InputError) as err:
        s.observe(board(), [{"building": "senatus", "player": "pink", "value": 4}])
    assert err.value.path == "$.unsure[0].player"


def test_the_round_end_board_settling_again_changes_nothing():
    """Between rounds the same board settles again and again (hands come and go): the last
    placement must stay placed, not be taken back and placed anew."""
    s = Session(MemoryStore(), players=["grey", "blue"], seed=3)
    two = ["grey", "blue"]
    s.observe({"players": two, "castrum": [{"player": "grey", "value": 2, "count": 8}]})
    end = {
        "players": two,
        "castrum": [
            {"player": "grey", "value": 2, "count": 8},
            {"player": "blue", "value": 5, "count": 8},
        ],
    }
    r = s.observe(end)
    assert r["round"] is not None and s.game.current_player is None
    events = len(s.store.events())
    r = s.observe(end)
    assert r["kind"] == "none" and "round is over" in r["notes"][0]
    assert len(s.store.events()) == events + 1 and s.game.current_player is None
    assert [e["event"] for e in s.game.events].count("take-back") == 0
