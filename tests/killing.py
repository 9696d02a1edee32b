"""Killing `alea serve` while it makes each kind of change, for `tests/test_kill.py` and
`benchmarks/kill_serve.py` (#20).

A client plays a game over HTTP, choosing each change from the game as the server shows it (a new
game, moves by hand, a board seen by the camera, a correction, a flagged move and its acceptance,
undo, redo, the tiles laid out, the picks, a Repete chip, the next round). Before a chosen request
it arms a timer that SIGKILLs the server a few milliseconds later, while that request is in flight.
The server is started again on the same folder, and what it shows must be either what it last
acknowledged or that plus the request in flight (computed by replaying the acknowledged requests
on a server of reference in this process): nothing acknowledged is lost, nothing half-done
appears, and every restart opens.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import signal
import socket
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from scanner.rules import components
from scanner.rules.placement import legal_moves
from scanner.rules.state import BoardState
from tests.cli import serve

PIN = "246802"
KINDS = (
    "new",
    "place",
    "observe",
    "correct",
    "flag-accept",
    "undo",
    "redo",
    "lay-out",
    "pick",
    "repete",
    "next-round",
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def post(url: str, action: str, body: dict, timeout: float = 10) -> dict:
    req = urllib.request.Request(
        f"{url}/api/game/{action}",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "X-Alea-Pin": PIN},
    )
    with urllib.request.urlopen(req, timeout=timeout) as res:
        return json.loads(res.read())


def game_of(url: str) -> dict | None:
    with urllib.request.urlopen(f"{url}/api/game", timeout=10) as res:
        return json.loads(res.read())["game"]


def choose(kind: str, game: dict | None, rng: random.Random) -> tuple[str, dict] | None:
    """A request of `kind` that makes sense in `game` (None when the game offers none now)."""
    if kind == "new" or game is None:
        players = rng.sample(components.PLAYER_COLORS, rng.randint(2, 5))
        return "new", {"players": players, "seed": rng.randrange(1000)}
    if kind in ("undo", "redo", "next-round"):
        return kind, {}
    state = BoardState.from_json(game["state"], strict=False)
    player = game["current_player"]
    if kind == "repete":
        rich = [p for p, n in game["chips"].items() if n > 0]
        return ("repete", {"player": rng.choice(rich)}) if rich else None
    if kind == "pick":
        due = game["next_pick"]
        if due is None:
            return None
        tile = rng.choice(due["choices"]) if due["choices"] else None
        return "pick", {"player": due["player"], "kind": due["kind"], "tile": tile}
    if kind == "lay-out":
        n = len(game["players"])
        return "lay-out", {
            "provinces": rng.sample(components.provinces(), n),
            "patricians": rng.sample(components.patricians(), n + 2),
        }
    if player is None:
        return None
    roll = tuple(sorted(rng.randint(1, 6) for _ in range(state.supply.get(player, 0))))
    moves = list(legal_moves(state, player, roll))
    if not moves:
        return None
    move = rng.choice(moves)
    if kind == "place":
        return "place", {"move": move.to_json(), "roll": list(roll)}
    if kind == "observe":
        from scanner.rules.placement import check

        after = check(state, move, roll).state
        return None if after is None else ("observe", {"state": after.to_json()})
    if kind == "correct":
        return "correct", {"state": state.to_json(), "why": "moved by a sleeve"}
    # A move that breaks a rule, flagged, then kept: two changes, the kill lands in the second.
    return "place", {"move": {"player": player, "building": "forum", "dice": [1, 1]}}


def onward(game: dict | None) -> str:
    """The change that moves the game on: the picks due, the next round, or a move."""
    if game is None or game["over"]:
        return "new"
    if game["next_pick"] is not None:
        return "pick"
    if game["current_player"] is None:
        return "next-round"
    if game["laid_out"] is None:
        return "lay-out"
    return "place"


@dataclass
class KillRun:
    """What a run of kills found."""

    kills: dict[str, int] = field(default_factory=dict)  # by the change in flight
    answered_first: int = 0  # kills that came after the answer: the change was acknowledged
    acknowledged: int = 0
    lost: list[str] = field(default_factory=list)
    failed_restarts: list[str] = field(default_factory=list)
    in_flight_kept: int = 0
    restart_s: list[float] = field(default_factory=list)


def reference_game(requests: list[tuple[str, dict]]) -> dict | None:
    """The game after `requests`, on a server of reference in this process."""
    from webui import create_app

    with tempfile.TemporaryDirectory() as data:
        app = create_app({"DATA_DIR": data, "GAME_PIN": PIN})
        client = app.test_client()
        for action, body in requests:
            client.post(f"/api/game/{action}", json=body, headers={"X-Alea-Pin": PIN})
        game = client.get("/api/game").get_json()["game"]
        hub = app.extensions["alea.hub"]
        if hub.session is not None:
            hub.session.store.close()
        return game


def comparable(game: dict | None) -> str:
    """The game as players see it. The log's event ids are left out: an undo with nothing to
    undo, written just before a kill, shows nothing and is rightly kept, yet it takes an id."""
    if game is not None:
        game = {**game, "log": [{k: v for k, v in e.items() if k != "id"} for e in game["log"]]}
    return json.dumps(game, sort_keys=True)


def run(data: Path, kills: int, seed: int = 0, steps: tuple[int, int] = (2, 8)) -> KillRun:
    """`kills` kills of `alea serve --no-camera` on `data`, each while a chosen kind of change
    is in flight after a few acknowledged ones."""
    rng = random.Random(seed)
    out = KillRun()
    port = free_port()
    data.mkdir(parents=True, exist_ok=True)
    (data / "pin.json").write_text(json.dumps({"pin": PIN}))
    log = (data.parent / f"{data.name}-serve.log").open("a")  # why a start failed, if one does
    proc, url = serve(data, port, "--no-camera", stderr=log)
    done: list[tuple[str, dict]] = []  # every request the server acknowledged
    durations: dict[str, list[float]] = {}  # seconds per acknowledged change, by kind
    last = game_of(url)
    for k in range(kills):
        target = KINDS[k % len(KINDS)]
        # A few acknowledged changes first, of any kind, so kills meet games at every stage.
        for _ in range(rng.randint(*steps)):
            kind = onward(last) if rng.random() < 0.8 else rng.choice(KINDS)
            request = choose(kind, last, rng)
            if request is None:
                continue
            start = time.perf_counter()
            try:
                answer = post(url, *request)
            except urllib.error.HTTPError:
                continue  # refused (400): not a change
            durations.setdefault(request[0], []).append(time.perf_counter() - start)
            done.append(request)
            out.acknowledged += 1
            last = answer["game"]
        request = choose(target, last, rng)
        if request is None:
            request = choose("undo", last, rng)
        if target == "flag-accept":
            try:
                last = post(url, *request)["game"]
                done.append(request)
                out.acknowledged += 1
            except urllib.error.HTTPError:
                pass
            request = ("accept", {})
        # Killed part-way through the time this kind of change takes, as far as seen so far.
        took = sorted(durations.get(request[0], [0.01]))[len(durations.get(request[0], [0])) // 2]
        timer = threading.Timer(rng.uniform(0.0, took), os.kill, (proc.pid, signal.SIGKILL))
        timer.start()
        answer = None
        try:
            answer = post(url, *request)
        except urllib.error.HTTPError:
            pass  # refused before the kill: nothing changed
        except (OSError, http.client.HTTPException):
            pass  # killed while in flight: written or not, never acknowledged
        acked = answer is not None
        timer.join()
        proc.wait(10)
        out.kills[request[0]] = out.kills.get(request[0], 0) + 1
        out.answered_first += acked
        if acked and answer is not None:
            done.append(request)
            out.acknowledged += 1
            last = answer["game"]
        start = time.perf_counter()
        try:
            proc, url = serve(data, port, "--no-camera", stderr=log)
        except RuntimeError:
            log.flush()
            tail = (data.parent / f"{data.name}-serve.log").read_text()[-500:]
            out.failed_restarts.append(f"after a kill in {target}: {tail}")
            return out
        out.restart_s.append(time.perf_counter() - start)
        with urllib.request.urlopen(f"{url}/api/game", timeout=10) as res:
            snap = json.loads(res.read())
        if snap["warning"]:
            out.failed_restarts.append(f"after a kill in {target}: {snap['warning']}")
        seen = snap["game"]
        if comparable(seen) == comparable(last):
            pass
        elif not acked and comparable(seen) == comparable(reference_game([*done, request])):
            done.append(request)  # written before the kill, answered never: kept whole
            out.in_flight_kept += 1
        else:
            out.lost.append(f"kill {k} in {target} {request}: the game differs from the last ack")
        last = seen
    proc.terminate()
    proc.wait(10)
    log.close()
    return out
