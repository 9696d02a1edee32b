"""What several `alea` commands share: arguments parsed the same way everywhere."""

from __future__ import annotations


def players_arg(values: list[str] | None) -> list[str] | None:
    """`--players grey brown blue` or `--players grey,brown,blue`, in seating order; a bad
    seating (unknown colour, repeated, not 2–5) is bad input, exit 2."""
    if not values:
        return None
    from scanner.rules.state import BoardState

    players = [p for v in values for p in v.split(",") if p]
    BoardState.from_json({"players": players})
    return players
