"""Open event and video streams, counted: each holds a server thread for as long as it is
open (waitress gives every open stream one of its threads), so past a limit new ones are
refused (503) before they can starve page requests and the game API. A limit per client keeps
one tablet with many tabs from taking them all."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Iterator

from flask import Response, current_app, jsonify, request

from scanner.errors import InputError

PER_CLIENT = 6  # a browser opens at most 6 connections to one host anyway


class StreamGate:
    def __init__(self, most: int, per_client: int = PER_CLIENT) -> None:
        self.most, self.per_client = most, per_client
        self.lock = threading.Lock()
        self.open: Counter[str] = Counter()

    def enter(self, client: str) -> bool:
        with self.lock:
            if sum(self.open.values()) >= self.most or self.open[client] >= self.per_client:
                return False
            self.open[client] += 1
            return True

    def leave(self, client: str) -> None:
        with self.lock:
            self.open[client] -= 1
            if self.open[client] <= 0:
                del self.open[client]


def gated(body: Callable[[], Iterator[bytes | str]], **response: object) -> Response:
    """A streaming response counted at the app's gate, or 503 when the gate is full."""
    gate: StreamGate = current_app.extensions["alea.streams"]
    client = request.remote_addr or "?"
    if not gate.enter(client):
        busy = InputError("streams.busy", "too many open streams; try again in a moment")
        res = jsonify(busy.to_json())
        res.status_code = 503
        res.headers["Retry-After"] = "5"
        return res

    left = threading.Event()

    def leave() -> None:  # once, whether the stream ended or the client went away
        if not left.is_set():
            left.set()
            gate.leave(client)

    res = Response(body(), **response)  # type: ignore[arg-type]
    res.call_on_close(leave)  # the server closes every response it took, streams included
    return res
