"""The current game file across kills: a new game is built aside and renamed into place, and a
current file that cannot be opened is kept aside while the server starts (#20's durability,
which #23's 'every mode resumes its game' rests on)."""

import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli import ROOT
from webui.live import GameHub


def current(tmp_path):
    return tmp_path / "games" / "current.alea"


@pytest.mark.parametrize(
    "make",
    [
        lambda p: p.write_bytes(b"not a database at all" * 10),
        lambda p: sqlite3.connect(p).execute("CREATE TABLE x (y)").connection.commit(),
        lambda p: p.write_bytes(b""),
    ],
    ids=["garbage", "foreign-sqlite", "empty"],
)
def test_an_unreadable_current_game_is_kept_aside_and_the_server_starts(tmp_path, make):
    path = current(tmp_path)
    path.parent.mkdir(parents=True)
    make(path)
    before = path.read_bytes()
    hub = GameHub(tmp_path)
    assert hub.session is None and "kept as unreadable-1.alea" in hub.warning
    assert (path.parent / "unreadable-1.alea").read_bytes() == before
    assert hub.snapshot()["warning"] == hub.warning
    hub.new_game(["grey", "blue"])
    assert hub.session.seating == ["grey", "blue"] and hub.warning is None


def test_a_new_game_keeps_the_old_one_and_leaves_nothing_half_made(tmp_path):
    hub = GameHub(tmp_path)
    hub.new_game(["grey", "blue"])
    hub.run(lambda s: s.place({"player": "grey", "building": "forum", "dice": [3]}))
    (current(tmp_path).parent / ".current.new").write_bytes(b"a build a kill interrupted")
    hub.new_game(["green", "yellow"])
    names = sorted(
        p.name
        for p in current(tmp_path).parent.iterdir()
        if "-wal" not in p.name and "-shm" not in p.name
    )  # the open game's SQLite journal
    assert names == ["current.alea", "game-1.alea"], names
    assert GameHub(tmp_path).session.seating == ["green", "yellow"]


KILLED = """
import sys
from webui.live import GameHub
hub = GameHub(sys.argv[1])
while True:
    hub.new_game(["grey", "blue", "green"])
"""


def test_a_kill_during_new_games_never_leaves_a_current_game_that_cannot_open(tmp_path):
    for n in range(8):
        had_game = current(tmp_path).exists()
        proc = subprocess.Popen([sys.executable, "-c", KILLED, str(tmp_path)], cwd=ROOT)
        time.sleep(1.0 + 0.07 * n)  # start-up, then a few new games at varied moments
        proc.kill()
        proc.wait(10)
        hub = GameHub(tmp_path)
        assert hub.warning is None, hub.warning
        if had_game:  # a game once made stays: the old one or the new one is current
            assert hub.session is not None
        assert hub.session is None or hub.session.seating == ["grey", "blue", "green"]
        assert not list((tmp_path / "games").glob(".current.new*"))
    assert len(list((tmp_path / "games").glob("game-*.alea"))) > 8


def _cut_between_the_renames(tmp_path, players):
    """new_game as a kill leaves it after its first rename: the old game numbered, the new
    one whole aside, no current game."""
    from scanner.session import Session
    from scanner.store import GameStore

    games = current(tmp_path).parent
    current(tmp_path).rename(games / "game-1.alea")
    store = GameStore(games / ".current.new")
    Session(store, players=players)
    store.close()


def test_a_new_game_cut_between_its_renames_becomes_the_current_game(tmp_path):
    hub = GameHub(tmp_path)
    hub.new_game(["grey", "blue"])
    hub.session.store.close()
    _cut_between_the_renames(tmp_path, ["green", "yellow"])
    again = GameHub(tmp_path)
    assert again.warning is None and again.session.seating == ["green", "yellow"]
    assert Path(tmp_path / "games" / "game-1.alea").exists()
    assert not list((tmp_path / "games").glob(".current.new*"))


def test_a_half_made_new_game_is_dropped_and_the_current_one_kept(tmp_path):
    hub = GameHub(tmp_path)
    hub.new_game(["grey", "blue"])
    hub.session.store.close()
    fresh = tmp_path / "games" / ".current.new"
    fresh.write_bytes(b"")  # the build had only just begun
    again = GameHub(tmp_path)
    assert again.session.seating == ["grey", "blue"] and not fresh.exists()
    current(tmp_path).unlink()  # and where there is no current game, it is not adopted
    fresh.write_bytes(b"SQLite format 3\x00 cut short")
    third = GameHub(tmp_path)
    assert third.session is None and third.warning is None and not fresh.exists()
