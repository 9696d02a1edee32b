"""Scoring a finished round: who keeps Fortuna tiles, who takes Senate cards, provinces,
patricians, and how many Repete chips each player earns (RULES.md `score.*`).

>>> from scanner.rules.state import BoardState
>>> s = BoardState.from_json({"players": ["grey", "brown", "blue", "green"],
...     "templum": {"blue": [5], "green": [3, 6]}, "senatus": {"grey": [3, 4, 5]},
...     "latrina": {"blue": 1}, "supply": {"green": 3}})
>>> r = score_round(s)
>>> r.templum, r.senatus, r.repete
({'green': 2, 'blue': 1}, ('grey',), {'blue': 1, 'green': 3})
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scanner.rules.components import senate_takers
from scanner.rules.state import BoardState


@dataclass(frozen=True, slots=True)
class RoundResult:
    """What each building gives out, in the order players pick (CONTRACT `round`)."""

    templum: dict[str, int]
    senatus: tuple[str, ...]
    castrum: tuple[str, ...]
    forum: tuple[str, ...]
    repete: dict[str, int]

    def to_json(self) -> dict[str, Any]:
        return {
            "templum": dict(self.templum),
            "senatus": list(self.senatus),
            "castrum": list(self.castrum),
            "forum": list(self.forum),
            "repete": dict(self.repete),
        }


def fortuna_kept(state: BoardState) -> dict[str, int]:
    """score.templum: the player with most dice keeps 2 tiles, every other player there 1.
    A lone die in the Templum also keeps 2 (its owner draws a second tile)."""
    ranked = sorted(state.templum, key=lambda p: len(state.templum[p]), reverse=True)
    return {p: 2 if i == 0 else 1 for i, p in enumerate(ranked)}


def senate_order(state: BoardState) -> list[str]:
    """score.senatus: runs ranked longest first, then by higher top value."""
    return sorted(
        state.senatus, key=lambda p: (len(state.senatus[p]), state.senatus[p][-1]), reverse=True
    )


def castrum_order(state: BoardState) -> list[int]:
    """score.castrum: indexes of the sets ranked by more dice, then higher value."""
    return sorted(
        range(len(state.castrum)),
        key=lambda i: (state.castrum[i].count, state.castrum[i].value),
        reverse=True,
    )


def score_round(state: BoardState) -> RoundResult:
    """Score the buildings in rulebook order; `supply` holds the dice never placed."""
    players = len(state.players)
    senate_winners = senate_order(state)[: senate_takers(players)]
    castrum_winners = castrum_order(state)[:players]

    chips = {p: state.latrina.get(p, 0) + state.supply.get(p, 0) for p in state.players}
    for p, run in state.senatus.items():
        if p not in senate_winners:
            chips[p] += len(run)
    for i, s in enumerate(state.castrum):
        if i not in castrum_winners:
            chips[s.player] += s.count

    return RoundResult(
        templum=fortuna_kept(state),
        senatus=tuple(senate_winners),
        castrum=tuple(state.castrum[i].player for i in castrum_winners),
        forum=tuple(d.player for d in state.forum),
        repete={p: n for p, n in chips.items() if n},
    )
