"""The game in progress, shared by every tablet: `/api/game/*` and its event stream.

Reading is open; anything that changes the game needs the game PIN (printed by `alea serve`),
sent as the `X-Alea-Pin` header. State changes are pushed with Server-Sent Events; each stream
holds one server thread, which is why `alea serve` runs waitress with many threads.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from flask import Blueprint, current_app, jsonify, request

from scanner.errors import InputError
from scanner.inputs import parse_json
from scanner.session import Session
from scanner.store import GameStore, remove_store
from webui.pin import pin_required
from webui.streams import gated

live = Blueprint("live", __name__, url_prefix="/api/game")
GAME_NAME = "current"
KEEP_ALIVE_S = 5
# What opening a game file that is not a whole game raises (damaged, foreign, half made).
UNREADABLE = (InputError, sqlite3.Error, ValueError, TypeError, KeyError)


class GameHub:
    """One Session behind a lock, and a version number SSE clients wait on."""

    def __init__(self, data_dir: str | Path) -> None:
        self.path = Path(data_dir) / "games" / f"{GAME_NAME}.alea"
        self.cond = threading.Condition()
        self.version = 0
        self.session: Session | None = None
        self.warning: str | None = None  # why the last game could not be opened, if so
        self._finish_new_game()
        if self.path.exists():
            try:
                if self.path.stat().st_size == 0:  # opening it would write a fresh schema
                    raise InputError("store.empty", "the file is empty")
                self.session = Session(GameStore(self.path))
            except UNREADABLE as exc:
                # Never refuse to start over one file: keep it aside, untouched, and say so.
                aside = self._free_name("unreadable")
                self.path.rename(aside)
                why = getattr(exc, "message", str(exc))
                self.warning = f"the last game could not be opened ({why}); kept as {aside.name}"

    def _fresh(self) -> Path:
        """Where new_game builds the next game before renaming it into place."""
        return self.path.with_name(f".{GAME_NAME}.new")

    def _finish_new_game(self) -> None:
        """A kill between new_game's two renames leaves the old game under its number and the
        new one, whole, aside with no current game: it takes its place. Any other build
        left aside was never acknowledged and goes."""
        fresh = self._fresh()
        if not fresh.exists():
            remove_store(fresh)  # journal files alone
            return
        if not self.path.exists() and fresh.stat().st_size:
            try:
                store = GameStore(fresh)
                try:
                    Session(store)
                finally:
                    store.close()
            except UNREADABLE:
                pass  # half made: the kill came while it was being built
            else:
                fresh.rename(self.path)
                return
        remove_store(fresh)

    def _free_name(self, stem: str) -> Path:
        n = 1
        while (name := self.path.with_name(f"{stem}-{n}.alea")).exists():
            n += 1
        return name

    def new_game(self, players: list[str], seed: int = 0, source: str | None = None) -> None:
        """Start a game; the one in progress is kept under a numbered name, never deleted.
        `source` marks who started it (`demo` for the demo feed's games). The new file is
        built aside and renamed into place, so a kill at any moment leaves either the old game
        or the new one as the current game (the next start finishes the renaming that a kill
        cut in two: _finish_new_game), never a half-made file."""
        with self.cond:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fresh = self._fresh()
            remove_store(fresh)  # a build a kill interrupted
            store = GameStore(fresh)
            Session(store, players=players, seed=seed, source=source)
            store.close()  # checkpointed: the whole game is in the one file
            if self.path.exists():
                if self.session is not None:
                    self.session.store.close()
                self.path.rename(self._free_name("game"))
            fresh.rename(self.path)
            self.session = Session(GameStore(self.path))
            self.warning = None
            self._changed()

    def run(self, action: Callable[[Session], object]) -> object:
        with self.cond:
            if self.session is None:
                raise InputError("game.none", "no game in progress: start one first")
            out = action(self.session)
            self._changed()
            return out

    def _changed(self) -> None:
        self.version += 1
        self.cond.notify_all()

    def snapshot(self) -> dict:
        with self.cond:
            body = self.session.summary() if self.session else None
            return {"version": self.version, "game": body, "warning": self.warning}

    def wait(self, seen: int, timeout: float) -> bool:
        """Block until the version differs from `seen` (True) or the timeout passes."""
        with self.cond:
            return self.cond.wait_for(lambda: self.version != seen, timeout)


def hub() -> GameHub:
    return current_app.extensions["alea.hub"]


def body() -> dict[str, Any]:
    raw = request.get_data(cache=True)
    data = parse_json(raw) if raw.strip() else None
    if not isinstance(data, dict):
        raise InputError("schema.type", "expected a JSON object", "$")
    return data


def field(data: dict[str, Any], key: str) -> Any:
    """A field of a request body as sent, None when absent: untyped JSON, which the session
    checks (with the JSON path of what is wrong) before anything is recorded."""
    return data.get(key)


def changing(action: Callable[[dict], object]):
    """A PIN-protected POST view: 403 without the PIN (429 after too many wrong ones), 400 with
    the error object on bad input, else the game's new summary."""

    @pin_required
    def view():
        try:
            result = action(body())
        except InputError as err:
            return jsonify(err.to_json()), 400
        return jsonify({"result": result, **hub().snapshot()})

    view.__name__ = action.__name__
    return view


def _new(data: dict[str, Any]):
    players = data.get("players")
    seed = data.get("seed", 0)
    from scanner.inputs import expect_int, parse_seating

    expect_int(seed, "$.seed", 0, 2**63 - 1, "seed")
    seating = parse_seating(players, "$.players")
    hub().new_game(list(seating), seed)
    return {"kind": "new-game"}


def _place(data: dict[str, Any]):
    return hub().run(lambda s: s.place(field(data, "move"), field(data, "roll")))


def _observe(data: dict[str, Any]):
    return hub().run(lambda s: s.observe(field(data, "state"), field(data, "unsure")))


def _correct(data: dict[str, Any]):
    return hub().run(
        lambda s: s.correct(field(data, "state"), data.get("why", "corrected by hand"))
    )


def _read_anew(data: dict[str, Any]):
    return hub().run(lambda s: s.read_anew(field(data, "die"), field(data, "now")))


def _accept(data: dict[str, Any]):
    return hub().run(lambda s: s.accept(field(data, "state")))  # no state: the flagged one


def _take_as_seen(data: dict[str, Any]):
    return hub().run(lambda s: s.take_as_seen(field(data, "state")))  # no state: the unclear one


def _lay_out(data: dict[str, Any]):
    return hub().run(lambda s: s.lay_out(data.get("provinces", []), data.get("patricians", [])))


def _repete(data: dict[str, Any]):
    return hub().run(lambda s: s.spend_repete(field(data, "player")))


def _pick(data: dict[str, Any]):
    return hub().run(
        lambda s: s.pick(field(data, "player"), field(data, "kind"), field(data, "tile"))
    )


def _next_round(data: dict[str, Any]):
    return hub().run(lambda s: s.next_round())


def _undo(data: dict[str, Any]):
    return hub().run(lambda s: s.undo())


def _redo(data: dict[str, Any]):
    return hub().run(lambda s: s.redo())


for _name, _action in {
    "new": _new,
    "place": _place,
    "observe": _observe,
    "correct": _correct,
    "read-anew": _read_anew,
    "accept": _accept,
    "take-as-seen": _take_as_seen,
    "lay-out": _lay_out,
    "repete": _repete,
    "pick": _pick,
    "undo": _undo,
    "redo": _redo,
    "next-round": _next_round,
}.items():
    live.add_url_rule(f"/{_name}", view_func=changing(_action), methods=["POST"])


@live.get("")
def game():
    return jsonify(hub().snapshot())


@live.get("/table")
def table_status():
    """The camera loop now: board found, settled or why not, the dice it reads."""
    loop = current_app.extensions.get("alea.table")
    if loop is None:
        return jsonify(
            {
                "running": False,
                "reason": "no camera loop in this server",
                "why": {"id": "camera.none"},
            }
        )
    return jsonify({"running": loop.is_alive(), **loop.status()})


@live.get("/inventory")
def inventory():
    snap = hub()
    if snap.session is None:
        return jsonify(InputError("game.none", "no game in progress").to_json()), 404
    return jsonify(snap.session.inventory())


@live.get("/history")
def history():
    """Every entry of the game in progress (the game's summary carries only the latest 20)."""
    snap = hub()
    if snap.session is None:
        return jsonify(InputError("game.none", "no game in progress").to_json()), 404
    with snap.cond:
        return jsonify({"log": list(snap.session.log)})


@live.get("/record")
def record():
    """The game's record as the final score needs it: per round the tiles laid out, the
    result, the tiles taken and the chips; the inventory derived from them."""
    snap = hub()
    if snap.session is None:
        return jsonify(InputError("game.none", "no game in progress").to_json()), 404
    out = jsonify(snap.session.record())
    if request.args.get("download"):  # the summary page's "download": a file to keep
        out.headers["Content-Disposition"] = "attachment; filename=alea-game-record.json"
    return out


@live.get("/stream")
def stream():
    """Server-Sent Events: the game summary now, then after every change; a comment line every
    few seconds keeps proxies and the browser from timing the stream out, and is how the
    server notices a tablet gone (the write fails), which frees its place at the gate."""
    h = hub()

    def events():
        seen = -1
        while True:
            snap = h.snapshot()
            if snap["version"] != seen:
                seen = snap["version"]
                yield f"id: {seen}\nevent: game\ndata: {json.dumps(snap)}\n\n"
            elif not h.wait(seen, KEEP_ALIVE_S):
                yield ": keep-alive\n\n"

    return gated(
        events,
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
