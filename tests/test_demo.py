"""The demo game: its script is followed by the referee exactly, and the rendered frames,
read through the live loop (calibration, stillness, board) with an oracle detector, give the
same rulings: every placement recognised, each illegal one flagged with its rule, round results
equal to `alea round` on the true states."""

import json
from pathlib import Path

import pytest

from scanner.commands.demo import replay
from scanner.referee import Referee
from scanner.rules.game import Game
from scanner.rules.round import score_round
from scanner.session import MemoryStore, Session
from scanner.synth.demo import DemoFeed, demo_script
from scanner.vision.calibrate import calibrate
from scanner.vision.camera import Frame
from scanner.vision.live import LiveBoard
from tests.test_table import oracle


def matches(ruling: dict, expect: dict) -> bool:
    if ruling["kind"] != expect["kind"]:
        return False
    if expect["kind"] == "cleared":
        return ruling["round"] == expect["round"]
    if "rule" in expect and ruling.get("rule") != expect["rule"]:
        return False
    if "move" in expect and expect["move"]["building"] != "latrina":
        return ruling["move"] == expect["move"]
    return ruling.get("legal") == expect.get("legal")


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_scripts_are_followed_by_the_referee(players):
    for seed in range(5):
        scenes = demo_script(seed, players, rounds=2)
        ref = Referee(Game(list(scenes[0].state.players), seed=0))
        flagged = 0
        for s in scenes:
            if s.hand:
                continue
            r = ref.observe(s.state).to_json()
            assert matches(r, s.expect), (seed, s.note, r)
            flagged += s.expect.get("legal") is False
        cleared = [s for s in scenes if s.expect and s.expect["kind"] == "cleared"]
        assert len(cleared) == 2


def test_script_round_results_are_alea_round_on_the_true_end_state():
    scenes = demo_script(3, 4, rounds=1)
    end = [s for s in scenes if s.hand and "cleared" in s.note][0]
    cleared = [s for s in scenes if s.expect and s.expect["kind"] == "cleared"][0]
    assert score_round(end.state).to_json() == cleared.expect["round"]


def test_rendered_demo_round_is_replayed_through_the_live_loop():
    feed = DemoFeed(seed=7, players=3, rounds=1, hold=8, hand_hold=2)
    assert any(s.expect and s.expect.get("legal") is False for s in feed.scenes)
    cal = calibrate(feed.frame(0), feed.layout)
    current = {"scene": 0}

    def detect(board_image):
        return oracle(feed.table(current["scene"]), cal)

    def frames():
        n = 0
        for i, s in enumerate(feed.scenes):
            for _ in range(feed.hand_hold if s.hand else feed.hold):
                current["scene"] = i
                yield Frame(n, feed.frame(i), f"frame-{n:05d}")
                n += 1

    players = list(feed.scenes[0].state.players)
    session = Session(MemoryStore(), players=players)
    live = LiveBoard(feed.layout, detect, players, None, cal)
    events = replay(frames(), live, session)
    expected = [s.expect for s in feed.scenes if s.expect and s.expect["kind"] != "none"]
    assert len(events) == len(expected)
    for got, want in zip(events, expected, strict=True):
        assert matches(got, want), (got, want)


MODEL = Path(__file__).resolve().parents[1] / "models" / "dice.onnx"


@pytest.mark.skipif(not MODEL.exists(), reason="the shipped detector models/dice.onnx is missing")
def test_demo_replayed_with_the_shipped_detector(tmp_path):
    """`alea demo` then `alea replay`, as a user would run them. Every illegal placement is
    flagged with its rule and the round is scored as `alea round` scores the true board. The
    detector misreads about 1 die in 600 (benchmarks/eval_table.py), and a misread placement
    is flagged, then kept when play goes on: so nearly every placement, not all, is read
    exactly, and the game never loses track (no ruling is "unclear")."""
    from tests.cli import alea

    rc, made, err = alea("demo", "--out", str(tmp_path), "--players", "3", "--seed", "11")
    assert rc == 0, err
    rc, out, err = alea("replay", str(tmp_path), "--calibration",
                        str(tmp_path / "calibration.json"))
    assert rc == 0, err
    script = json.loads((tmp_path / "script.json").read_text())
    expected = [s["expect"] for s in script["scenes"]
                if s["expect"] and s["expect"]["kind"] != "none"]
    events = out["events"]
    assert len(events) == len(expected) and all(e["kind"] != "unclear" for e in events)
    pairs = list(zip(events, expected, strict=True))
    flags = [(g, w) for g, w in pairs if w.get("legal") is False]
    assert flags and all(matches(g, w) for g, w in flags)
    rounds = [(g, w) for g, w in pairs if w["kind"] == "cleared"]
    assert rounds and all(matches(g, w) for g, w in rounds)
    legal = [(g, w) for g, w in pairs if w.get("legal") is True]
    assert sum(matches(g, w) for g, w in legal) >= 0.9 * len(legal)
