"""Small builders shared by the rules tests."""

from __future__ import annotations

from scanner.rules.move import Move
from scanner.rules.placement import check
from scanner.rules.state import BoardState

FOUR = ["grey", "brown", "blue", "green"]


def state(players=None, strict=True, **buildings) -> BoardState:
    return BoardState.from_json({"players": players or FOUR, **buildings}, strict=strict)


def verdict(st: BoardState, player: str, building: str, dice, roll=None):
    return check(st, Move(player, building, tuple(dice)), None if roll is None else tuple(roll))


def forum(*pairs) -> list[dict]:
    """forum(("green", 1), ("blue", 2)) → the JSON list."""
    return [{"player": p, "value": v} for p, v in pairs]
