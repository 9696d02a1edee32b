"""The game PIN: every change to the game needs it. Six random digits, kept in the data folder
so that the tablets keep theirs across restarts of the server. Compared in constant time, and
guessing is slowed: after `FREE_TRIES` wrong PINs a client waits 1, 2, 4 … up to 60 s after
each further wrong one before it may try again. A right PIN clears the client's count."""

from __future__ import annotations

import functools
import hmac
import threading
import time
from collections.abc import Callable
from pathlib import Path

from flask import Response, current_app, jsonify, request

from scanner.errors import InputError

FREE_TRIES = 10
LONGEST_WAIT_S = 60.0
PIN_DIGITS = 6
PIN_FILE = "pin.json"


def game_pin(data_dir: str | Path) -> str:
    """The data folder's PIN, made at its first use. A file that does not hold one (damaged,
    edited by hand) is replaced by a new PIN rather than refusing to start."""
    import json
    import secrets

    from scanner.store import write_json

    path = Path(data_dir) / PIN_FILE
    try:
        pin = json.loads(path.read_text(encoding="utf-8"))["pin"]
        if isinstance(pin, str) and len(pin) == PIN_DIGITS and pin.isascii() and pin.isdigit():
            return pin
    except (OSError, ValueError, TypeError, KeyError):
        pass
    pin = f"{secrets.randbelow(10**PIN_DIGITS):0{PIN_DIGITS}d}"
    write_json(path, {"pin": pin})
    return pin


class PinGuard:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.lock = threading.Lock()
        self.wrong: dict[str, tuple[int, float]] = {}  # client -> (wrong tries, last one at)

    def wait_s(self, client: str) -> float:
        """How long `client` must still wait before its next try (0: it may try now)."""
        with self.lock:
            n, last = self.wrong.get(client, (0, 0.0))
            if n < FREE_TRIES:
                return 0.0
            wait = min(LONGEST_WAIT_S, 2.0 ** (n - FREE_TRIES))
            return max(0.0, last + wait - self.clock())

    def judge(self, client: str, right: bool) -> None:
        with self.lock:
            if right:
                self.wrong.pop(client, None)
            else:
                n, _ = self.wrong.get(client, (0, 0.0))
                self.wrong[client] = (n + 1, self.clock())


def pin_refusal() -> tuple[Response, int] | None:
    """None when the request carries the game PIN; else the answer: 403 (`auth.pin`), or 429
    (`auth.wait`, with Retry-After) while the client must wait after too many wrong ones."""
    guard: PinGuard = current_app.extensions["alea.pin"]
    client = request.remote_addr or "?"
    wait = guard.wait_s(client)
    if wait > 0:
        res = jsonify(InputError("auth.wait", f"too many wrong PINs: wait {wait:.0f} s").to_json())
        res.headers["Retry-After"] = str(int(wait) + 1)
        return res, 429
    pin = request.headers.get("X-Alea-Pin", "")
    right = hmac.compare_digest(pin.encode(), str(current_app.config["GAME_PIN"]).encode())
    if pin:  # no PIN at all is no guess (a tablet that has not been given it yet)
        guard.judge(client, right)
    if right:
        return None
    return jsonify(InputError("auth.pin", "this needs the game PIN").to_json()), 403


def pin_required(view):
    """A view that answers `pin_refusal()` instead of running when the PIN is missing or wrong."""

    @functools.wraps(view)
    def guarded(*args, **kwargs):
        refused = pin_refusal()
        return refused if refused is not None else view(*args, **kwargs)

    return guarded
