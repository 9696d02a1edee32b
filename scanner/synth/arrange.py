"""Where a board state's dice lie on the printed sheet: each building's dice packed in its
area as players lay them, Forum dice on their pedestals, each nudged and turned a little.

Apart from the drawing (scanner.synth.table) because it is geometry alone, in board mm: the
demo game (scanner.synth.demo) lays out states to know which fit before any frame is drawn.
"""

from __future__ import annotations

import zlib
from collections import Counter
from dataclasses import dataclass

import numpy as np

from scanner.rules.state import BoardState
from scanner.vision.layout import Layout


@dataclass(frozen=True)
class TrueDie:
    """A die drawn on the table: who, what, in which building, where (board mm)."""

    player: str
    value: int
    building: str
    x: float
    y: float
    yaw: float = 0.0  # radians: how the die is turned


class TooManyDice(ValueError):
    """The state has more dice in a building than its printed area holds."""


def die_rng(die_seed, *identity) -> np.random.Generator:
    """A generator for one die's own looks (spin, nudge, style): keyed by who and what it is,
    so a die keeps them from frame to frame while others are placed around it."""
    return np.random.default_rng((die_seed, zlib.crc32(repr(identity).encode())))


def _groups(state: BoardState, die_seed) -> dict[str, list[list[tuple]]]:
    """Each building's dice as groups of (player, value): a player's Templum dice, Senate run
    and each Castrum set lie together, as players lay them; Latrina dice lie anyhow (the state
    counts them, so each shows a value of its own)."""
    latrina = [
        (p, int(die_rng(die_seed, "latrina", p, k).integers(1, 7)))
        for p, n in state.latrina.items()
        for k in range(n)
    ]
    return {
        "templum": [[(p, v) for v in dice] for p, dice in state.templum.items()],
        "senatus": [[(p, v) for v in run] for p, run in state.senatus.items()],
        "castrum": [[(s.player, s.value)] * s.count for s in state.castrum],
        "latrina": [latrina] if latrina else [],
    }


def _pack(groups: list[list], cols: int) -> list[tuple[int, int]]:
    """(column, row) for each die: a group that does not fit in what is left of a row starts
    the next one, and a group longer than a row wraps straight below itself."""
    cells, row, col = [], 0, 0
    for group in groups:
        if col and col + min(len(group), cols) > cols:
            row, col = row + 1, 0
        for _ in group:
            if col == cols:
                row, col = row + 1, 0
            cells.append((col, row))
            col += 1
    return cells


def _slots(polygon: np.ndarray, groups: list[list], die: float) -> list[tuple[float, float]]:
    """Die positions for `groups` in a grid from the zone's top-left corner, so dice already
    there stay put when more are laid."""
    x0, y0 = polygon.min(axis=0) + die * 0.2
    x1, y1 = polygon.max(axis=0) - die * 0.2
    n = sum(len(g) for g in groups)
    # At most 1.25 dice apart: a run or set lies side by side (the board reader chains dice
    # closer than 1.5 dice into one group).
    for spacing in np.linspace(die * 1.25, die * 1.06, 8):
        cols = int((x1 - x0 - die) // spacing) + 1
        rows = int((y1 - y0 - die) // spacing) + 1
        cells = _pack(groups, cols)
        if max(r for _, r in cells) < rows:
            return [(x0 + die / 2 + c * spacing, y0 + die / 2 + r * spacing) for c, r in cells]
    raise TooManyDice(f"{n} dice do not fit in a zone of {x1 - x0:.0f}×{y1 - y0:.0f} mm")


def lay_out(state: BoardState, layout: Layout, die_seed=0) -> list[TrueDie]:
    """Where every die of `state` lies in its building's printed area (board mm)."""
    die = layout.die_size
    placed = []
    seen: Counter = Counter()

    def put(building: str, p: str, v: int, x: float, y: float, nudge: float) -> None:
        seen[(building, p, v)] += 1
        r = die_rng(die_seed, building, p, v, seen[(building, p, v)])
        placed.append(
            TrueDie(
                p,
                v,
                building,
                x + r.uniform(-nudge, nudge),
                y + r.uniform(-nudge, nudge),
                float(r.uniform(0, 2 * np.pi)),
            )
        )

    for building, groups in _groups(state, die_seed).items():
        if groups:
            slots = _slots(layout.zones[building].polygon, groups, die)
            for (p, v), (x, y) in zip([d for g in groups for d in g], slots, strict=True):
                put(building, p, v, x, y, die * 0.08)
    pedestals = layout.forum_pedestals(len(state.players))
    if len(state.forum) > len(pedestals):
        raise TooManyDice("more Forum dice than pedestals")
    for d, pedestal in zip(state.forum, pedestals, strict=False):
        put("forum", d.player, d.value, *pedestal.centre, 1.0)
    return placed
