"""A placement as a player states it: who puts which dice in which building, and how to say
the dice in a sentence. The value every rule, the referee and the web page pass around; whether
it is legal is `scanner.rules.placement`'s to say.

>>> Move("grey", "forum", (5, 2)).dice, dice_text((2, 3, 4))
((2, 5), '2, 3 and 4')
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scanner.rules.components import BUILDINGS


@dataclass(frozen=True, slots=True)
class Move:
    """A player places `dice` (values, sorted) in one `building`."""

    player: str
    building: str
    dice: tuple[int, ...]

    def __post_init__(self) -> None:
        if self.building not in BUILDINGS:
            raise ValueError(f"unknown building {self.building!r}")
        object.__setattr__(self, "dice", tuple(sorted(self.dice)))

    def to_json(self) -> dict[str, Any]:
        return {"player": self.player, "building": self.building, "dice": list(self.dice)}


def dice_text(dice: tuple[int, ...] | list[int]) -> str:
    """'a 5', 'a 3 and a 6', '2, 3 and 4' — dice as a player would say them."""
    if len(dice) == 1:
        return f"a {dice[0]}"
    if len(dice) == 2:
        return f"a {dice[0]} and a {dice[1]}"
    return ", ".join(map(str, dice[:-1])) + f" and {dice[-1]}"
