"""Game sessions: the durable SQLite record, undo/redo, corrections, export/import, and a
process killed between any two events resumes the same game."""

import json
import os
import signal
import subprocess
import sys

import pytest

from scanner.errors import InputError
from scanner.session import Session
from scanner.store import GameStore, MemoryStore, import_game
from tests.cli import ROOT, alea, assert_bad_input

PLAYERS = ["grey", "brown", "blue"]


def board(**buildings):
    return {"players": PLAYERS, **buildings}


def test_observed_placements_turn_order_and_a_flag():
    s = Session(MemoryStore(), players=PLAYERS, seed=3)
    assert s.observe(board()) is None  # nothing changed: nothing recorded
    r = s.observe(board(senatus={"grey": [2, 3]}))
    assert r["legal"] and s.game.current_player == "brown"
    r = s.observe(board(senatus={"grey": [2, 3], "brown": [2, 3]}))
    assert r["legal"] is False and r["rule"] == "senatus.identical"
    assert s.game.current_player == "brown" and "brown" not in s.game.state.senatus


def test_accept_keeps_a_flagged_placement_and_passes_the_turn():
    s = Session(MemoryStore(), players=PLAYERS, seed=3)
    s.observe(board(senatus={"grey": [2, 3]}))
    flagged = board(senatus={"grey": [2, 3], "brown": [2, 3]})
    s.observe(flagged)
    r = s.accept(flagged)
    assert r["kind"] == "accepted" and s.game.state.senatus["brown"] == (2, 3)
    assert s.game.current_player == "blue" and s.game.state.supply["brown"] == 6


def test_a_placement_entered_out_of_turn_is_flagged_play_turn_and_changes_nothing():
    s = Session(MemoryStore(), players=PLAYERS, seed=3)
    r = s.place({"player": "blue", "building": "forum", "dice": [4]})
    assert r["legal"] is False and r["rule"] == "play.turn"
    assert r["params"] == {"player": "blue", "current": "grey"}
    assert r["reason"] == "It is grey's turn, not blue's." and r["move"]["player"] == "blue"
    assert s.game.current_player == "grey" and not s.game.state.forum


def test_undo_and_redo():
    s = Session(MemoryStore(), players=PLAYERS, seed=3)
    s.place({"player": "grey", "building": "forum", "dice": [4]})
    s.place({"player": "brown", "building": "forum", "dice": [2, 3]})
    assert [d.value for d in s.game.state.forum] == [2, 3, 4]
    s.undo()
    assert [d.value for d in s.game.state.forum] == [4] and s.game.current_player == "brown"
    s.undo()
    assert s.game.state.forum == () and s.game.current_player == "grey"
    s.undo()  # nothing more to undo: the new game stays
    s.redo()
    assert [d.value for d in s.game.state.forum] == [4]
    s.place({"player": "brown", "building": "castrum", "dice": [6]})
    s.redo()  # a new action clears what could be redone
    assert [d.value for d in s.game.state.forum] == [4] and len(s.game.state.castrum) == 1


def test_correction_of_a_misread_die():
    s = Session(MemoryStore(), players=PLAYERS, seed=3)
    s.observe(board(forum=[{"player": "grey", "value": 5}]))
    s.correct(board(forum=[{"player": "grey", "value": 6}]), "the 5 was a 6")
    assert s.game.state.forum[0].value == 6 and s.game.current_player == "brown"


def test_picks_make_the_final_inventory():
    s = Session(MemoryStore(), players=PLAYERS, seed=3)
    with pytest.raises(InputError) as err:
        s.pick("grey", "province", {"color": "red", "value": 3})
    assert err.value.code == "session.no-round"
    s.place({"player": "grey", "building": "castrum", "dice": [2] * 8})
    s.place({"player": "brown", "building": "forum", "dice": [1]})
    s.place({"player": "blue", "building": "forum", "dice": [1]})
    s.next_round()
    assert s.summary()["last_round"]["result"]["castrum"] == ["grey"]
    assert s.summary()["last_round"]["result"]["forum"] == ["blue", "brown"]
    s.pick("grey", "province", {"color": "red", "value": 3})
    # The pick order is the rulebook's: grey has no Forum die, so takes no patrician.
    with pytest.raises(InputError) as err:
        s.pick("grey", "patrician", {"color": "red", "sex": "f", "value": 2})
    assert err.value.code == "session.pick-order"
    s.pick("blue", "patrician", {"color": "red", "sex": "f", "value": 2})
    s.pick("brown", "patrician", None)  # nothing left to take
    inv = s.inventory()
    assert inv["players"][0]["provinces"] == [{"color": "red", "value": 3}]
    assert inv["players"][2]["patricians"] == [{"color": "red", "sex": "f", "value": 2}]
    assert inv["players"][1]["patricians"] == [] and inv["players"][1]["repete"] == 7
    assert [p["round"] for p in s.tiles.picks] == [1, 1, 1]
    with pytest.raises(InputError):
        s.pick("yellow", "province", {"color": "red", "value": 1})


def test_bad_manual_move_is_refused_and_not_recorded():
    store = MemoryStore()
    s = Session(store, players=PLAYERS, seed=3)
    with pytest.raises(InputError) as err:
        s.place({"player": "grey", "building": "forum", "dice": [9]})
    assert err.value.path == "$.move.dice[0]" and len(store.events()) == 1


def test_sqlite_record_resumes_and_exports(tmp_path):
    path = tmp_path / "g.alea"
    s = Session(GameStore(path), players=PLAYERS, seed=3)
    s.place({"player": "grey", "building": "senatus", "dice": [1, 2, 3]})
    s.place({"player": "brown", "building": "castrum", "dice": [5, 5]})
    again = Session(GameStore(path))
    assert again.game.state == s.game.state and again.game.current_player == "blue"
    exported = GameStore(path).export()
    copy = import_game(json.loads(json.dumps(exported)), tmp_path / "copy.alea")
    assert Session(copy).game.state == s.game.state
    with pytest.raises(InputError) as err:
        import_game(exported, path)
    assert err.value.code == "import.exists"


def test_foreign_and_corrupt_files_are_refused_and_left_untouched(tmp_path):
    import sqlite3

    foreign = tmp_path / "other.db"
    con = sqlite3.connect(foreign)
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()
    before = foreign.read_bytes()
    with pytest.raises(InputError) as err:
        GameStore(foreign)
    assert err.value.code == "store.foreign" and foreign.read_bytes() == before
    junk = tmp_path / "junk.alea"
    junk.write_bytes(b"this is not sqlite at all" * 100)
    with pytest.raises(InputError) as err:
        GameStore(junk)
    assert err.value.code == "store.corrupt"
    assert junk.read_bytes() == b"this is not sqlite at all" * 100


MOVES = [
    {"player": "grey", "building": "senatus", "dice": [1, 2, 3]},
    {"player": "brown", "building": "forum", "dice": [4]},
    {"player": "blue", "building": "castrum", "dice": [6, 6]},
    {"player": "grey", "building": "forum", "dice": [2, 3]},
    {"player": "brown", "building": "senatus", "dice": [4, 5]},
    {"player": "blue", "building": "forum", "dice": [1]},
]

WRITER = """
import os, signal, sys
from scanner.session import Session
from scanner.store import GameStore
import json
moves = json.loads(sys.argv[2]); kill_at = int(sys.argv[3])
s = Session(GameStore(sys.argv[1]), players=["grey", "brown", "blue"], seed=3)
for i, m in enumerate(moves):
    if i == kill_at:
        os.kill(os.getpid(), signal.SIGKILL)
    s.place(m)
"""


@pytest.mark.parametrize("kill_at", range(len(MOVES) + 1))
def test_killed_between_events_resumes_the_same_game(tmp_path, kill_at):
    path = tmp_path / "g.alea"
    proc = subprocess.run(
        [sys.executable, "-c", WRITER, str(path), json.dumps(MOVES), str(kill_at)],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if kill_at < len(MOVES):
        assert proc.returncode == -signal.SIGKILL
    else:
        assert proc.returncode == 0, proc.stderr
    reopened = Session(GameStore(path))
    expected = Session(MemoryStore(), players=PLAYERS, seed=3)
    for m in MOVES[:kill_at]:
        expected.place(m)
    assert reopened.game.state == expected.game.state
    assert reopened.game.current_player == expected.game.current_player
    assert os.path.getsize(path) > 0


def test_game_cli_export_import_list(tmp_path):
    data = tmp_path / "data"
    (data / "games").mkdir(parents=True)
    s = Session(GameStore(data / "games" / "current.alea"), players=PLAYERS, seed=3)
    s.place(MOVES[0])
    rc, exported, err = alea("game", "export", "--data", str(data))
    assert rc == 0, err
    assert exported["format"] == "alea-game" and len(exported["events"]) == 2
    rc, out, err = alea(
        "game", "import", "-", "--data", str(data), "--game", "copy", stdin=json.dumps(exported)
    )
    assert rc == 0, err
    assert out["state"]["senatus"] == {"grey": [1, 2, 3]}
    rc, out, _ = alea("game", "list", "--data", str(data))
    assert out == {"games": ["copy", "current"]}
    assert_bad_input(
        *alea(
            "game", "import", "-", "--data", str(data), "--game", "copy", stdin=json.dumps(exported)
        ),
        code="import.exists",
    )
    assert_bad_input(
        *alea(
            "game",
            "import",
            "-",
            "--data",
            str(data),
            "--game",
            "../evil",
            stdin=json.dumps(exported),
        ),
        code="value.name",
    )
    assert_bad_input(
        *alea("game", "import", "-", "--data", str(data), "--game", "x", stdin='{"format": "zip"}'),
        code="import.format",
    )


def test_a_hand_entered_flag_can_be_accepted_as_laid():
    s = Session(MemoryStore(), players=PLAYERS, seed=3)
    r = s.place({"player": "grey", "building": "forum", "dice": [2, 4]})
    assert r["rule"] == "forum.shape" and s.summary()["flag"]["rule"] == "forum.shape"
    s.accept()
    assert [(d.player, d.value) for d in s.game.state.forum] == [("grey", 2), ("grey", 4)]
    assert s.game.current_player == "brown" and s.summary()["flag"] is None
    with pytest.raises(InputError) as err:
        s.accept()
    assert err.value.code == "session.no-flag"


def test_a_camera_flag_is_accepted_with_the_board_as_seen():
    s = Session(MemoryStore(), players=PLAYERS, seed=3)
    s.observe(board(senatus={"grey": [1, 3]}))
    assert s.summary()["flag"]["rule"] == "senatus.not-a-run"
    s.accept()
    assert s.game.state.senatus == {"grey": (1, 3)} and s.game.current_player == "brown"


def test_a_live_session_equals_its_log_replayed():
    """Events are applied as they come, not by replaying the log each time: the game as it
    stands must be the replay of its record, through flags, take-backs, undo and rounds."""
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from replay_disturbed import session_feed

    from scanner.synth.demo import demo_script
    from scanner.synth.disturb import disturbed

    scenes = demo_script(4, 3, rounds=1)
    s, feed = session_feed(list(scenes[0].state.players))
    for i, step in enumerate(disturbed(scenes, 9)):
        feed(step.kind, step.state)
        if i % 7 == 3:
            s.undo()
            s.redo()
    assert s.round_results
    again = Session(s.store)
    assert again.summary() == s.summary() and again.record() == s.record()
