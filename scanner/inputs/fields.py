"""The JSON fields every input is made of, checked in one place with one set of error codes:
a board state, a final inventory, a layout, a calibration profile and the web API's requests
all say `schema.type` for a field of the wrong JSON type, `schema.missing` for one left out,
`value.range` for a number out of range and `value.color` for a colour alea does not know,
with the JSON path of the field.

>>> parse_seating(["grey", "blue", "grey"], "$.players")
Traceback (most recent call last):
...
scanner.errors.InputError: grey is listed twice
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any, TypeGuard

from scanner.errors import InputError
from scanner.rules.components import MAX_PLAYERS, MIN_PLAYERS, PLAYER_COLORS


def is_int(x: object) -> TypeGuard[int]:
    """A JSON integer: `true` is an int in Python, never a count or a value here."""
    return isinstance(x, int) and not isinstance(x, bool)


def expect_object(data: Any, path: str, allowed: Iterable[str] | None = None) -> dict[str, Any]:
    """`data` must be a JSON object whose keys are all in `allowed` (when given)."""
    if not isinstance(data, dict):
        raise InputError("schema.type", f"expected an object, got {_kind(data)}", path)
    if allowed is not None:
        allowed = tuple(allowed)
        for key in data:
            if key not in allowed:
                raise InputError(
                    "schema.unknown-field",
                    f"unknown field {key!r}; expected one of {', '.join(allowed)}",
                    f"{path}.{key}",
                )
    return data


def expect_record(data: Any, path: str, keys: tuple[str, ...], what: str) -> dict[str, Any]:
    """An object with exactly these `keys`, all present: `what` names it in the message."""
    obj = expect_object(data, path, keys)
    for key in keys:
        if key not in obj:
            raise InputError("schema.missing", f"{what} needs '{key}'", path)
    return obj


def expect_list(data: Any, path: str) -> list[Any]:
    if not isinstance(data, list):
        raise InputError("schema.type", f"expected a list, got {_kind(data)}", path)
    return data


def expect_int(data: Any, path: str, lo: int, hi: int, what: str = "value") -> int:
    if not is_int(data):
        raise InputError("schema.type", f"expected an integer {what}, got {_kind(data)}", path)
    if not lo <= data <= hi:
        raise InputError("value.range", f"{what} {data} is not between {lo} and {hi}", path)
    return data


def expect_die(data: Any, path: str) -> int:
    if is_int(data) and not 1 <= data <= 6:
        raise InputError("value.die", f"die value {data} is not between 1 and 6", path)
    return expect_int(data, path, 1, 6, "die value")


def expect_dice(data: Any, path: str) -> tuple[int, ...]:
    return tuple(expect_die(v, f"{path}[{i}]") for i, v in enumerate(expect_list(data, path)))


def expect_player(data: Any, path: str, players: Iterable[str] | None = None) -> str:
    if not isinstance(data, str):
        raise InputError("schema.type", f"expected a player colour, got {_kind(data)}", path)
    if data not in PLAYER_COLORS:
        raise InputError(
            "value.color",
            f"unknown colour {data!r}; players are {', '.join(PLAYER_COLORS)}",
            path,
        )
    if players is not None and data not in players:
        raise InputError("state.unknown-player", f"{data} is not playing in this game", path)
    return data


def _kind(data: Any) -> str:
    return {
        dict: "an object",
        list: "a list",
        str: "a string",
        bool: "a boolean",
        type(None): "null",
        float: "a number",
    }.get(type(data), type(data).__name__)


def expect_number(data: Any, path: str, lo: float = -math.inf, hi: float = math.inf) -> float:
    """A finite JSON number (not a boolean) in lo..hi."""
    if isinstance(data, bool) or not isinstance(data, int | float) or not math.isfinite(data):
        raise InputError("schema.type", "expected a number", path)
    if not lo <= data <= hi:
        raise InputError("value.range", f"{data} is not between {lo} and {hi}", path)
    return float(data)


def parse_seating(data: Any, path: str = "$.players") -> tuple[str, ...]:
    """The players in seating order: 2 to 5 distinct player colours."""
    if data is None:
        raise InputError("schema.missing", "the players are needed, in seating order", path)
    players = expect_list(data, path)
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise InputError(
            "state.player-count", f"{len(players)} players; the game needs 2 to 5", path
        )
    seen: list[str] = []
    for i, p in enumerate(players):
        expect_player(p, f"{path}[{i}]")
        if p in seen:
            raise InputError("state.duplicate-player", f"{p} is listed twice", f"{path}[{i}]")
        seen.append(p)
    return tuple(seen)
