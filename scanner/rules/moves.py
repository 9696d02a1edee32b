"""The placements worth judging from a roll: per building, each distinct choice of dice values
of the right shape, once. Which of them are legal is `placement.check`'s to say
(`placement.legal_moves` keeps those), so there is exactly one copy of each rule.

>>> from scanner.rules.state import BoardState
>>> s = BoardState.from_json({"players": ["grey", "blue"]})
>>> sorted({m.building for m in candidates(s, "grey", (2, 3))})
['castrum', 'forum', 'senatus']
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from itertools import combinations

from scanner.rules.move import Move
from scanner.rules.state import BoardState


def sub_multisets(roll: tuple[int, ...], size: int) -> set[tuple[int, ...]]:
    """The distinct sorted choices of `size` dice from `roll`."""
    return set(combinations(sorted(roll), size))


def candidates(state: BoardState, player: str, roll: tuple[int, ...]) -> Iterator[Move]:
    """Moves worth judging: the right shape for their building, before the finer rules."""
    counts = Counter(roll)
    values = sorted(counts)
    if state.has_templum:
        top = max((len(d) for d in state.templum.values()), default=0)
        need = top + 1 - len(state.templum.get(player, ()))
        if 1 <= need <= len(roll):
            for dice in sub_multisets(roll, need):
                yield Move(player, "templum", dice)
    yield from senate_candidates(player, state.senatus.get(player, ()), set(values))
    for v, n in counts.items():
        for k in range(1, n + 1):
            yield Move(player, "castrum", (v,) * k)
    for v in values:
        yield Move(player, "forum", (v,))
    for a, b in ((1, 4), (2, 3)):
        if a in counts and b in counts:
            yield Move(player, "forum", (a, b))


def senate_candidates(player: str, own: tuple[int, ...], values: set[int]) -> Iterator[Move]:
    """Runs from the roll's values: any run of them when `own` is empty, otherwise the dice
    that extend `own` down and/or up to one run (nothing else can be legal)."""
    lo, hi = (own[0], own[-1]) if own else (7, 0)
    for start in range(1, 7):
        for end in range(start, 7):
            run = range(start, end + 1)
            if own and not (start <= lo and end >= hi):
                continue
            dice = tuple(v for v in run if not lo <= v <= hi)
            if not dice or any(v not in values for v in dice):
                continue
            yield Move(player, "senatus", dice)
