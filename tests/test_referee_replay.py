"""Random games fed to `alea serve`'s game API as settled boards, the way a camera feeds it
(`POST /api/game/observe`, `POST /api/game/accept`): with clean readings every placement and
every flag must be right; with disturbed ones (misreads, nudges, hands, flags accepted and then
taken back) no game may be lost and no board may be silently wrong."""

import sys
from pathlib import Path

import pytest

from scanner.synth.demo import demo_script
from scanner.synth.disturb import Disturbance, disturbed
from webui import create_app

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from replay_disturbed import CLEAN, judge  # noqa: E402

PIN = {"X-Alea-Pin": "2468"}


class ApiSession:
    """What `judge` reads of a session, read from the API instead."""

    def __init__(self, client):
        self.client = client

    def summary(self):
        return self.client.get("/api/game").get_json()["game"]

    @property
    def game(self):
        from scanner.rules.state import BoardState

        class Accepted:
            state = BoardState.from_json(self.summary()["state"], strict=False)

        return Accepted

    @property
    def round_results(self):
        rounds = [e["round"] for e in self.summary()["log"] if e.get("kind") == "cleared"]
        return rounds


def api_game(tmp_path, players):
    client = create_app({"DATA_DIR": str(tmp_path), "GAME_PIN": "2468"}).test_client()
    res = client.post("/api/game/new", json={"players": players}, headers=PIN)
    assert res.status_code == 200

    def feed(kind, state):
        if kind == "accept":
            if client.get("/api/game").get_json()["game"]["flag"] is None:
                return None
            res = client.post("/api/game/accept", json={}, headers=PIN)
        elif kind == "take-as-seen":
            res = client.post("/api/game/take-as-seen", json={}, headers=PIN)
        else:
            res = client.post("/api/game/observe", json={"state": state}, headers=PIN)
        assert res.status_code == 200, res.get_json()
        return res.get_json()["result"]

    return ApiSession(client), feed


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_clean_readings_every_placement_and_flag_right(tmp_path, players):
    for seed in (1, 2):
        scenes = demo_script(seed, players, rounds=1)
        session, feed = api_game(tmp_path / f"{seed}", list(scenes[0].state.players))
        tally = judge(scenes, list(disturbed(scenes, seed, CLEAN)), session, feed)
        assert tally["placements_right"] == tally["placements"] > 0, tally
        assert tally["flags_right"] == tally["flags"], tally
        assert tally["rounds_right"] == tally["rounds"] == 1, tally
        assert tally["unclear_shown"] == tally["flags_shown_wrongly"] == 0, tally


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_disturbed_readings_lose_no_game(tmp_path, players):
    how = Disturbance(misread=0.04, nudged=0.02, hand=0.1)  # twice the benchmark's
    for seed in (3, 4):
        scenes = demo_script(seed, players, rounds=1)
        session, feed = api_game(tmp_path / f"{seed}", list(scenes[0].state.players))
        steps = list(disturbed(scenes, 100 + seed, how))
        assert sum(s.kind == "disturbed" for s in steps) >= 3  # the disturbance is there
        tally = judge(scenes, steps, session, feed)
        assert tally["lost"] == 0 and tally["silently_wrong"] == 0, tally
        assert tally["rounds_right"] == 1, tally
